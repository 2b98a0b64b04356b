#include "tools/devsim/android/launch_formats.h"

namespace droidlab::devsim {

std::string Component::FlattenToShortString() const {
  if (class_name.size() > package.size() && class_name.starts_with(package) &&
      class_name[package.size()] == '.') {
    return package + "/" + class_name.substr(package.size());
  }
  return package + "/" + class_name;
}

std::string Component::ToShortString() const { return "{" + package + "/" + class_name + "}"; }

bool ParseComponent(const std::string& text, Component& out) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= text.size()) return false;
  out.package = text.substr(0, slash);
  out.class_name = text.substr(slash + 1);
  if (out.class_name[0] == '.') out.class_name = out.package + out.class_name;
  return true;
}

const char* ActivityStartTag(int sdk) {
  return sdk >= 29 ? "ActivityTaskManager" : "ActivityManager";
}

std::string FormatLogDuration(long millis) {
  std::string out = "+";
  if (millis < 0) {
    out = "-";
    millis = -millis;
  }
  const long days = millis / 86400000;
  const long hours = millis / 3600000 % 24;
  const long minutes = millis / 60000 % 60;
  const long seconds = millis / 1000 % 60;
  const long ms = millis % 1000;
  // TimeUtils prints each field from the first non-zero one; milliseconds always.
  bool started = false;
  auto field = [&](long value, const char* unit) {
    if (value > 0 || started) {
      out += std::to_string(value) + unit;
      started = true;
    }
  };
  field(days, "d");
  field(hours, "h");
  field(minutes, "m");
  field(seconds, "s");
  out += std::to_string(ms) + "ms";
  return out;
}

std::string FormatUid(int uid) {
  if (uid < 10000) return std::to_string(uid);
  const int user = uid / 100000;
  const int app_id = uid % 100000;
  // Appended piece by piece: `"u" + std::to_string(…)` trips g++ 12's false -Wrestrict at -O3.
  std::string out = "u";
  out += std::to_string(user);
  out += app_id >= 10000 ? 'a' : 's';
  out += std::to_string(app_id >= 10000 ? app_id - 10000 : app_id);
  return out;
}

std::string StartLogMessage(int /*sdk*/, const Component& component) {
  // am start adds FLAG_ACTIVITY_NEW_TASK (0x10000000) after printing "Starting:".
  return "START u0 {flg=0x10000000 cmp=" + component.FlattenToShortString() + "} from uid 2000";
}

std::string StartProcLogMessage(int sdk, int pid, const std::string& process, int uid,
                                const Component& component) {
  std::string message =
      "Start proc " + std::to_string(pid) + ":" + process + "/" + FormatUid(uid) + " for ";
  if (sdk <= 28) return message + "activity " + component.FlattenToShortString();
  // From Android 10 the hosting name is ComponentName.toShortString(); the hosting type grew
  // "top-activity" (11) and "pre-top-activity" (12, process started by ActivityStarter early).
  if (sdk == 29) return message + "activity " + component.ToShortString();
  if (sdk == 30) return message + "top-activity " + component.ToShortString();
  return message + "pre-top-activity " + component.ToShortString();
}

std::string DisplayedLogMessage(int sdk, const Component& component, long total_ms) {
  std::string message = "Displayed " + component.FlattenToShortString();
  // Android 12 added the user id (real Android 12-14 lines: "… for user 0: +1s71ms").
  if (sdk >= 31) message += " for user 0";
  return message + ": " + FormatLogDuration(total_ms);
}

std::string FullyDrawnLogMessage(int /*sdk*/, const Component& component, long total_ms) {
  return "Fully drawn " + component.FlattenToShortString() + ": " + FormatLogDuration(total_ms);
}

std::string AmStartWaitOutput(int sdk, const Component& component, const AmStartResult& result) {
  std::string out;
  if (result.brought_to_front) {
    out += "Warning: Activity not started, its current task has been brought to the front\n";
  } else if (result.delivered_to_top) {
    out +=
        "Warning: Activity not started, intent has been delivered to currently running "
        "top-most instance.\n";
  }
  out += "Status: ok\n";
  if (sdk >= 29) {
    // WaitResult.launchStateToString
    switch (result.state) {
      case LaunchState::kCold:
        out += "LaunchState: COLD\n";
        break;
      case LaunchState::kWarm:
        out += "LaunchState: WARM\n";
        break;
      case LaunchState::kHot:
        out += "LaunchState: HOT\n";
        break;
      case LaunchState::kUnknown:
        out += "LaunchState: UNKNOWN (0)\n";
        break;
    }
  }
  out += "Activity: " + component.FlattenToShortString() + "\n";
  if (!result.delivered_to_top) {
    if (sdk <= 28) out += "ThisTime: " + std::to_string(result.total_ms) + "\n";
    out += "TotalTime: " + std::to_string(result.total_ms) + "\n";
  }
  out += "WaitTime: " + std::to_string(result.wait_ms) + "\n";
  out += "Complete\n";
  return out;
}

}  // namespace droidlab::devsim
