// Output of `am start -W` (ActivityManagerShellCommand.runStartActivity; Am.java before
// Android 7), across versions. Android 13:
//
//   Starting: Intent { cmp=com.pkg/.Main }
//   Status: ok
//   LaunchState: COLD
//   Activity: com.pkg/.Main
//   TotalTime: 797
//   WaitTime: 800
//   Complete
//
// ThisTime appears before Android 10 and is gone on Android 16; LaunchState from Android 10.
// "Warning: Activity not started, its current task has been brought to the front",
// "Error: Activity class {…} does not exist.", "Status: timeout" are all reported, not errors.
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
  std::optional<std::string> error;         // text of the "Error…" line(s)
  uint64_t skipped_lines = 0;
};

// Errors: kNotThisFormat when the text has none of am's lines (Starting/Status/Error/Warning/…).
Result<AmStartResult> ParseAmStart(std::string_view output);

}  // namespace droidlab::parsers
