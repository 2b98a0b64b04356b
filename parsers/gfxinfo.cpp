#include "parsers/gfxinfo.h"

#include <charconv>
#include <cstring>
#include <functional>
#include <system_error>
#include <utility>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

constexpr std::string_view kProfileDataMarker = "---PROFILEDATA---";
// hwui keeps a window's last 120 frames (CanvasContext's RingBuffer<FrameInfo, 120>), so a
// block's storage is allocated once; a longer block grows it.
constexpr size_t kFramesPerBlock = 120;

// "16.28" of "(16.28%)": ProfileData prints "%.2f"; the whole field must be a number.
std::optional<double> ParseDecimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// "5ms" → 5.
std::optional<int64_t> ParseMs(std::string_view s) {
  if (!s.ends_with("ms")) return std::nullopt;
  s.remove_suffix(2);
  return ParseInt<int64_t>(s);
}

// "** Graphics info for pid 2720 [com.android.chrome] **" (ActivityManagerService). The name is
// the process name, taken between the first '[' and the last ']'.
bool ParseProcessHeader(std::string_view line, int64_t& pid, std::string& name) {
  if (!ConsumePrefix(line, "** Graphics info for pid ") || !line.ends_with(" **")) return false;
  line.remove_suffix(3);
  auto pid_text = SplitFirst(line, ' ');
  if (!pid_text || !line.starts_with('[') || !line.ends_with(']')) return false;
  auto value = ParseInt<int64_t>(*pid_text);
  if (!value) return false;
  pid = *value;
  name.assign(line.substr(1, line.size() - 2));
  return true;
}

// "7 (16.28%)": JankTracker / ProfileData's "%u (%.2f%%)".
bool ParseCountAndPercent(std::string_view s, std::optional<uint64_t>& count,
                          std::optional<double>& percent) {
  auto count_text = SplitFirst(s, ' ');
  if (!count_text || !s.starts_with('(') || !s.ends_with("%)")) return false;
  auto n = ParseInt<uint64_t>(*count_text);
  auto p = ParseDecimal(s.substr(1, s.size() - 3));
  if (!n || !p) return false;
  count = *n;
  percent = *p;
  return true;
}

// " 5ms=33 6ms=1 …" after "HISTOGRAM:". False if any bucket is unreadable; the readable ones
// are kept either way.
bool ParseHistogram(std::string_view s, std::vector<GfxinfoHistogramBucket>& out) {
  bool all_read = true;
  for (std::string_view token = NextToken(s); !token.empty(); token = NextToken(s)) {
    std::string_view count_text = token;
    auto ms_text = SplitFirst(count_text, '=');
    std::optional<int64_t> ms = ms_text ? ParseMs(*ms_text) : std::nullopt;
    auto count = ParseInt<int64_t>(count_text);
    if (!ms || !count) {
      all_read = false;
      continue;
    }
    out.push_back({*ms, *count});
  }
  return all_read;
}

// The CSV fields of a framestats line; FrameInfo prints a ',' after every field, so one trailing
// empty field is the line's end, not a value.
std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> fields;
  if (line.ends_with(',')) line.remove_suffix(1);
  while (true) {
    auto head = SplitFirst(line, ',');
    if (!head) break;
    fields.push_back(*head);
  }
  fields.push_back(line);
  return fields;
}

bool IsColumnName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || IsAsciiDigit(c) || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Android 13–14 print "FrameInterval,FrameStartTime" over values in FrameInfoIndex's order
// (FrameStartTime, then FrameInterval): see the header. No FrameInfoIndex has ever put
// FrameInterval before FrameStartTime, so that header order alone identifies the mislabel.
void CorrectSwappedNames(GfxinfoFramestats& block) {
  auto interval = block.Column("FrameInterval");
  auto start = block.Column("FrameStartTime");
  if (interval && start && *interval + 1 == *start) {
    std::swap(block.columns[*interval], block.columns[*start]);
    block.names_corrected = true;
  }
}

class GfxinfoReader {
 public:
  // The whole text the lines come from (see FramestatsLine).
  explicit GfxinfoReader(std::string_view text)
      : text_begin_(text.data()), text_end_(text.data() + text.size()) {}

  void Line(std::string_view raw) {
    const std::string_view line = Trim(raw);
    if (line.empty()) return;
    if (line.starts_with("** Graphics info for pid ")) {
      ProcessHeader(line);
      return;
    }
    if (line == kProfileDataMarker) {
      if (in_framestats_) {
        CloseFramestats();
      } else {
        in_framestats_ = true;
        header_pending_ = true;
        block_ = {};
      }
      return;
    }
    if (in_framestats_) {
      FramestatsLine(line);
      return;
    }
    StatsLine(line);
  }

  Result<Gfxinfo> Finish() && {
    if (in_framestats_) CloseFramestats();  // a dump cut inside the block keeps its rows
    DropPending();
    Gfxinfo out;
    out.skipped_lines = skipped_;
    for (auto& p : profiles_) {
      if (p.has_total) {
        out.profiles.push_back(std::move(p.profile));
      } else {
        // Stats without their "Total frames rendered" (a cut dump): not a profile to report.
        out.skipped_lines += (p.start_line_counted ? 0 : 1) + RowCount(p.profile.framestats);
      }
    }
    if (out.profiles.empty()) {
      if (no_process_) {
        return MakeError(ParseErrorCode::kServiceMissing,
                         "dumpsys gfxinfo: no process of that package is running");
      }
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "dumpsys gfxinfo: no profile data (no readable \"Total frames rendered: "
                       "N\" line); is the app running and has it drawn a frame?");
    }
    return out;
  }

 private:
  struct Pending {
    GfxinfoProfile profile;
    bool has_total = false;
    // Its first line was unreadable and already counted: Finish must not count it again.
    bool start_line_counted = false;
  };

  static uint64_t RowCount(const std::vector<GfxinfoFramestats>& blocks) {
    uint64_t n = 0;
    for (const auto& b : blocks) n += b.rows.size();
    return n;
  }

  void ProcessHeader(std::string_view line) {
    if (in_framestats_) CloseFramestats();
    DropPending();
    current_.reset();
    description_.reset();
    int64_t pid = 0;
    std::string name;
    if (ParseProcessHeader(line, pid, name)) {
      pid_ = pid;
      package_ = std::move(name);
    } else {
      pid_.reset();
      package_.reset();
      ++skipped_;
    }
  }

  GfxinfoProfile& StartProfile() {
    Pending p;
    p.profile.pid = pid_;
    p.profile.package = package_;
    p.profile.description = std::move(description_);
    description_.reset();
    // Framestats printed before this process had a profile block belong to it.
    p.profile.framestats = std::move(orphan_blocks_);
    orphan_blocks_.clear();
    profiles_.push_back(std::move(p));
    current_ = profiles_.size() - 1;
    return profiles_.back().profile;
  }

  Pending* Current() { return current_ ? &profiles_[*current_] : nullptr; }

  void StatsLine(std::string_view line) {
    std::string_view rest = line;
    if (ConsumePrefix(rest, "No process found for: ")) {
      no_process_ = true;
      return;
    }
    if (ConsumePrefix(rest, "Package: ") || ConsumePrefix(rest, "Window: ")) {
      description_ = std::string(rest);
      return;
    }
    if (ConsumePrefix(rest, "Stats since: ")) {
      GfxinfoProfile& p = StartProfile();
      if (rest.ends_with("ns")) {
        p.stats_since_ns = ParseInt<uint64_t>(rest.substr(0, rest.size() - 2));
      }
      if (!p.stats_since_ns) {
        ++skipped_;
        profiles_.back().start_line_counted = true;
      }
      return;
    }
    if (ConsumePrefix(rest, "Total frames rendered: ")) {
      Pending* p = Current();
      // A block starts at "Stats since"; one that starts here had none, or this is a new one.
      const bool starts_block = p == nullptr || p->has_total;
      if (starts_block) {
        StartProfile();
        p = Current();
      }
      auto n = ParseInt<uint64_t>(rest);
      if (!n) {
        ++skipped_;
        if (starts_block) p->start_line_counted = true;
        return;
      }
      p->profile.total_frames = *n;
      p->has_total = true;
      return;
    }
    Pending* p = Current();
    if (p == nullptr) return;  // not inside a profile block: another section's line
    GfxinfoProfile& profile = p->profile;
    if (ConsumePrefix(rest, "Janky frames (legacy): ")) {
      if (!ParseCountAndPercent(rest, profile.janky_frames_legacy, profile.janky_percent_legacy)) {
        ++skipped_;
      }
    } else if (ConsumePrefix(rest, "Janky frames: ")) {
      if (!ParseCountAndPercent(rest, profile.janky_frames, profile.janky_percent)) ++skipped_;
    } else if (ConsumePrefix(rest, "Number ")) {
      JankTypeCount(rest, profile);
    } else if (ConsumePrefix(rest, "HISTOGRAM:")) {
      if (!ParseHistogram(rest, profile.histogram)) ++skipped_;
    } else if (ConsumePrefix(rest, "GPU HISTOGRAM:")) {
      if (!ParseHistogram(rest, profile.gpu_histogram)) ++skipped_;
    } else if (!rest.empty() && IsAsciiDigit(rest.front()) &&
               rest.find(" percentile: ") != std::string_view::npos) {
      Percentile(rest, profile);
    }
    // Anything else ("Note: Data has been filtered!", "Caches:", "Pipeline=…") is not stats.
  }

  // "50th percentile: 5ms", "99th gpu percentile: 4950ms".
  void Percentile(std::string_view s, GfxinfoProfile& profile) {
    std::string_view nth = NextToken(s);
    s = TrimLeft(s);
    const bool gpu = ConsumePrefix(s, "gpu ");
    std::optional<int64_t> value;
    if (nth.ends_with("th") && ConsumePrefix(s, "percentile: ")) value = ParseMs(s);
    nth.remove_suffix(nth.ends_with("th") ? 2 : 0);
    auto which = ParseInt<int>(nth);
    auto& slots = gpu ? profile.gpu_percentiles_ms : profile.percentiles_ms;
    for (size_t i = 0; i < kGfxinfoPercentiles.size(); ++i) {
      if (which && value && *which == kGfxinfoPercentiles[i]) {
        slots[i] = *value;
        return;
      }
    }
    ++skipped_;
  }

  // "Missed Vsync: 5" after "Number " (JANK_TYPE_NAMES of JankTracker / ProfileData).
  void JankTypeCount(std::string_view s, GfxinfoProfile& profile) {
    const size_t colon = s.rfind(": ");
    auto value =
        colon == std::string_view::npos ? std::nullopt : ParseInt<uint64_t>(s.substr(colon + 2));
    if (!value) {
      ++skipped_;
      return;
    }
    const std::string_view name = s.substr(0, colon);
    std::optional<uint64_t>* slot = nullptr;
    if (name == "Missed Vsync") {
      slot = &profile.missed_vsync;
    } else if (name == "High input latency") {
      slot = &profile.high_input_latency;
    } else if (name == "Slow UI thread") {
      slot = &profile.slow_ui_thread;
    } else if (name == "Slow bitmap uploads") {
      slot = &profile.slow_bitmap_uploads;
    } else if (name == "Slow issue draw commands" || name == "Slow draw") {
      slot = &profile.slow_draw_commands;
    } else if (name == "Frame deadline missed") {
      slot = &profile.frame_deadline_missed;
    } else if (name == "Frame deadline missed (legacy)") {
      slot = &profile.frame_deadline_missed_legacy;
    }
    if (slot == nullptr) {
      ++skipped_;  // a jank type this parser does not know: visible, not silently dropped
      return;
    }
    *slot = *value;
  }

  void FramestatsLine(std::string_view line) {
    if (header_pending_) {
      header_pending_ = false;
      auto names = SplitCsv(line);
      bool ok = true;
      for (auto name : names) ok = ok && IsColumnName(name);
      if (!ok) {
        header_bad_ = true;
        ++skipped_;
        return;
      }
      header_bad_ = false;
      for (auto name : names) block_.columns.emplace_back(name);
      CorrectSwappedNames(block_);
      block_.rows = GfxinfoRows(block_.columns.size());
      block_.rows.Reserve(kFramesPerBlock);
      return;
    }
    if (header_bad_) {
      ++skipped_;  // rows with no readable header have no names
      return;
    }
    // dumpFrames prints ',' after every value, the last included: a row without it was cut, and
    // its last value may be a prefix of the real one ("…,255270175630,2" in a paste).
    if (!line.ends_with(',')) {
      ++skipped_;
      return;
    }
    // One pass, straight into the block's flat storage, each value followed by its ','. The
    // per-row hot path (bench/gfxinfo_bench.cpp; the figures in bench/README.md): text.h's
    // 16-bytes-at-a-time scan, and ParseInt for the rare negative value (-1 where a version
    // marks a time it has not got).
    const size_t width = block_.rows.width();
    const char* p = line.data();
    const char* const end = p + line.size();
    // The bytes after the line are the text's own (its '\n' and the next lines): the scan may
    // load them, never count them. A line not in the text (the last one, copied by the
    // splitter) is read up to its own end.
    // std::less_equal: a total order even for a pointer into the splitter's own copy.
    const std::less_equal<const char*> at_or_before;
    const char* const readable_end =
        at_or_before(text_begin_, p) && at_or_before(end, text_end_) ? text_end_ : end;
    int64_t* const row = block_.rows.AddRow();
    size_t n = 0;
    while (p < end) {
      if (n == width) return DropRow();
      int64_t value = 0;
      const char* after = ScanNonNegativeInt64(p, end, readable_end, value);
      if (after == nullptr) {
        const char* comma = static_cast<const char*>(std::memchr(p, ',', end - p));
        if (comma == nullptr) return DropRow();
        auto negative = ParseInt<int64_t>(std::string_view(p, comma - p));
        if (!negative || *negative >= 0) return DropRow();
        value = *negative;
        after = comma;
      }
      if (after == end || *after != ',') return DropRow();
      row[n++] = value;
      p = after + 1;
    }
    if (n != width) DropRow();
  }

  void DropRow() {
    block_.rows.DropLastRow();
    ++skipped_;
  }

  void CloseFramestats() {
    in_framestats_ = false;
    header_pending_ = false;
    header_bad_ = false;
    if (block_.columns.empty()) return;  // nothing readable: its lines were already counted
    if (Pending* p = Current()) {
      p->profile.framestats.push_back(std::move(block_));
    } else {
      orphan_blocks_.push_back(std::move(block_));
    }
    block_ = {};
  }

  // Framestats of a process that printed no profile block: nothing to attach them to.
  void DropPending() {
    skipped_ += RowCount(orphan_blocks_);
    orphan_blocks_.clear();
  }

  const char* text_begin_;
  const char* text_end_;
  std::vector<Pending> profiles_;
  std::optional<size_t> current_;  // the profile block being filled, in this process
  std::optional<int64_t> pid_;
  std::optional<std::string> package_;
  std::optional<std::string> description_;
  std::vector<GfxinfoFramestats> orphan_blocks_;
  GfxinfoFramestats block_;
  bool in_framestats_ = false;
  bool header_pending_ = false;
  bool header_bad_ = false;
  bool no_process_ = false;
  uint64_t skipped_ = 0;
};

}  // namespace

std::optional<size_t> GfxinfoFramestats::Column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  return std::nullopt;
}

Result<Gfxinfo> ParseGfxinfo(std::string_view output) {
  GfxinfoReader reader(output);
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
