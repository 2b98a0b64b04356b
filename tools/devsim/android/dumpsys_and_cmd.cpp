// dumpsys SERVICE and cmd SERVICE: route the service name to the family that owns it. The
// dumps that only read state (power, thermal, the keyguard) are printed here.
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {

CommandOutput RunDumpsys(DeviceState& device, const Argv& argv) {
  const int sdk = device.scenario.device.sdk;
  if (argv.size() < 2) return Error("devsim: dumpsys of every service is not simulated\n", 1);
  const std::string& service = argv[1];
  const Argv args(argv.begin() + 2, argv.end());
  CommandOutput output;
  if (service == "looper_stats" && sdk >= kLooperStatsSinceSdk) return DumpLooperStats(device);
  if (service == "battery") return RunBattery(device, args, /*from_dumpsys=*/true);
  if (service == "gfxinfo") return DumpGfxinfo(device, args);
  if (service == "meminfo") return DumpMeminfo(device, args);
  if (service == "thermalservice") {
    const double battery_c = device.battery.temperature / 10.0;
    output.Out(FormatThermalDump(sdk, device.ThermalStatus(), false,
                                 {{battery_c, 2, "battery", 0},
                                  {battery_c + 4.7, 3, "VIRTUAL-SKIN", 0},
                                  {battery_c + 11.3, 0, "cpu-0-0-usr", 0}}));
    return output;
  }
  if (service == "package" && !args.empty()) return DumpPackage(device, args.back());
  if (service == "SurfaceFlinger" && args.size() == 1 && args[0] == "--latency") {
    // SurfaceFlinger::dumpStatsLocked with no layer name: the vsync period in ns on a line of
    // its own; up to Android 9 the animation frame tracker's records follow
    // (FrameTracker::dumpStats: desired, actual and ready times, tab-separated, all 0 when no
    // animation ran), from 10 nothing does.
    output.Out(std::to_string(1'000'000'000LL / device.scenario.device.refresh_hz) + "\n");
    if (sdk <= 28) {
      for (int i = 1; i < 128; ++i) output.Out("0\t0\t0\n");
    }
    return output;
  }
  if (service == "power") {
    output.Out(FormatPowerDump(sdk, device.screen_on, device.battery));
    return output;
  }
  if (service == "activity" && args.size() == 1 && (args[0] == "activities" || args[0] == "a")) {
    output.Out(FormatActivitiesDump(sdk, device.keyguard_showing));
    return output;
  }
  // dumpsys.cpp startDumpThread: "Can't find service: NAME" on stderr, exit status 0.
  output.Err("Can't find service: " + service + "\n");
  return output;
}

CommandOutput RunCmd(DeviceState& device, const Argv& argv) {
  const int sdk = device.scenario.device.sdk;
  if (argv.size() < 2) return Error("cmd: No service specified; use -l to list all services\n", 20);
  const Argv rest(argv.begin() + 1, argv.end());
  const std::string& service = rest[0];
  // `cmd activity …` is what `am` runs; likewise package and settings. Their handlers read
  // the verb at argv[1], which the service name's argv[0] leaves in place.
  if (service == "activity") return RunAm(device, rest);
  if (service == "package") return RunPm(device, rest);
  if (service == "settings") return RunSettings(device, rest);
  const Argv args(rest.begin() + 1, rest.end());
  if (service == "battery") return RunBattery(device, args, /*from_dumpsys=*/false);
  if (service == "looper_stats" && sdk >= kLooperStatsSinceSdk) {
    return RunLooperStatsCmd(device, args);
  }
  // cmd.cpp: checkService failed.
  return Error("cmd: Can't find service: " + service + "\n", 20);
}

}  // namespace droidlab::devsim
