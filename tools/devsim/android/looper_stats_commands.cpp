// LooperStatsService from the shell: `cmd looper_stats …`, `dumpsys looper_stats`, and the
// `looper_stats` global setting it observes. The statistics themselves are looper_stats.h's.
#include <cstdint>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// ShellCommand.exec catching an exception from onCommand: the message and a stack on stderr,
// result -1 (exit status 255).
CommandOutput ShellCommandException(const std::string& command, const std::string& exception) {
  CommandOutput output;
  output.Err("Exception occurred while executing '" + command + "':\n" + exception +
             "\n\tat android.os.ShellCommand.getNextArgRequired(ShellCommand.java:297)\n");
  output.exit_code = 255;
  return output;
}

// AppIdToPackageMap.mapUid: "pkg/u0a123" for an installed app id, "shared:…" where several
// packages share it (uid 1000 always does), else the bare UserHandle.formatUid text.
std::string MapUid(const DeviceState& device, int uid) {
  if (uid < 0) return std::to_string(uid);
  const int app_id = uid % 100000;
  if (app_id == 1000) return "shared:android.uid.system/" + FormatUid(uid);
  for (const auto& [name, app] : device.apps) {
    if (app.spec.uid % 100000 == app_id) return name + "/" + FormatUid(uid);
  }
  return FormatUid(uid);
}

}  // namespace

CommandOutput RunLooperStatsCmd(DeviceState& device, const Argv& args) {
  CommandOutput output;
  const std::string cmd = args.empty() ? "" : args[0];
  const auto now = device.Now();
  if (cmd == "enable") {
    device.looper.SetEnabled(true, now);
  } else if (cmd == "disable") {
    device.looper.SetEnabled(false, now);
  } else if (cmd == "reset") {
    device.looper.Reset(now);
  } else if (cmd == "sampling_interval") {
    if (args.size() < 2) {
      return ShellCommandException(
          cmd, "java.lang.IllegalArgumentException: Argument expected after \"" + cmd + "\"");
    }
    // Integer.parseUnsignedInt
    const auto value = ParseLong(args[1]);
    if (!value || *value < 0 || *value > 4294967295L || args[1].starts_with("-")) {
      return ShellCommandException(
          cmd, "java.lang.NumberFormatException: For input string: \"" + args[1] + "\"");
    }
    device.looper.SetSamplingInterval(static_cast<int>(static_cast<std::uint32_t>(*value)));
  } else if (cmd.empty() || cmd == "help" || cmd == "-h") {
    output.Out(
        "looper_stats commands:\n  enable: Enable collecting stats.\n  disable: Disable "
        "collecting stats.\n  sampling_interval: Change the sampling interval.\n  reset: Reset "
        "stats.\n");
    output.exit_code = 255;  // handleDefaultCommands returns -1
  } else {
    output.Out("Unknown command: " + cmd + "\n");
    output.exit_code = 255;
  }
  return output;
}

CommandOutput DumpLooperStats(DeviceState& device) {
  CommandOutput output;
  output.Out(device.looper.Dump([&device](int uid) { return MapUid(device, uid); }));
  return output;
}

void LooperStatsSettingChanged(DeviceState& device) {
  if (device.scenario.device.sdk < kLooperStatsSinceSdk) return;
  // LooperStatsService's ContentObserver calls initFromSettings.
  const auto& table = device.settings["global"];
  const auto it = table.find("looper_stats");
  device.looper.ApplySetting(
      it == table.end() ? std::nullopt : std::optional<std::string>(it->second), device.Now());
}

}  // namespace droidlab::devsim
