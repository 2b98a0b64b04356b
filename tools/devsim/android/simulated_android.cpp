#include "tools/devsim/android/simulated_android.h"

#include "tools/devsim/android/background_activity.h"
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/command_table.h"

namespace droidlab::devsim {
namespace {

// What adbd of that release advertises in its banner. Never delayed_ack: with it the host
// expects a different flow-control scheme (see the issue's measured facts).
std::string FeaturesForSdk(int sdk) {
  // Android 6's adbd advertised no features: no shell protocol, no `cmd` (both came with 7),
  // so adb pushes and runs `pm install` (adb_install.cpp) and shells are v1.
  if (sdk < 24) return "";
  std::string features = "shell_v2,cmd,stat_v2";
  if (sdk >= 29) {
    features +=
        ",ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec,"
        "remount_shell";
  }
  if (sdk >= 30) features += ",track_app";
  if (sdk >= 31) {
    features +=
        ",sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd,"
        "sendrecv_v2_dry_run_send";
  }
  if (sdk >= 33) features += ",openscreen_mdns";
  return features;
}

// After a reboot, until system_server has published its services, the commands that reach them
// fail as on a phone: `settings` is a script running `cmd settings "$@"`
// (frameworks/base/cmds/settings/settings), `am` and `pm` run `cmd activity` / `cmd package`, and
// cmd's main() (frameworks/native/cmds/cmd/cmd.cpp, Android 8–14) does checkService(NAME) and,
// finding nothing, prints "cmd: Can't find service: NAME" on stderr and returns 20. dumpsys
// (frameworks/native/cmds/dumpsys/dumpsys.cpp) prints "Can't find service: NAME" on stderr and
// still exits 0. True (with `output` set) when `argv` is one of those.
bool ServiceNotYetPublished(const std::vector<std::string>& argv, CommandOutput& output) {
  std::string name = argv[0];
  const auto slash = name.rfind('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  std::string service;
  if (name == "settings") {
    service = "settings";
  } else if (name == "am") {
    service = "activity";
  } else if (name == "pm") {
    service = "package";
  } else if ((name == "cmd" || name == "dumpsys") && argv.size() >= 2) {
    service = argv[1];
  } else {
    return false;
  }
  if (name == "dumpsys") {
    output = CommandOutput{};
    output.Err("Can't find service: " + service + "\n");
    return true;
  }
  output = Error("cmd: Can't find service: " + service + "\n", 20);
  return true;
}

}  // namespace

SimulatedAndroid::SimulatedAndroid(Scenario scenario, Options options, WallClock clock)
    : device_(std::move(scenario), options, std::move(clock)) {}

std::string SimulatedAndroid::ConnectBanner() const {
  const DeviceSpec& d = device_.scenario.device;
  return "device::ro.product.name=" + d.product + ";ro.product.model=" + d.model +
         ";ro.product.device=" + d.device + ";features=" + FeaturesForSdk(d.sdk);
}

CommandOutput SimulatedAndroid::RunStreamedInstall(const std::vector<std::string>& argv,
                                                   const StoredFile& file) {
  Tick();
  CommandOutput output;
  if (device_.ServicesStarting() && ServiceNotYetPublished(argv, output)) {
    // system_server is still starting after a reboot: no package service to install with.
  } else {
    if (argv.at(2) == "install") {
      output = devsim::RunStreamedInstall(device_, Argv(argv.begin() + 3, argv.end()), file);
    } else {  // an install session's step
      output = devsim::RunInstallSession(device_, Argv(argv.begin() + 2, argv.end()), &file);
    }
  }
  ApplyFaults(device_.faults, argv, output);
  return output;
}

bool SimulatedAndroid::StallsStream(const std::vector<std::string>& argv) {
  return TakeFault(device_.faults, "hang", argv);
}

void SimulatedAndroid::RebootRequested() {
  const std::vector<std::string> reboot{"devsim-fault", "reboot"};
  RunDevsimFault(device_, reboot);
}

void SimulatedAndroid::Tick() { AdvanceDeviceTo(device_, device_.Now()); }

CommandOutput SimulatedAndroid::Run(const std::vector<std::string>& argv) {
  Tick();
  CommandOutput output;
  if (device_.ServicesStarting() && ServiceNotYetPublished(argv, output)) {
    // system_server is still starting after a reboot.
  } else if (const CommandHandler handler = FindCommand(argv.at(0))) {
    output = handler(device_, argv);
  } else {
    // mksh's message and status for a command it cannot find.
    output = Error("/system/bin/sh: " + argv[0] + ": inaccessible or not found\n", 127);
  }
  ApplyFaults(device_.faults, argv, output);
  return output;
}

}  // namespace droidlab::devsim
