// The simulated device's commands, one family per file, each a free function over the
// device's state (device_state.h) that prints what the configured SDK's tool prints.
// command_table.cpp maps a command name to its handler; dumpsys and cmd route a service name
// to the family that owns that service.
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

struct DeviceState;

using Argv = std::vector<std::string>;

// A command that fails with `text` on stderr.
inline CommandOutput Error(std::string_view text, int exit_code) {
  CommandOutput output;
  output.Err(text);
  output.exit_code = exit_code;
  return output;
}

// system_info_commands.cpp: read-only facts of the build and the clock.
CommandOutput RunGetprop(DeviceState& device, const Argv& argv);
CommandOutput RunSetprop(DeviceState& device, const Argv& argv);
CommandOutput RunGetconf(DeviceState& device, const Argv& argv);
CommandOutput RunDate(DeviceState& device, const Argv& argv);

// settings_commands.cpp: `settings get|put|delete|list`, also reached as `cmd settings`.
CommandOutput RunSettings(DeviceState& device, const Argv& argv);

// process_commands.cpp: the process table as pidof, ps and /proc show it.
CommandOutput RunPidof(DeviceState& device, const Argv& argv);
CommandOutput RunPs(DeviceState& device, const Argv& argv);
CommandOutput RunCat(DeviceState& device, const Argv& argv);
// `devsim-stats` (devsim only): "processes_started N" and "shell_services N", DeviceState's
// counters of those names.
CommandOutput RunDevsimStats(DeviceState& device, const Argv& argv);

// activity_commands.cpp: `am start` and `am force-stop`, also reached as `cmd activity`.
CommandOutput RunAm(DeviceState& device, const Argv& argv);

// input_commands.cpp: key events and the keyguard (`input keyevent`, `wm dismiss-keyguard`).
CommandOutput RunInput(DeviceState& device, const Argv& argv);
CommandOutput RunWm(DeviceState& device, const Argv& argv);
// devsim's own `devsim-input-log [clear]`: the inputs delivered, in order (not Android's).
CommandOutput RunDevsimInputLog(DeviceState& device, const Argv& argv);
// monkey_command.cpp: `monkey -p PKG … COUNT`.
CommandOutput RunMonkey(DeviceState& device, const Argv& argv);

// package_commands.cpp: `pm` (also `cmd package`) and `dumpsys package PKG`.
CommandOutput RunPm(DeviceState& device, const Argv& argv);
CommandOutput DumpPackage(DeviceState& device, const std::string& package);
// compile_commands.cpp: `cmd package compile` and `delete-dexopt` (args after the verb).
CommandOutput RunPackageCompile(DeviceState& device, const Argv& args);
CommandOutput RunPackageDeleteDexopt(DeviceState& device, const Argv& args);

// install_commands.cpp: an APK the host sent, installed (`pm install PATH` of a pushed file, the
// bytes of a streamed `cmd package install -S N`), and `rm` / `sha1sum` of pushed files.
struct StoredFile;
// `args` follow "install": pm's options (-r, -d, -S N, …).
CommandOutput RunStreamedInstall(DeviceState& device, const Argv& args, const StoredFile& file);
CommandOutput RunPmInstall(DeviceState& device, const Argv& args);
// An install session's step (`args` from the verb: install-create|install-write|install-commit|
// install-abandon …), from `pm`/`cmd package` in a shell or over exec:/abb_exec:, where
// `streamed` is what install-write's "-" read from the stream (nullptr in a shell).
CommandOutput RunInstallSession(DeviceState& device, const Argv& args, const StoredFile* streamed);
CommandOutput RunRm(DeviceState& device, const Argv& argv);
CommandOutput RunSha1sum(DeviceState& device, const Argv& argv);

// logcat_command.cpp
CommandOutput RunLogcat(DeviceState& device, const Argv& argv);

// dumpsys_and_cmd.cpp: route a service to its family; the small dumps (power, thermal,
// activity activities) are printed there.
CommandOutput RunDumpsys(DeviceState& device, const Argv& argv);
CommandOutput RunCmd(DeviceState& device, const Argv& argv);

// app_dump_commands.cpp: `dumpsys gfxinfo …` and `dumpsys meminfo …` of a running app (`args`
// follow the service name).
CommandOutput DumpGfxinfo(DeviceState& device, const Argv& args);
CommandOutput DumpMeminfo(DeviceState& device, const Argv& args);

// battery_commands.cpp: BatteryService's shell command. `args` follow the service name;
// `from_dumpsys`: `dumpsys battery …` (exit 0 whatever happens) rather than `cmd battery …`.
CommandOutput RunBattery(DeviceState& device, const Argv& args, bool from_dumpsys);

// looper_stats_commands.cpp: `cmd looper_stats …` (args follow the service name), `dumpsys
// looper_stats`, and the `looper_stats` global setting. Only from kLooperStatsSinceSdk.
CommandOutput RunLooperStatsCmd(DeviceState& device, const Argv& args);
CommandOutput DumpLooperStats(DeviceState& device);
void LooperStatsSettingChanged(DeviceState& device);

}  // namespace droidlab::devsim
