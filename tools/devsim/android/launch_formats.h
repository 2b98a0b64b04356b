// The text Android prints around an activity launch, per SDK level. Sources (frameworks/base):
//   ActivityManagerShellCommand.runStartActivity   am start -W output
//   ActivityStarter                                START u0 {…} from uid N (tag: see
//   ActivityStartTag) ProcessList.handleProcessStartedLocked         Start proc PID:PROC/UID for
//   TYPE NAME ActivityMetricsLogger.logAppDisplayed          Displayed pkg/.Act: +797ms
#pragma once

#include <string>

namespace droidlab::devsim {

// A component as am's -n takes it, in the two spellings Android prints.
struct Component {
  std::string package;
  std::string class_name;  // full: com.x.MainActivity

  // "com.x/.MainActivity" (ComponentName.flattenToShortString)
  std::string FlattenToShortString() const;
  // "{com.x/com.x.MainActivity}" (ComponentName.toShortString)
  std::string ToShortString() const;
};

// "pkg/.Act" or "pkg/full.Class"; false when there is no '/' or a side is empty.
bool ParseComponent(const std::string& text, Component& out);

enum class LaunchState { kUnknown, kCold, kWarm, kHot };

// "ActivityTaskManager" from Android 10 (SDK 29) on, "ActivityManager" before.
const char* ActivityStartTag(int sdk);

// android.util.TimeUtils.formatDuration as ActivityMetricsLogger uses it: "+797ms", "+1s234ms".
std::string FormatLogDuration(long millis);

// UserHandle.formatUid: 10123 -> "u0a123", 1000 -> "1000".
std::string FormatUid(int uid);

std::string StartLogMessage(int sdk, const Component& component);
std::string StartProcLogMessage(int sdk, int pid, const std::string& process, int uid,
                                const Component& component);
// "Displayed pkg/.Act: +797ms"; " for user 0" after the component from Android 12 (SDK 31).
std::string DisplayedLogMessage(int sdk, const Component& component, long total_ms);
// ActivityMetricsLogger.logAppFullyDrawn: "Fully drawn pkg/.Act: +1s234ms" (no user id).
std::string FullyDrawnLogMessage(int sdk, const Component& component, long total_ms);

struct AmStartResult {
  LaunchState state = LaunchState::kCold;
  bool brought_to_front = false;  // "Warning: Activity not started, its current task …"
  bool delivered_to_top = false;  // already on top: nothing launched, no TotalTime
  long total_ms = 0;
  long wait_ms = 0;
};

// The lines after "Starting: Intent { cmp=… }" for `am start -W`.
std::string AmStartWaitOutput(int sdk, const Component& component, const AmStartResult& result);

}  // namespace droidlab::devsim
