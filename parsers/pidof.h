// Output of `pidof NAME…` (toybox toys/posix/pidof.c; Android 6 and older may lack it): the
// pids of every process whose name matches, separated by one blank, then a newline; nothing at
// all (exit status 1) when none does. A real capture (the simpleperf README's
// `adb shell pidof com.example.simpleperf.simpleperfexamplepurejava`):
//
//   6885
//
// Names match exactly, so "PKG" never matches "PKG:remote"; several pids mean several processes
// of that very name (e.g. one still dying while its successor starts), in the order toybox walks
// /proc. Callers that must know which process a launch started take it from the launch's
// "Start proc" line when they have one.
// Over a pty (adb without shell v2) the newline arrives as "\r\n"; any blank, '\r' or '\n'
// separates pids here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

struct PidofOutput {
  std::vector<int64_t> pids;  // as printed, each > 0

  std::optional<int64_t> first() const {
    return pids.empty() ? std::nullopt : std::optional<int64_t>(pids.front());
  }
};

// Thread-safe (pure function).
// Errors: kEmpty for no pid at all (empty or blank output: no process of that name);
// kMalformed when a word is not a positive decimal pid (an error message printed to stdout,
// e.g. "pidof: not found" from a shell without pidof).
Result<PidofOutput> ParsePidof(std::string_view output);

// The first pid, or nullopt for any error above: what a caller that only wants "the process of
// this name, if any" needs. Thread-safe (pure function).
std::optional<int64_t> FirstPid(std::string_view output);

}  // namespace droidlab::parsers
