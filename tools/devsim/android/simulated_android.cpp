#include "tools/devsim/android/simulated_android.h"

#include "tools/devsim/android/background_activity.h"
#include "tools/devsim/android/command_table.h"

namespace droidlab::devsim {
namespace {

// What adbd of that release advertises in its banner. Never delayed_ack: with it the host
// expects a different flow-control scheme (see the measured facts).
std::string FeaturesForSdk(int sdk) {
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

}  // namespace

SimulatedAndroid::SimulatedAndroid(Scenario scenario, Options options, WallClock clock)
    : device_(std::move(scenario), options, std::move(clock)) {}

std::string SimulatedAndroid::ConnectBanner() const {
  const DeviceSpec& d = device_.scenario.device;
  return "device::ro.product.name=" + d.product + ";ro.product.model=" + d.model +
         ";ro.product.device=" + d.device + ";features=" + FeaturesForSdk(d.sdk);
}

void SimulatedAndroid::Tick() { AdvanceDeviceTo(device_, device_.Now()); }

CommandOutput SimulatedAndroid::Run(const std::vector<std::string>& argv) {
  Tick();
  CommandOutput output;
  if (const CommandHandler handler = FindCommand(argv.at(0))) {
    output = handler(device_, argv);
  } else {
    // mksh's message and status for a command it cannot find.
    output = Error("/system/bin/sh: " + argv[0] + ": inaccessible or not found\n", 127);
  }
  ApplyFaults(device_.faults, argv, output);
  return output;
}

}  // namespace droidlab::devsim
