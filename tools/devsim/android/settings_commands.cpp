// settings [--user N] get|put|delete|list NAMESPACE [KEY [VALUE]] (SettingsProvider's shell
// command), also reached as `cmd settings`.
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// What a ContentObserver on the changed setting would do on a phone.
void SettingChanged(DeviceState& device, const std::string& ns, const std::string& key) {
  if (ns == "global" && key == "looper_stats") LooperStatsSettingChanged(device);
}

}  // namespace

CommandOutput RunSettings(DeviceState& device, const Argv& argv) {
  Argv args(argv.begin() + 1, argv.end());
  if (args.size() >= 2 && args[0] == "--user") args.erase(args.begin(), args.begin() + 2);
  if (args.size() < 2) return Error("Invalid command: settings needs a verb and a namespace\n", 1);
  const std::string& verb = args[0];
  const std::string& ns = args[1];
  if (ns != "global" && ns != "system" && ns != "secure") {
    return Error("Invalid namespace '" + ns + "'\n", 1);
  }
  auto& table = device.settings[ns];
  CommandOutput output;
  if (verb == "get" && args.size() >= 3) {
    const auto it = table.find(args[2]);
    output.Out((it == table.end() ? std::string("null") : it->second) + "\n");
  } else if (verb == "put" && args.size() >= 4) {
    table[args[2]] = args[3];
    SettingChanged(device, ns, args[2]);
  } else if (verb == "delete" && args.size() >= 3) {
    output.Out(table.erase(args[2]) ? "Deleted 1 rows\n" : "Deleted 0 rows\n");
    SettingChanged(device, ns, args[2]);
  } else if (verb == "list") {
    for (const auto& [key, value] : table) output.Out(key + "=" + value + "\n");
  } else {
    return Error("Invalid command: " + verb + "\n", 1);
  }
  return output;
}

}  // namespace droidlab::devsim
