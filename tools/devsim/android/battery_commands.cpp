// BatteryService's shell command (BatteryService.Shell and dumpInternal): `dumpsys battery
// [unplug|reset|set [-f] KEY N|get KEY]` and `cmd battery …`. Unplugging opens looper_stats'
// charging gate, so a change of plug state is logged as BatteryService logs it.
#include <map>
#include <optional>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// A missing or bad argument: the message on stdout, exit status 255.
CommandOutput ShellFailure(const std::string& text) {
  CommandOutput output;
  output.Out(text);
  output.exit_code = 255;
  return output;
}

// `set KEY VALUE` applied to `battery`; false when the key is unknown (for this SDK).
bool SetBatteryValue(BatteryState& battery, int sdk, const std::string& key, int v) {
  if (key == "present") {
    battery.present = v != 0;
  } else if (key == "ac") {
    battery.ac = v != 0;
  } else if (key == "usb") {
    battery.usb = v != 0;
  } else if (key == "wireless") {
    battery.wireless = v != 0;
  } else if (key == "dock" && sdk >= 34) {
    battery.dock = v != 0;
  } else if (key == "status") {
    battery.status = v;
  } else if (key == "level") {
    battery.level = v;
  } else if (key == "counter") {
    battery.charge_counter = v;
  } else if (key == "temp") {
    battery.temperature = v;
  } else if (key == "invalid") {
    battery.invalid_charger = v;
  } else {
    return false;
  }
  return true;
}

std::string GetBatteryValue(const BatteryState& battery, const std::string& key) {
  const std::map<std::string, std::string> values = {
      {"present", battery.present ? "true" : "false"},
      {"ac", battery.ac ? "true" : "false"},
      {"usb", battery.usb ? "true" : "false"},
      {"wireless", battery.wireless ? "true" : "false"},
      {"status", std::to_string(battery.status)},
      {"level", std::to_string(battery.level)},
      {"counter", std::to_string(battery.charge_counter)},
      {"temp", std::to_string(battery.temperature)},
      {"invalid", std::to_string(battery.invalid_charger)}};
  const auto it = values.find(key);
  return it == values.end() ? "Unknown get option: " + key + "\n" : it->second + "\n";
}

// The first override stops updates from the HAL and remembers what `reset` goes back to.
void StopUpdates(DeviceState& device) {
  if (!device.battery_updates_stopped) device.battery_before_override = device.battery;
  device.battery_updates_stopped = true;
}

}  // namespace

CommandOutput RunBattery(DeviceState& device, const Argv& args, bool from_dumpsys) {
  const int sdk = device.scenario.device.sdk;
  CommandOutput output;
  if (args.empty() || (from_dumpsys && args[0] == "-a")) {
    if (from_dumpsys) {
      output.Out(FormatBatteryDump(sdk, device.battery, device.battery_updates_stopped));
    } else {
      output.exit_code = 255;  // handleDefaultCommands(null): help, -1
    }
    return output;
  }
  std::size_t at = 0;
  const std::string cmd = args[at++];
  bool force = false;
  while (at < args.size() && args[at] == "-f") {
    force = true;
    ++at;
  }
  auto next = [&]() -> std::optional<std::string> {
    if (at < args.size()) return args[at++];
    return std::nullopt;
  };
  const bool was_charging = device.Charging();
  if (cmd == "unplug") {
    StopUpdates(device);
    BatteryState& battery = device.battery;
    battery.ac = battery.usb = battery.wireless = battery.dock = false;
  } else if (cmd == "reset") {
    if (device.battery_updates_stopped) {
      device.battery_updates_stopped = false;
      device.battery = device.battery_before_override;
    }
  } else if (cmd == "set") {
    const auto key = next();
    if (!key) return ShellFailure("No property specified\n");
    const auto value = next();
    if (!value) return ShellFailure("No value specified\n");
    const auto number = ParseLong(*value);
    if (!number) return ShellFailure("Bad value: " + *value + "\n");
    BatteryState changed = device.battery;
    if (!SetBatteryValue(changed, sdk, *key, static_cast<int>(*number))) {
      output.Out("Unknown set option: " + *key + "\n");
      return output;
    }
    StopUpdates(device);
    device.battery = changed;
  } else if (cmd == "get") {
    const auto key = next();
    if (!key) return ShellFailure("No property specified\n");
    output.Out(GetBatteryValue(device.battery, *key));
    return output;
  } else if (cmd == "help" || cmd == "-h") {
    output.Out("Battery service (battery) commands:\n");
    output.exit_code = from_dumpsys ? 0 : 255;
    return output;
  } else {
    output.Out("Unknown command: " + cmd + "\n");
    if (!from_dumpsys) output.exit_code = 255;
    return output;
  }
  ++device.battery_sequence;
  // processValuesLocked(force, pw) prints the sequence number.
  if (force) output.Out(std::to_string(device.battery_sequence) + "\n");
  if (was_charging != device.Charging()) {
    const int system_server = device.system_server_pid;
    device.Log(
        device.Now(), system_server, system_server + 9, 'I', "BatteryService",
        std::string("Processing new values: plugged=") + (device.Charging() ? "true" : "false"),
        LogBufferId::kSystem);
  }
  return output;  // dumpsys exits 0 whatever the service wrote
}

}  // namespace droidlab::devsim
