// Launch events from logcat text, in every `logcat -v` format a lab will meet.
//
// Formats (system/logging/liblog/logprint.cpp, android_log_formatLogLine): threadtime (the
// default), brief, process, tag, time, long (a header line "[ time pid:tid L/tag ]", then the
// message lines, then a blank line), raw; with the modifiers epoch, monotonic, year, uid, usec,
// UTC / zone. "--------- beginning of main" separator lines are recognised and are not skipped.
//
// Launch lines (tags ActivityTaskManager on Android 10+, ActivityManager before; lookalikes under
// other tags are not launches):
//   threadtime, Android 13 (ActivityMetricsLogger.logAppDisplayed, TimeUtils.formatDuration):
//   "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main for user 0: +797ms"
//   "... I ActivityTaskManager: Fully drawn com.pkg/.Main: +1s234ms"
//   "... I ActivityTaskManager: START u0 {act=android.intent.action.MAIN flg=0x10000000 cmp=com.pkg/.Main} from uid 2000"
//   "... I ActivityManager: Start proc 4321:com.pkg/u0a123 for pre-top-activity {com.pkg/com.pkg.Main}"
//   Android 4.4-era: "I/ActivityManager(  512): Displayed com.pkg/.Main: +1s023ms (total +1s100ms)"
//
// Thread-safety: a LogcatReader is one stream's state; use one per stream, from one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

enum class LaunchEventKind {
  kDisplayed,      // "Displayed pkg/.Act: +797ms"
  kFullyDrawn,     // "Fully drawn pkg/.Act: +1s234ms"
  kActivityStart,  // "START u0 {... cmp=pkg/.Act ...} from uid N"
  kProcessStart,   // "Start proc PID:pkg/uid for activity {...}" and its older forms
};

// Returns "displayed", "fully_drawn", "activity_start" or "process_start".
std::string_view LaunchEventKindName(LaunchEventKind kind);

// One launch line. Strings are owned copies (launch lines are rare; the stream buffer is not kept).
// Fields a line does not carry stay empty / nullopt.
struct LaunchEvent {
  LaunchEventKind kind = LaunchEventKind::kDisplayed;
  std::string time;                  // the timestamp exactly as printed ("11-22 10:01:02.345"), or ""
  std::optional<int64_t> pid;        // logging process (system_server)
  std::optional<int64_t> tid;
  std::string tag;                   // "ActivityTaskManager", "ActivityManager", or "" (raw format)
  std::string component;             // as printed: "com.pkg/.Main"
  std::string package;               // "com.pkg"
  std::string activity;              // full class name: "com.pkg.Main"
  std::optional<int64_t> duration_ms;   // Displayed / Fully drawn value
  std::optional<int64_t> total_ms;      // the old "(total +…)" value
  std::optional<int64_t> process_pid;   // Start proc: pid of the new process
  std::optional<int64_t> uid;           // Start proc: app uid (u0a123 -> 10123); START: "from uid"
  std::optional<int64_t> user_id;       // "START u0", "for user 0"
  std::string reason;                   // Start proc: "activity", "pre-top-activity", "top-activity", …
};

// Parses one logcat line that stands alone (every format but `long`). Returns:
//  - an event for a launch line,
//  - std::nullopt for a well-formed logcat line that is not a launch (noise, separators),
//  - a ParseError for a line that is not logcat at all (counted as skipped by LogcatReader).
Result<std::optional<LaunchEvent>> ParseLogcatLine(std::string_view line);

// TimeUtils.formatDuration as printed after '+': "797ms", "1s23ms", "1m2s3ms", "0ms".
// Returns milliseconds, or nullopt if `text` is not such a duration.
std::optional<int64_t> ParseFormattedDuration(std::string_view text);

// Stream reader: feed lines (without their terminators, e.g. from LineSplitter), collect events,
// count lines it could not read. Handles the multi-line `long` format.
class LogcatReader {
 public:
  // Appends the events `line` completes to `out`.
  void AddLine(std::string_view line, std::vector<LaunchEvent>& out);
  // Call at end of stream: completes a pending `long`-format entry.
  void Finish(std::vector<LaunchEvent>& out);

  uint64_t lines() const { return lines_; }
  uint64_t skipped_lines() const { return skipped_lines_; }

 private:
  uint64_t lines_ = 0;
  uint64_t skipped_lines_ = 0;
  // `long` format state: the header of the entry whose message lines follow.
  bool in_long_entry_ = false;
  std::string long_time_;
  std::optional<int64_t> long_pid_, long_tid_;
  std::string long_tag_;
  std::string long_message_;  // first message line only: launch lines are single-line
  bool long_have_message_ = false;
};

}  // namespace droidlab::parsers
