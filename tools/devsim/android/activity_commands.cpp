// ActivityManager's shell command: `am start` (cold, warm and hot launches with the log lines
// and looper messages they cause) and `am force-stop`; also reached as `cmd activity`.
#include <algorithm>
#include <cmath>

#include "tools/devsim/android/app_faults.h"
#include "tools/devsim/android/slow_messages.h"
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/compilation.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

// The looper messages a launch causes in system_server, attributed to the app's uid: window
// manager work, a frame per 16 ms of launch, ActivityManager messages (more for a cold start).
void LooperForLaunch(DeviceState& device, const App& app, LaunchState state, long total_ms) {
  if (!device.looper.Collecting(device.Charging())) return;
  const int uid = app.spec.uid;
  const long frames = std::max(1L, total_ms / 16);
  device.DispatchLooper(
      {uid, "android.display", "com.android.server.wm.WindowManagerService$H", "0x29"}, 3, 2300);
  device.DispatchLooper({uid, "android.anim", "android.view.Choreographer$FrameHandler",
                         "android.view.Choreographer$FrameDisplayEventReceiver"},
                        frames, 1500);
  device.DispatchLooper(
      {uid, "ActivityManager", "com.android.server.am.ActivityManagerService$MainHandler", "0x3e"},
      state == LaunchState::kCold ? 4 : 1, 900);
  if (state == LaunchState::kCold) {
    device.DispatchLooper({uid, "ActivityManager",
                           "com.android.server.am.ActivityManagerService$MainHandler", "0x14"},
                          1, 3200);
  }
}

CommandOutput RunAmStart(DeviceState& device, const Argv& argv) {
  bool wait = false;
  bool stop_first = false;
  std::string component_text;
  for (std::size_t i = 2; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-W") {
      wait = true;
    } else if (arg == "-S") {
      stop_first = true;
    } else if (arg == "-n" && i + 1 < argv.size()) {
      component_text = argv[++i];
    } else if ((arg == "--user" || arg == "-a" || arg == "-c" || arg == "-d" || arg == "-f" ||
                arg == "--display") &&
               i + 1 < argv.size()) {
      ++i;  // accepted, not simulated
    }
  }
  Component component;
  if (!ParseComponent(component_text, component)) {
    return Error("Error: Activity not started, unable to resolve Intent\n", 255);
  }
  CommandOutput output;
  output.Out("Starting: Intent { cmp=" + component.FlattenToShortString() + " }\n");
  App* app = device.FindApp(component.package);
  Component declared;
  if (app != nullptr) ParseComponent(app->spec.name + "/" + app->spec.activity, declared);
  if (app == nullptr || declared.class_name != component.class_name) {
    output.Out("Error type 3\n");
    output.Err("Error: Activity class " + component.ToShortString() + " does not exist.\n");
    return output;
  }
  if (stop_first) device.ForceStop(*app);

  const int sdk = device.scenario.device.sdk;
  const int system_server = device.system_server_pid;
  const auto t0 = device.Now();
  const int binder_tid = system_server + 40 + static_cast<int>(device.rng() % 60);
  const char* tag = ActivityStartTag(sdk);
  device.Log(t0 + milliseconds(1), system_server, binder_tid, 'I', tag,
             StartLogMessage(sdk, component), LogBufferId::kSystem);

  AmStartResult result;
  if (app->pid == 0) {
    result.state = LaunchState::kCold;
    result.total_ms = device.SampleMillis(app->spec.cold);
    // Compiled code starts fastest (compilation.h); background dexopt may have run by now.
    RunBackgroundDexoptIfDue(device, *app);
    result.total_ms = std::lround(static_cast<double>(result.total_ms) *
                                  ColdLaunchFactor(app->spec.compiler_filter));
    // A hot phone launches slower; and each cold start warms it (HeatSpec).
    const double over_c = device.battery.temperature / 10.0 - 38.0;
    if (over_c > 0 && device.scenario.heat.slowdown_pct_per_c > 0) {
      result.total_ms = std::lround(static_cast<double>(result.total_ms) *
                                    (1 + device.scenario.heat.slowdown_pct_per_c / 100 * over_c));
    }
    device.AddHeat(device.scenario.heat.per_cold_launch_c);
    const auto fork_time = t0 + milliseconds(12 + static_cast<long>(device.rng() % 10));
    const long fork_ticks = std::lround(
        (device.UptimeSeconds() + std::chrono::duration<double>(fork_time - t0).count()) *
        kTicksPerSecond);
    app->pid = device.StartProcess(app->spec.name, app->spec.uid, device.zygote_pid, fork_ticks);
    StartFrameStats(app->frames, device.MonotonicNs());
    ReadSlowMessageThreshold(device, *app);
    app->launches_in_process = 0;
    device.Log(fork_time, system_server, system_server + 27, 'I', "ActivityManager",
               StartProcLogMessage(sdk, app->pid, app->spec.name, app->spec.uid, component),
               LogBufferId::kSystem);
  } else if (app->activity == ActivityState::kForeground) {
    result.state = LaunchState::kUnknown;
    result.delivered_to_top = true;
  } else if (app->activity == ActivityState::kBackground) {
    result.state = LaunchState::kHot;
    result.brought_to_front = true;
    result.total_ms = device.SampleMillis(app->spec.hot);
  } else {
    result.state = LaunchState::kWarm;
    result.total_ms = device.SampleMillis(app->spec.warm);
  }
  if (const auto factor = app->spec.launch_factor_by_version_code.find(app->spec.version_code);
      factor != app->spec.launch_factor_by_version_code.end() && !result.delivered_to_top) {
    result.total_ms = std::lround(static_cast<double>(result.total_ms) * factor->second);
  }
  result.wait_ms = result.total_ms + 3 + static_cast<long>(device.rng() % 12);
  if (!result.delivered_to_top) {
    // ActivityMetricsLogger counts from the intent's arrival, which the START line marks.
    device.Log(t0 + milliseconds(1 + result.total_ms), system_server, system_server + 31, 'I', tag,
               DisplayedLogMessage(sdk, component, result.total_ms), LogBufferId::kSystem);
    if (app->spec.reports_fully_drawn) {
      // reportFullyDrawn comes after the first frame; ActivityMetricsLogger.logAppFullyDrawn.
      const long fully_ms =
          std::max(result.total_ms + 1, device.SampleMillis(app->spec.fully_drawn));
      device.Log(t0 + milliseconds(1 + fully_ms), system_server, system_server + 31, 'I', tag,
                 FullyDrawnLogMessage(sdk, component, fully_ms), LogBufferId::kSystem);
    }
    LooperForLaunch(device, *app, result.state, result.total_ms);
    // The launched activity draws its first frames (FrameSpec::per_launch), the first with a
    // new window layout.
    ++app->launches_in_process;
    RenderFrames(app->frames, app->spec.frames, app->spec.frames.per_launch, device.MonotonicNs(),
                 true);
  }
  for (auto& [name, other] : device.apps) {
    if (other.activity == ActivityState::kForeground) other.activity = ActivityState::kBackground;
  }
  app->activity = ActivityState::kForeground;
  // The scenario's faults for this launch (a crash kills the process it just showed); an intent
  // delivered to the activity on top is no launch.
  if (!result.delivered_to_top) {
    ++app->launches;
    LogSlowMessages(device, *app, t0 + milliseconds(1 + result.total_ms));
    ApplyLaunchFaults(device, *app, app->launches, t0 + milliseconds(1 + result.total_ms));
  }

  if (!wait) {
    if (result.brought_to_front) {
      output.Out("Warning: Activity not started, its current task has been brought to the front\n");
    }
    return output;
  }
  if (device.options.realtime_launches) output.Wait(milliseconds(result.wait_ms));
  output.Out(AmStartWaitOutput(sdk, component, result));
  return output;
}

CommandOutput RunAmForceStop(DeviceState& device, const Argv& argv) {
  if (argv.size() < 3) return Error("Error: no package specified\n", 255);
  if (App* app = device.FindApp(argv.back())) {
    if (app->pid != 0) {
      const int system_server = device.system_server_pid;
      device.Log(device.Now(), system_server, system_server + 12, 'I', "ActivityManager",
                 "Force stopping " + app->spec.name +
                     " appid=" + std::to_string(app->spec.uid % 100000) + " user=0: from pid " +
                     std::to_string(device.next_pid - 1),
                 LogBufferId::kSystem);
    }
    device.ForceStop(*app);
  }
  return {};
}

}  // namespace

CommandOutput RunAm(DeviceState& device, const Argv& argv) {
  if (argv.size() < 2) return Error("Activity manager (activity) commands: …\n", 255);
  const std::string& verb = argv[1];
  if (verb == "start" || verb == "start-activity") return RunAmStart(device, argv);
  if (verb == "force-stop") return RunAmForceStop(device, argv);
  return Error("Unknown command: " + verb + "\n", 255);
}

}  // namespace droidlab::devsim
