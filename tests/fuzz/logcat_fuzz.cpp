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
