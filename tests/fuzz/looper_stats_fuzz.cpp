// Drives ParseLooperStats and LooperStatsReader (line by line through LineSplitter, in chunks
// whose size the input picks) over the same bytes and checks that they agree and that every
// entry is sane: the reader's views point into lines kept alive here, counts are never negative,
// a parsed uid only exists with the text it came from.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/line_splitter.h"
#include "parsers/looper_stats.h"

namespace {

using droidlab::parsers::LineSplitter;
using droidlab::parsers::LooperStatsDump;
using droidlab::parsers::LooperStatsEntry;
using droidlab::parsers::LooperStatsReader;
using droidlab::parsers::ParseLooperStats;
using droidlab::parsers::Result;

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckCount(const std::optional<int64_t>& v) { Check(!v || *v >= 0); }

void CheckEntry(const LooperStatsEntry& e, const LooperStatsDump& dump) {
  CheckCount(e.message_count);
  CheckCount(e.recorded_message_count);
  CheckCount(e.total_latency_micros);
  CheckCount(e.max_latency_micros);
  CheckCount(e.total_cpu_micros);
  CheckCount(e.max_cpu_micros);
  CheckCount(e.recorded_delay_message_count);
  CheckCount(e.total_delay_millis);
  CheckCount(e.max_delay_millis);
  CheckCount(e.exception_count);
  Check(e.extra.size() == dump.extra_column_indexes.size());
  if (e.uid) Check(*e.uid >= 0 && *e.uid <= INT32_MAX && !e.work_source_uid.empty());
  if (e.package) {
    Check(e.uid.has_value());
    Check(e.work_source_uid.substr(0, e.package->size()) == *e.package);
  }
  for (std::string_view f : {e.work_source_uid, e.thread_name.value_or(""),
                             e.message_name.value_or(""), e.handler_class.value_or("")}) {
    Check(f.find(',') == std::string_view::npos && f.find('\n') == std::string_view::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<LooperStatsDump> whole = ParseLooperStats(text);

  LooperStatsReader reader;
  LineSplitter splitter(std::max(LineSplitter::kDefaultMaxLineBytes, size));
  std::deque<std::string> lines;  // the reader's entries view these: keep them alive
  size_t produced = 0;
  const size_t chunk = size == 0 ? 1 : 1 + data[0] % 64;
  for (size_t i = 0; i < size; i += chunk) {
    splitter.Feed(text.substr(i, chunk), [&](std::string_view line) {
      lines.emplace_back(line);
      if (reader.AddLine(lines.back())) ++produced;
    });
  }
  splitter.Finish([&](std::string_view line) { reader.AddUnterminatedLastLine(line); });
  Result<LooperStatsDump> streamed = reader.Finish();

  Check(whole.ok() == streamed.ok());
  if (!whole.ok()) {
    Check(whole.error().code == streamed.error().code);
    Check(whole.error().message.find('\n') == std::string::npos);
    return 0;
  }
  Check(whole->entries.size() == streamed->entries.size());
  Check(streamed->entries.size() == produced);
  Check(whole->skipped_lines == streamed->skipped_lines);
  Check(whole->preamble_lines == streamed->preamble_lines);
  Check(whole->columns == streamed->columns);
  Check(whole->start_time == streamed->start_time);
  Check(whole->on_battery_time_ms == streamed->on_battery_time_ms);
  for (size_t i = 0; i < whole->entries.size(); ++i) {
    const LooperStatsEntry& a = whole->entries[i];
    const LooperStatsEntry& b = streamed->entries[i];
    CheckEntry(a, *whole);
    Check(a.work_source_uid == b.work_source_uid && a.uid == b.uid && a.package == b.package);
    Check(a.message_name == b.message_name && a.message_count == b.message_count);
    Check(a.exception_count == b.exception_count && a.extra == b.extra);
    // Views into the input: inside the buffer the fuzzer handed in.
    if (!a.work_source_uid.empty()) {
      Check(a.work_source_uid.data() >= text.data() &&
            a.work_source_uid.data() + a.work_source_uid.size() <= text.data() + text.size());
    }
  }
  return 0;
}
