// Logprint timestamps read into numbers: LogTime, ParseLogTime, LogTimeToEpochMs. Their own
// header so that launch events (logcat.h) and fault events (logcat_faults.h) share them; the
// definitions are in logcat.cpp, next to the header parsing that cuts the timestamp out.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace droidlab::parsers {

// A logprint timestamp read into numbers, once, by the parser: callers use these and never
// re-read the digits of LaunchEvent::time. Fractions (3, 6 or 9 digits: ms, usec, nsec) are cut
// to whole milliseconds.
//  - "1763891234.567" (`-v epoch`, and `-v monotonic` "  3604.391", which looks the same):
//    kSeconds, `ms` = 1763891234567 — ms since the Unix epoch for epoch, since boot for
//    monotonic; the stream's -v flag says which (the run executor always asks for epoch);
//  - "11-22 10:01:02.345" (threadtime, time, long), "2026-11-22 10:01:02.345" (`-v year`),
//    "11-22 10:01:02.345 +0100" (`-v zone`): kCalendar, the printed wall time, `ms` counting
//    from midnight. Without `-v UTC` the device prints its local time.
struct LogTime {
  enum class Kind { kNone, kSeconds, kCalendar };
  Kind kind = Kind::kNone;  // kNone: no timestamp (raw, brief, …) or not a logprint one
  int64_t ms = 0;           // see above
  int year = 0;             // kCalendar: as printed by `-v year`; 0 when not printed
  int month = 0;            // kCalendar: 1-12
  int day = 0;              // kCalendar: 1-31 (the day is not checked against the month)
  std::optional<int> utc_offset_minutes;  // `-v zone` (" +0100" -> 60, " -0530" -> -330)
  friend bool operator==(const LogTime&, const LogTime&) = default;
};

// A timestamp as ClassifyLine cuts it out of a line (blank padding allowed around it). A kind
// of kNone for anything that is not one of the layouts above, or whose fields are out of range
// (month 13, hour 24, minute 60, second 61, seconds too large for ms in an int64).
LogTime ParseLogTime(std::string_view text);

// ms since the Unix epoch: kSeconds as it is; kCalendar read as UTC (minus its zone offset when
// printed) in its printed year, else in `year` (logcat prints none by default). nullopt for
// kNone and for a date that does not exist (02-30, 02-29 outside a leap year).
std::optional<int64_t> LogTimeToEpochMs(const LogTime& time, int year);

}  // namespace droidlab::parsers
