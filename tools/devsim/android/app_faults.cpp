#include "tools/devsim/android/app_faults.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
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

// A SIGSEGV at address 0 on the app's main thread. bionic's debuggerd handler logs one line in
// the process itself (libc, F: "Fatal signal %d (%s), code %d (%s%s)%s in tid %d (%s), pid %d
// (%s)"), then crash_dump — a process of its own — logs the tombstone's head under DEBUG at level
// F to the crash buffer: up to Android 11 libdebuggerd/tombstone.cpp (Android 10's:
// dump_header_info, dump_timestamp, dump_thread_info, dump_signal_info with the address by "%p",
// dump_probable_cause), from 12 libdebuggerd/tombstone_proto_to_text.cpp (the same lines, and
// "Process uptime", "Cmdline" and "uid" added, the address as 0x%016), then the registers and
// the backtrace (a few of their lines here). Android 9 is printed as 10 without "Timestamp:"
// (not checked against 9's source). The process is gone.
std::string TombstoneTime(std::chrono::system_clock::time_point at, bool nanoseconds) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[64];
  std::strftime(text, sizeof(text), "%F %T", &tm);
  std::string out = text;
  if (nanoseconds) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch() %
                                                                         std::chrono::seconds(1))
                        .count();
    char fraction[16];
    std::snprintf(fraction, sizeof(fraction), ".%09lld", static_cast<long long>(ns));
    out += fraction;
  }
  return out + "+0000";
}

void NativeCrash(DeviceState& device, App& app, std::chrono::system_clock::time_point at) {
  const int sdk = device.scenario.device.sdk;
  const int pid = app.pid;
  // The kernel's comm: the last 15 bytes of the process name.
  const std::string comm =
      app.spec.name.size() > 15 ? app.spec.name.substr(app.spec.name.size() - 15) : app.spec.name;
  device.Log(at, pid, pid, 'F', "libc",
             "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid " +
                 std::to_string(pid) + " (" + comm + "), pid " + std::to_string(pid) + " (" +
                 app.spec.name + ")",
             LogBufferId::kCrash);
  const int crash_dump = device.next_pid++;
  std::vector<std::string> lines = {
      "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
      "Build fingerprint: '" + device.scenario.device.fingerprint + "'", "Revision: '0'",
      "ABI: 'arm64'"};
  // dump_timestamp: strftime "%F %T%z"; 12+ keeps the nanoseconds (devsim's clock is UTC).
  if (sdk >= 29) lines.push_back("Timestamp: " + TombstoneTime(at, sdk >= 31));
  if (sdk >= 31) {
    lines.push_back("Process uptime: 1s");
    lines.push_back("Cmdline: " + app.spec.name);
  }
  lines.push_back("pid: " + std::to_string(pid) + ", tid: " + std::to_string(pid) +
                  ", name: " + comm + "  >>> " + app.spec.name + " <<<");
  if (sdk >= 31) lines.push_back("uid: " + std::to_string(app.spec.uid));
  lines.push_back(std::string("signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr ") +
                  (sdk >= 31 ? "0x0000000000000000" : "0x0"));
  lines.push_back("Cause: null pointer dereference");
  lines.push_back(
      "    x0  0000000000000000  x1  0000007fc1b2e4a8  x2  0000000000000000  x3  0000000000000001");
  lines.push_back("backtrace:");
  lines.push_back("      #00 pc 0000000000001a2c  /data/app/" + app.spec.name +
                  "/lib/arm64/libdevsim.so (devsim_crash+12)");
  lines.push_back(
      "      #01 pc 00000000000d4f10  /apex/com.android.art/lib64/libart.so "
      "(art_quick_generic_jni_trampoline+144)");
  const auto dumped = at + milliseconds(40);  // crash_dump attaches and unwinds first
  for (const std::string& line : lines) {
    device.Log(dumped, crash_dump, crash_dump, 'F', "DEBUG", line, LogBufferId::kCrash);
  }
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
  if (app.pid != 0 && Listed(app.spec.native_crash_on_launch, launch)) {
    NativeCrash(device, app, shown_at + milliseconds(5));
  }
}

}  // namespace droidlab::devsim
