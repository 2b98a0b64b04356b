// libFuzzer target for the logcat launch-event parser. The input is fed as a stream, cut into
// chunks at a point the input chooses, through LineSplitter into LogcatReader (default and raw
// modes), and each line also goes to ParseLogcatLine; ParseFormattedDuration and ParseFormattedUid
// get the whole input, as does ParseLogTime. Invariants: durations and uids are not negative,
// skipped_lines <= lines, an error has a message, Displayed/Fully drawn events carry a duration and
// a package, the reader agrees with ParseLogcatLine on single-line formats, lines() equals the
// splitter's count, an event's log_time is ParseLogTime of its time text, and a LogTime's fields
// are in range. A third reader also collects app faults: its launch events and counts equal the
// plain reader's (faults never change what launches are found), a fault's stack is bounded, its
// duration is not negative, its package is its process name's head, and its log_time is its time.
// A fourth reader takes the same chunks whole (LogcatReader::AddChunk, what `droidlab parse
// logcat` runs, its own splitter): its launches and faults, in the order its callback sees them,
// are those of a fault reader fed line by line the lines the splitter did not cut, and its
// skipped lines are that reader's plus the cut ones.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "parsers/android_uid.h"
#include "parsers/line_splitter.h"
#include "parsers/logcat.h"

using droidlab::parsers::FaultAssembler;
using droidlab::parsers::FaultEvent;
using droidlab::parsers::FaultKind;
using droidlab::parsers::LaunchEvent;
using droidlab::parsers::LaunchEventKind;
using droidlab::parsers::LineSplitter;
using droidlab::parsers::LogcatReader;
using droidlab::parsers::LogcatStreamFormat;
using droidlab::parsers::ParseFormattedDuration;
using droidlab::parsers::ParseFormattedUid;
using droidlab::parsers::ParseLogcatLine;

namespace {

void CheckEvent(const LaunchEvent& ev) {
  if (ev.duration_ms && *ev.duration_ms < 0) std::abort();
  if (ev.total_ms && *ev.total_ms < 0) std::abort();
  if (ev.uid && *ev.uid < 0) std::abort();
  if (ev.process_pid && *ev.process_pid < 0) std::abort();
  if (ev.kind == LaunchEventKind::kDisplayed || ev.kind == LaunchEventKind::kFullyDrawn) {
    if (!ev.duration_ms || ev.package.empty() || ev.component.empty()) std::abort();
  }
  if (ev.kind == LaunchEventKind::kProcessStart && (!ev.process_pid || !ev.uid)) std::abort();
  if (!ev.activity.empty() && ev.package.empty()) std::abort();
  // The number is the text's: read again, it is the same; no time text, no number.
  if (!(ev.log_time == droidlab::parsers::ParseLogTime(ev.time))) std::abort();
  if (ev.time.empty() && ev.log_time.kind != droidlab::parsers::LogTime::Kind::kNone) std::abort();
}

void CheckFault(const FaultEvent& f) {
  if (f.duration_ms && *f.duration_ms < 0) std::abort();
  const bool slow = f.kind == FaultKind::kSlowDispatch || f.kind == FaultKind::kSlowDelivery;
  if (slow != f.duration_ms.has_value()) std::abort();
  if (f.stack.size() > FaultAssembler::kMaxStackLines) std::abort();
  if (!f.stack.empty() && f.kind != FaultKind::kCrash) std::abort();
  if (!f.package.empty() && !f.process_name.starts_with(f.package)) std::abort();
  if (!(f.log_time == droidlab::parsers::ParseLogTime(f.time))) std::abort();
  if (f.tag.empty()) std::abort();  // faults need a header
}

// LogTime's ranges, for any text.
void CheckLogTime(std::string_view text) {
  using droidlab::parsers::LogTime;
  const LogTime t = droidlab::parsers::ParseLogTime(text);
  if (t.kind == LogTime::Kind::kNone) return;
  if (t.ms < 0) std::abort();
  if (t.kind == LogTime::Kind::kCalendar) {
    if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) std::abort();
    if (t.ms >= 86'401'000) std::abort();  // 23:59:60.999 at most
    (void)droidlab::parsers::LogTimeToEpochMs(t, 2026);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t chunk = size == 0 ? 1 : 1 + data[0] % 64;

  LineSplitter splitter(4096);
  LogcatReader reader;
  LogcatReader raw_reader(LogcatStreamFormat::kRaw);
  LogcatReader fault_reader;
  std::vector<LaunchEvent> fault_launches;
  std::vector<FaultEvent> faults;
  std::vector<LaunchEvent> events;
  std::vector<LaunchEvent> raw_events;
  std::vector<LaunchEvent> one;
  auto sink = [&](std::string_view line) {
    auto r = ParseLogcatLine(line);
    if (!r.ok() && r.error().message.empty()) std::abort();
    if (r.ok() && r->has_value()) CheckEvent(**r);
    // Outside a `long` entry the reader and the line parser agree on what a line yields.
    LogcatReader single;
    one.clear();
    single.AddLine(line, one);
    single.Finish(one);
    if (single.skipped_lines() != (r.ok() ? 0u : 1u)) std::abort();
    if (one.size() > 1) std::abort();
    if (r.ok() && r->has_value() != (one.size() == 1)) std::abort();
    if (!r.ok() && !one.empty()) std::abort();
    reader.AddLine(line, events);
    raw_reader.AddLine(line, raw_events);
    fault_reader.AddLine(line, fault_launches, faults);
  };
  for (size_t i = 0; i < input.size(); i += chunk) splitter.Feed(input.substr(i, chunk), sink);
  splitter.Finish(sink);

  // AddChunk against AddLine of the uncut lines (as `droidlab parse logcat` read before it).
  LineSplitter chunk_splitter(4096);
  LineSplitter line_splitter(4096);
  LogcatReader chunk_reader;
  LogcatReader line_reader;
  std::vector<LaunchEvent> chunk_launches, line_launches, taken_launches, kept_launches;
  std::vector<FaultEvent> chunk_faults, line_faults, taken_faults, kept_faults;
  auto take = [&] {
    for (auto& e : chunk_launches) taken_launches.push_back(std::move(e));
    for (auto& f : chunk_faults) taken_faults.push_back(std::move(f));
    chunk_launches.clear();
    chunk_faults.clear();
  };
  uint64_t cut_seen = 0;
  auto line_sink = [&](std::string_view line) {
    if (line_splitter.overlong_lines() != cut_seen) {
      cut_seen = line_splitter.overlong_lines();
      return;
    }
    line_reader.AddLine(line, line_launches, line_faults);
    for (auto& e : line_launches) kept_launches.push_back(std::move(e));
    for (auto& f : line_faults) kept_faults.push_back(std::move(f));
    line_launches.clear();
    line_faults.clear();
  };
  for (size_t i = 0; i < input.size(); i += chunk) {
    chunk_reader.AddChunk(chunk_splitter, input.substr(i, chunk), chunk_launches, chunk_faults,
                          take);
    line_splitter.Feed(input.substr(i, chunk), line_sink);
    // Each callback took what its line added: nothing waits between lines.
    if (!chunk_launches.empty() || !chunk_faults.empty()) std::abort();
  }
  chunk_reader.FinishChunks(chunk_splitter, chunk_launches, chunk_faults, take);
  line_splitter.Finish(line_sink);
  chunk_reader.Finish(chunk_launches, chunk_faults);
  take();
  line_reader.Finish(line_launches, line_faults);
  for (auto& e : line_launches) kept_launches.push_back(std::move(e));
  for (auto& f : line_faults) kept_faults.push_back(std::move(f));
  const uint64_t cut = line_splitter.overlong_lines();
  if (chunk_reader.skipped_lines() != line_reader.skipped_lines() + cut) std::abort();
  if (taken_launches.size() != kept_launches.size() || taken_faults.size() != kept_faults.size()) {
    std::abort();
  }
  for (size_t i = 0; i < taken_launches.size(); ++i) {
    if (taken_launches[i].kind != kept_launches[i].kind ||
        taken_launches[i].time != kept_launches[i].time ||
        taken_launches[i].component != kept_launches[i].component ||
        taken_launches[i].duration_ms != kept_launches[i].duration_ms) {
      std::abort();
    }
  }
  for (size_t i = 0; i < taken_faults.size(); ++i) {
    const FaultEvent& a = taken_faults[i];
    const FaultEvent& b = kept_faults[i];
    if (a.kind != b.kind || a.time != b.time || a.pid != b.pid || a.reason != b.reason) {
      std::abort();
    }
  }
  reader.Finish(events);
  raw_reader.Finish(raw_events);
  fault_reader.Finish(fault_launches, faults);

  if (reader.lines() != splitter.lines() || raw_reader.lines() != splitter.lines()) std::abort();
  if (reader.skipped_lines() > reader.lines()) std::abort();
  if (raw_reader.skipped_lines() > raw_reader.lines()) std::abort();
  if (events.size() > reader.lines() || raw_events.size() > raw_reader.lines()) std::abort();
  for (const auto& ev : events) CheckEvent(ev);
  for (const auto& ev : raw_events) CheckEvent(ev);
  if (fault_reader.lines() != reader.lines()) std::abort();
  if (fault_reader.skipped_lines() != reader.skipped_lines()) std::abort();
  if (fault_launches.size() != events.size()) std::abort();
  for (size_t i = 0; i < events.size(); ++i) {
    if (fault_launches[i].component != events[i].component) std::abort();
    if (fault_launches[i].time != events[i].time) std::abort();
  }
  if (faults.size() > fault_reader.lines()) std::abort();
  for (const auto& f : faults) CheckFault(f);

  if (auto d = ParseFormattedDuration(input); d && *d < 0) std::abort();
  CheckLogTime(input);
  if (auto u = ParseFormattedUid(input); u && *u < 0) std::abort();
  return 0;
}
