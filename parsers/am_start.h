// Output of `am start -W` (ActivityManagerShellCommand.runStartActivity; Am.java before
// Android 7), across versions. Android 10 through 16:
//
//   Starting: Intent { cmp=com.pkg/.Main }
//   Status: ok
//   LaunchState: COLD
//   Activity: com.pkg/.Main
//   TotalTime: 797
//   WaitTime: 800
//   Complete
//
// Android 7–9 (ActivityManagerShellCommand) and 5/6 (cmds/am/.../Am.java) print, instead of
// LaunchState, a "ThisTime: N" line between Activity and TotalTime. Android 10 replaced ThisTime
// with LaunchState in the same change (checked in AOSP 10 r33 ActivityManagerShellCommand.java:
// no ThisTime there), so ThisTime and LaunchState never appear together in real output.
// LaunchState is WaitResult.launchStateToString: COLD, WARM, HOT, RELAUNCH, "UNKNOWN (N)".
// With -W, warnings and errors go to stdout ("Error type 3" then "Error: Activity class {…} does
// not exist." for a missing class). A launch that throws (Android 11+: a SecurityException for
// a non-exported activity) prints "Exception occurred while executing 'start':" then the
// exception line and its stack; Android 5/6 print only the exception and stack.
// "Warning: Activity not started, its current task has been brought to the front",
// "Error: Activity class {…} does not exist.", "Status: timeout" are all reported, not errors.
//
// Lines are split on "\n", "\r\n" or "\r\r\n" (LineSplitter). Blank lines and stack-frame
// lines ("\tat …") after an exception line are ignored; other unknown lines are counted in
// skipped_lines. With -R (repeat), each block overwrites the last: the result is the last
// launch's. A number that does not parse leaves its field nullopt and counts the line skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct AmStartResult {
  std::optional<std::string> status;        // "ok", "timeout", "error", … as printed
  std::optional<std::string> launch_state;  // as printed: "COLD", "UNKNOWN (-1)", …
  std::optional<std::string> activity;      // as printed: "com.pkg/.Main"
  std::optional<int64_t> this_time_ms;
  std::optional<int64_t> total_time_ms;
  std::optional<int64_t> wait_time_ms;
  bool complete = false;                    // the closing "Complete" line was seen
  std::optional<std::string> warning;       // text after "Warning: "
  std::optional<std::string> error;         // the "Error…"/exception line(s), whole, '\n'-joined
  std::optional<std::string> intent;        // text after "Starting: ", e.g. "Intent { cmp=… }"
  uint64_t skipped_lines = 0;
};

// Thread-safe (pure function).
// Errors: kEmpty for empty or blank output; kNotThisFormat when the text has none of am's lines
// (Starting/Stopping/Status/LaunchState/Activity/*Time/Complete/Warning/Error/exception).
Result<AmStartResult> ParseAmStart(std::string_view output);

}  // namespace droidlab::parsers
