// `dumpsys gfxinfo` and `dumpsys meminfo` of an app: ActivityManagerService finds the process by
// name and has the app dump itself (gfxinfo_dump.h, meminfo_dump.h print what it prints).
#include <algorithm>
#include <cmath>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"
#include "tools/devsim/android/gfxinfo_dump.h"
#include "tools/devsim/android/launch_formats.h"
#include "tools/devsim/android/meminfo_dump.h"

namespace droidlab::devsim {
namespace {

// The running app whose process name is `name` (AMS collectProcesses also takes a pid).
App* RunningApp(DeviceState& device, const std::string& name) {
  for (auto& [package, app] : device.apps) {
    if (app.pid != 0 && (package == name || std::to_string(app.pid) == name)) return &app;
  }
  return nullptr;
}

std::string ActivityClass(const App& app) {
  Component component;
  ParseComponent(app.spec.name + "/" + app.spec.activity, component);
  return component.class_name;
}

}  // namespace

CommandOutput DumpGfxinfo(DeviceState& device, const Argv& args) {
  std::string package;
  bool framestats = false;
  bool reset = false;
  for (const std::string& arg : args) {
    if (arg == "framestats") {
      framestats = true;
    } else if (arg == "reset") {
      reset = true;
    } else if (!arg.starts_with("-") && package.empty()) {
      package = arg;
    }
  }
  CommandOutput output;
  App* app = RunningApp(device, package);
  if (app == nullptr) {
    // ActivityManagerService.collectProcesses: nothing by that name.
    output.Out("No process found for: " + package + "\n");
    return output;
  }
  const int sdk = device.scenario.device.sdk;
  const long uptime_ms = std::lround(device.UptimeSeconds() * 1000);
  output.Out(FormatGfxinfo(sdk, uptime_ms, {app->pid, app->spec.name, ActivityClass(*app)},
                           app->frames, framestats));
  // ThreadedRenderer's DumpFlags::Reset: printed first, then cleared
  // (CanvasContext::resetFrameStats).
  if (reset) ResetFrameStats(app->frames, device.MonotonicNs());
  return output;
}

CommandOutput DumpMeminfo(DeviceState& device, const Argv& args) {
  std::string package;
  for (const std::string& arg : args) {
    if (!arg.starts_with("-") && package.empty()) package = arg;
  }
  CommandOutput output;
  App* app = RunningApp(device, package);
  if (app == nullptr) {
    // ActivityManagerService.dumpApplicationMemoryUsage: nothing by that name.
    output.Out("No process found for: " + package + "\n");
    return output;
  }
  const long uptime_ms = std::lround(device.UptimeSeconds() * 1000);
  const MemorySpec& memory = app->spec.memory;
  // Each launch into the running process may leave an Activity behind (the leak a test finds);
  // the first launch created the one live activity.
  const int leaked = memory.activities_leak_per_launch * std::max(0, app->launches_in_process - 1);
  // What the leaked Activities hold stays in the Java heap (the .art mmap and Dalvik Heap rows
  // split it as they split the rest), so the App Summary's Java Heap and the TOTAL grow by it.
  MemorySpec shown = memory;
  shown.java_heap_kb += static_cast<long>(leaked) * memory.leaked_activity_kb;
  output.Out(FormatMeminfo(device.scenario.device.sdk, uptime_ms, uptime_ms,
                           {app->pid, app->spec.name, memory.activities + leaked}, shown));
  return output;
}

}  // namespace droidlab::devsim
