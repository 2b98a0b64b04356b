#include "parsers/looper_stats.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <utility>

#include "parsers/line_splitter.h"
#include "parsers/android_uid.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

struct ColumnName {
  std::string_view name;
  LooperStatsColumn column;
};

// Names as LooperStatsService.dump's header prints them.
constexpr std::array<ColumnName, 15> kColumnNames = {{
    {"work_source_uid", LooperStatsColumn::kWorkSourceUid},
    {"thread_name", LooperStatsColumn::kThreadName},
    {"handler_class", LooperStatsColumn::kHandlerClass},
    {"message_name", LooperStatsColumn::kMessageName},
    {"is_interactive", LooperStatsColumn::kIsInteractive},
    {"message_count", LooperStatsColumn::kMessageCount},
    {"recorded_message_count", LooperStatsColumn::kRecordedMessageCount},
    {"total_latency_micros", LooperStatsColumn::kTotalLatencyMicros},
    {"max_latency_micros", LooperStatsColumn::kMaxLatencyMicros},
    {"total_cpu_micros", LooperStatsColumn::kTotalCpuMicros},
    {"max_cpu_micros", LooperStatsColumn::kMaxCpuMicros},
    {"recorded_delay_message_count", LooperStatsColumn::kRecordedDelayMessageCount},
    {"total_delay_millis", LooperStatsColumn::kTotalDelayMillis},
    {"max_delay_millis", LooperStatsColumn::kMaxDelayMillis},
    {"exception_count", LooperStatsColumn::kExceptionCount},
}};

constexpr std::string_view kServiceMissingPrefix = "Can't find service: ";
constexpr std::string_view kPermissionDenialPrefix = "Permission Denial:";
constexpr size_t kMaxMessageChars = 200;

bool IsColumnNameChar(char c) { return (c >= 'a' && c <= 'z') || IsAsciiDigit(c) || c == '_'; }

// A header is a comma-separated list of snake_case names of which at least two are columns we
// know: that finds it by content, whatever the column set, yet no row (which always holds a
// number or a dotted class name) and no prose line can pass for it.
bool IsHeaderLine(std::string_view line) {
  if (line.empty()) return false;
  int known = 0;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view name = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsColumnNameChar)) return false;
    if (LooperStatsColumnFromName(name) != LooperStatsColumn::kUnknown) ++known;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return known >= 2;
}

std::string OneLine(std::string_view text) {
  text = Trim(text);
  std::string out(text.substr(0, kMaxMessageChars));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

// Reads the decimal digits at `p` into `out`, where they stand, and returns where they stop, or
// nullptr if there are none or the value passes INT64_MAX. This fuses finding the field's end
// with converting it (ParseInt needs the end first: one more memchr per field, and the
// out-of-line std::from_chars was the largest cost of a row). Counts are never signed, so no
// sign is accepted; Java never prints leading zeros, so 20 digits are always too many.

using CountMember = std::optional<int64_t> LooperStatsEntry::*;
using TextMember = std::optional<std::string_view> LooperStatsEntry::*;

// The entry member each counting column fills, or nullptr: resolved once per header so that a
// row costs one table load per field, never a name compare.
CountMember CountMemberFor(LooperStatsColumn column) {
  switch (column) {
    case LooperStatsColumn::kMessageCount:
      return &LooperStatsEntry::message_count;
    case LooperStatsColumn::kRecordedMessageCount:
      return &LooperStatsEntry::recorded_message_count;
    case LooperStatsColumn::kTotalLatencyMicros:
      return &LooperStatsEntry::total_latency_micros;
    case LooperStatsColumn::kMaxLatencyMicros:
      return &LooperStatsEntry::max_latency_micros;
    case LooperStatsColumn::kTotalCpuMicros:
      return &LooperStatsEntry::total_cpu_micros;
    case LooperStatsColumn::kMaxCpuMicros:
      return &LooperStatsEntry::max_cpu_micros;
    case LooperStatsColumn::kRecordedDelayMessageCount:
      return &LooperStatsEntry::recorded_delay_message_count;
    case LooperStatsColumn::kTotalDelayMillis:
      return &LooperStatsEntry::total_delay_millis;
    case LooperStatsColumn::kMaxDelayMillis:
      return &LooperStatsEntry::max_delay_millis;
    case LooperStatsColumn::kExceptionCount:
      return &LooperStatsEntry::exception_count;
    default:
      return nullptr;
  }
}

TextMember TextMemberFor(LooperStatsColumn column) {
  switch (column) {
    case LooperStatsColumn::kThreadName:
      return &LooperStatsEntry::thread_name;
    case LooperStatsColumn::kHandlerClass:
      return &LooperStatsEntry::handler_class;
    case LooperStatsColumn::kMessageName:
      return &LooperStatsEntry::message_name;
    default:
      return nullptr;
  }
}

}  // namespace

LooperStatsColumn LooperStatsColumnFromName(std::string_view name) {
  for (const ColumnName& c : kColumnNames) {
    if (c.name == name) return c.column;
  }
  return LooperStatsColumn::kUnknown;
}

bool IsSpecialEntry(const LooperStatsEntry& entry) {
  return entry.message_name == std::string_view("OVERFLOW") ||
         entry.message_name == std::string_view("HASH_COLLISION");
}


void SplitWorkSourceUid(std::string_view work_source_uid, LooperStatsEntry& entry) {
  if (work_source_uid == std::string_view("-1")) {  // UID_NONE: most rows of a typical dump
    entry.package.reset();
    entry.uid.reset();
    return;
  }
  // Package names and sharedUserIds hold no '/', formatUid text neither: the last '/' splits.
  const size_t slash = work_source_uid.rfind('/');
  if (slash == std::string_view::npos) {
    entry.package.reset();
    entry.uid = ParseFormattedUid(work_source_uid);
    return;
  }
  std::optional<int64_t> uid = ParseFormattedUid(work_source_uid.substr(slash + 1));
  if (!uid || slash == 0) {
    entry.package.reset();
    entry.uid.reset();
    return;
  }
  entry.package = work_source_uid.substr(0, slash);
  entry.uid = uid;
}

void LooperStatsReader::AddPreambleLine(std::string_view line) {
  ++lines_before_header_;
  std::string_view rest = line;
  if (ConsumePrefix(rest, "Start time:")) {
    dump_.start_time = std::string(Trim(rest));
    return;
  }
  if (ConsumePrefix(rest, "On battery time (ms):")) {
    std::optional<int64_t> ms = ParseInt64(Trim(rest));
    if (ms && *ms >= 0) {
      dump_.on_battery_time_ms = ms;
    } else {
      ++dump_.skipped_lines;  // the right line with a damaged value: count it
    }
    return;
  }
  if (IsHeaderLine(line)) {
    header_seen_ = true;
    header_line_ = std::string(line);
    dump_.columns.clear();
    column_kinds_.clear();
    size_t start = 0;
    while (true) {
      size_t comma = line.find(',', start);
      std::string_view name = line.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      LooperStatsColumn kind = LooperStatsColumnFromName(name);
      // A repeated known column keeps its first value; the repeat is kept as an extra.
      if (std::find(column_kinds_.begin(), column_kinds_.end(), kind) != column_kinds_.end()) {
        kind = LooperStatsColumn::kUnknown;
      }
      if (kind == LooperStatsColumn::kUnknown)
        dump_.extra_column_indexes.push_back(column_kinds_.size());
      column_kinds_.push_back(kind);
      dump_.columns.emplace_back(name);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    extra_count_ = dump_.extra_column_indexes.size();
    columns_.clear();
    for (LooperStatsColumn kind : column_kinds_) {
      columns_.push_back(ColumnSlot{kind, CountMemberFor(kind), TextMemberFor(kind)});
    }
    return;
  }
  std::string_view trimmed = TrimLeft(line);
  if (!device_error_ && trimmed.substr(0, kServiceMissingPrefix.size()) == kServiceMissingPrefix) {
    device_error_ = MakeError(
        ParseErrorCode::kServiceMissing,
        "no looper_stats service on this device (Android 9 or older?): " + OneLine(trimmed));
    return;
  }
  if (!device_error_ &&
      trimmed.substr(0, kPermissionDenialPrefix.size()) == kPermissionDenialPrefix) {
    device_error_ = MakeError(ParseErrorCode::kPermissionDenied,
                              "dumpsys looper_stats refused: " + OneLine(trimmed));
    return;
  }
  ++dump_.preamble_lines;
}

bool LooperStatsReader::AddRow(std::string_view line) {
  if (line.empty() || line == header_line_) return false;
  std::vector<LooperStatsEntry>& entries = dump_.entries;
  LooperStatsEntry& e = entries.emplace_back();
  if (extra_count_ != 0) e.extra.reserve(extra_count_);
  const char* p = line.data();
  const char* const end = p + line.size();
  const size_t n = columns_.size();
  bool ok = true;
  for (size_t i = 0; ok && i < n; ++i) {
    const ColumnSlot& slot = columns_[i];
    const bool last = i + 1 == n;
    if (slot.count != nullptr) {
      // Counts and sums in LooperStats are non-negative longs: digits only.
      int64_t value = 0;
      const char* stop = ScanNonNegativeInt64(p, end, value);
      ok = stop != nullptr && (last ? stop == end : stop != end && *stop == ',');
      if (!ok) break;
      e.*slot.count = value;
      p = stop + 1;
      continue;
    }
    if (slot.kind == LooperStatsColumn::kIsInteractive && !last) {
      // Java's Boolean.toString: "false" (the usual value) or "true", then the comma.
      const size_t left = static_cast<size_t>(end - p);
      if (left >= 6 && std::memcmp(p, "false,", 6) == 0) {
        e.is_interactive = false;
        p += 6;
      } else if (left >= 5 && std::memcmp(p, "true,", 5) == 0) {
        e.is_interactive = true;
        p += 5;
      } else {
        ok = false;
      }
      continue;
    }
    const char* field_end;
    if (last) {
      // The last field runs to the end of the line; a comma in it means too many fields.
      field_end = end;
      ok = std::memchr(p, ',', static_cast<size_t>(end - p)) == nullptr;
    } else {
      field_end = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
      ok = field_end != nullptr;  // fewer fields than the header: a cut or foreign line
    }
    if (!ok) break;
    const std::string_view field(p, static_cast<size_t>(field_end - p));
    p = field_end + 1;
    if (slot.text != nullptr) {
      e.*slot.text = field;
      continue;
    }
    switch (slot.kind) {
      case LooperStatsColumn::kWorkSourceUid:
        e.work_source_uid = field;
        SplitWorkSourceUid(field, e);
        break;
      case LooperStatsColumn::kIsInteractive:
        if (field == "false") {
          e.is_interactive = false;
        } else if (field == "true") {
          e.is_interactive = true;
        } else {
          ok = false;  // Java prints a boolean only as "true" or "false"
        }
        break;
      default:
        e.extra.push_back(field);
        break;
    }
  }
  if (!ok) {
    entries.pop_back();
    ++dump_.skipped_lines;
    return false;
  }
  return true;
}

bool LooperStatsReader::AddLine(std::string_view line) {
  if (!header_seen_) {
    AddPreambleLine(line);
    return false;
  }
  return AddRow(line);
}

void LooperStatsReader::AddUnterminatedLastLine(std::string_view line) {
  if (!header_seen_) {
    AddPreambleLine(line);
    return;
  }
  if (line.empty() || line == header_line_) return;
  ++dump_.skipped_lines;
}

Result<LooperStatsDump> LooperStatsReader::Finish() {
  if (!header_seen_) {
    if (device_error_) return *device_error_;
    if (lines_before_header_ == 0) {
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "not a dumpsys looper_stats output: the input is empty");
    }
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "not a dumpsys looper_stats output: no header line "
                     "(work_source_uid,thread_name,…) in " +
                         std::to_string(lines_before_header_) + " lines");
  }
  return std::move(dump_);
}

Result<LooperStatsDump> ParseLooperStats(std::string_view dump) {
  LooperStatsReader reader;
  // One entry per line at most: counting lines first (memchr is vectorised) lets the vector be
  // allocated once instead of growing and moving 100,000 entries.
  size_t lines = 0;
  for (const char *p = dump.data(), *end = p + dump.size();;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (nl == nullptr) break;
    ++lines;
    p = static_cast<const char*>(nl) + 1;
  }
  reader.mutable_dump().entries.reserve(lines);
  // No line is cut when the whole dump is at hand: every view then points into `dump`.
  LineSplitter splitter(std::max(LineSplitter::kDefaultMaxLineBytes, dump.size()));
  splitter.Feed(dump, [&reader](std::string_view line) { reader.AddLine(line); });
  splitter.Finish([&reader](std::string_view line) { reader.AddUnterminatedLastLine(line); });
  return reader.Finish();
}

}  // namespace droidlab::parsers
