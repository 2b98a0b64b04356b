// The two device clocks a launch's phases need, as printed by the shell.
//
// `date +%s.%N` (toybox toys/posix/date.c: %s is seconds since the Unix epoch, %N the
// nanoseconds, nine digits — toybox expands %N itself, as strftime has no such conversion):
//
//   1763891234.123456789
//
// A date without %N (Android 6's toolbox date, busybox builds) prints "1763891234.%N" or
// "1763891234.N": refused, since a date without its fraction is ±1 s off.
//
// `cat /proc/uptime; date +%s.%N` as ONE shell command reads CLOCK_BOOTTIME (fs/proc/uptime.c,
// see proc_stat.h) and CLOCK_REALTIME back to back, ~1 ms apart, so their difference is the
// realtime at boot: logcat `-v epoch` times minus it land on the clock of /proc/PID/stat's
// starttime. The sample (tests/data/boot_clock/) joins a real /proc/uptime line to a date line:
//
//   82044.14 215440.94
//   1763891234.123456789
#pragma once

#include <cstdint>
#include <string_view>

#include "parsers/proc_stat.h"
#include "parsers/result.h"

namespace droidlab::parsers {

struct DateEpoch {
  int64_t seconds = 0;      // since 1970-01-01 00:00:00 UTC
  int64_t nanoseconds = 0;  // 0 … 999'999'999, from the %N digits (fewer digits: scaled)

  int64_t milliseconds() const { return seconds * 1000 + nanoseconds / 1'000'000; }
};

// One line "SECONDS.FRACTION" with 3 to 9 fraction digits ("\r\n", trailing blanks allowed).
// Thread-safe (pure function).
// Errors: kEmpty for empty output; kMalformed otherwise (no fraction, "%N" unexpanded, a
// negative or overlong number, more than one line).
Result<DateEpoch> ParseDateEpoch(std::string_view output);

struct UptimeAndDate {
  ProcUptime uptime;
  DateEpoch date;

  // Realtime − boot time, in ms: a realtime (epoch) instant minus this is ms since boot.
  int64_t RealtimeAtBootMs() const { return date.milliseconds() - uptime.uptime_cs * 10; }
};

// The output of `cat /proc/uptime; date +%s.%N`: the /proc/uptime line, then the date line.
// Thread-safe (pure function).
// Errors: kEmpty for empty output; kMalformed when either line is missing or unreadable (the
// message says which).
Result<UptimeAndDate> ParseUptimeThenDate(std::string_view output);

}  // namespace droidlab::parsers
