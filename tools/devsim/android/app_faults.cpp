#include "tools/devsim/android/app_faults.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tools/devsim/android/device_state.h"
#include "tools/devsim/android/launch_formats.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

bool Listed(const std::vector<int>& launches, int launch) {
  return std::find(launches.begin(), launches.end(), launch) != launches.end();
}

// RuntimeInit.LoggingHandler: "FATAL EXCEPTION: main", "Process: NAME, PID: N" and the
// exception's stack trace, one log line each, to the crash buffer (Clog_e). The exception is
// devsim's: an IllegalStateException thrown from the activity's onResume.
void Crash(DeviceState& device, App& app, int launch, std::chrono::system_clock::time_point at) {
  const int sdk = device.scenario.device.sdk;
  const int pid = app.pid;
  Component component;
  ParseComponent(app.spec.name + "/" + app.spec.activity, component);
  const std::string simple_class = component.class_name.substr(component.class_name.rfind('.') + 1);
  const std::string message = "devsim crash_on_launch " + std::to_string(launch);
  const std::vector<std::string> lines = {
      "FATAL EXCEPTION: main",
      "Process: " + app.spec.name + ", PID: " + std::to_string(pid),
      "java.lang.IllegalStateException: " + message,
      "\tat " + component.class_name + ".onResume(" + simple_class + ".java:42)",
      "\tat android.app.Instrumentation.callActivityOnResume(Instrumentation.java:1456)",
      "\tat android.app.Activity.performResume(Activity.java:8135)",
      "\tat android.app.ActivityThread.performResumeActivity(ActivityThread.java:4434)",
      "\tat android.os.Handler.dispatchMessage(Handler.java:106)",
      "\tat android.os.Looper.loop(Looper.java:223)",
      "\tat android.app.ActivityThread.main(ActivityThread.java:7656)",
      "\tat java.lang.reflect.Method.invoke(Native Method)",
      "\tat com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run(RuntimeInit.java:592)",
      "\tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:947)"};
  for (const std::string& line : lines) {
    device.Log(at, pid, pid, 'E', "AndroidRuntime", line, LogBufferId::kCrash);
  }
  // EventLogTags.logtags 30039 am_crash (User, PID, Process Name, Flags, Exception, Message,
  // File, Line), and Recoverable after them in newer releases (devsim: from 12).
  const int system_server = device.system_server_pid;
  std::string event = "[0," + std::to_string(pid) + "," + app.spec.name +
                      ",952745542,java.lang.IllegalStateException," + message + "," + simple_class +
                      ".java,42";
  if (sdk >= 31) event += ",0";
  device.Log(at + milliseconds(2), system_server, system_server + 31, 'I', "am_crash", event + "]",
             LogBufferId::kEvents);
  device.Log(at + milliseconds(3), system_server, system_server + 31, 'W', "ActivityManager",
             "  Force finishing activity " + component.FlattenToShortString(),
             LogBufferId::kSystem);
  // Process.killProcess: the process is gone at once (also for a dump made before `at`).
  device.ForceStop(app);
}

// ProcessErrorStateRecord.appNotResponding (AppErrors before 10): "ANR in PROCESS (ACTIVITY)",
// "PID: N", "Reason: …" in one Slog.e, and 30008 am_anr (User, pid, Package Name, Flags,
// reason). The input dispatcher gives up 5 s after the launch was shown. The process lives on.
// devsim logs the ANR even if the process was stopped before then, which a phone would not (the
// input dispatcher's wait ends with the window); it stands in for the ANR whose "ANR in" lines
// come late because ActivityManager first dumps the stack traces (AnrHelper, seconds on a busy
// phone), so that a run's iteration may end, and the next begin, before they are logged.
void Anr(DeviceState& device, App& app, std::chrono::system_clock::time_point shown_at) {
  const int sdk = device.scenario.device.sdk;
  Component component;
  ParseComponent(app.spec.name + "/" + app.spec.activity, component);
  // InputDispatcher's reason for an app whose window never took focus: the words of 9–11 and
  // the shorter ones of 12+.
  const std::string reason =
      sdk >= 31 ? "Input dispatching timed out (Application does not have a focused window)"
                : "Input dispatching timed out (" + component.package + "/" + component.class_name +
                      ", Waiting because no window has focus but there is a focused application "
                      "that may eventually add a window when it finishes starting up.)";
  const auto at = shown_at + milliseconds(5000);
  const int system_server = device.system_server_pid;
  const int tid = system_server + 24;
  for (const std::string& line :
       {"ANR in " + app.spec.name + " (" + component.FlattenToShortString() + ")",
        "PID: " + std::to_string(app.pid), "Reason: " + reason,
        std::string("Load: 0.92 / 0.77 / 0.65")}) {
    device.Log(at, system_server, tid, 'E', "ActivityManager", line, LogBufferId::kSystem);
  }
  device.Log(at, system_server, tid, 'I', "am_anr",
             "[0," + std::to_string(app.pid) + "," + app.spec.name + ",952745542," + reason + "]",
             LogBufferId::kEvents);
}

}  // namespace

void ApplyLaunchFaults(DeviceState& device, App& app, int launch,
                       std::chrono::system_clock::time_point shown_at) {
  if (app.pid == 0) return;
  if (Listed(app.spec.anr_on_launch, launch)) Anr(device, app, shown_at);
  if (Listed(app.spec.crash_on_launch, launch))
    Crash(device, app, launch, shown_at + milliseconds(5));
}

}  // namespace droidlab::devsim
