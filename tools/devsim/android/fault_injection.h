// Faults a test injects into a simulated device (`adb shell devsim-fault …`, or a scenario's
// "faults" at a given time): unplugging the transport, and commands that hang, are cut short,
// trickle out or meet garbage in the log. Kept apart from the commands so that no command
// knows faults exist: they are applied to a command's finished output.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

struct DeviceState;

// What the transport does on `devsim-fault unplug MS`: close every connection and refuse
// new ones for MS milliseconds, then listen again (the adb server reconnects by itself).
using UnplugHandler = std::function<void(std::chrono::milliseconds)>;
// What the transport does on `devsim-fault unauthorized MS`: drop every connection, then answer
// each new CNXN with AUTH and accept no key for MS milliseconds (adb lists the device
// `unauthorized`); then the prompt is "allowed" and waiting connections get their CNXN.
using RefuseAuthHandler = std::function<void(std::chrono::milliseconds)>;

struct ActiveFault {
  std::string kind;    // hang, truncate, slow
  std::string prefix;  // the command line it applies to starts with this
  long value = 0;      // truncate: bytes kept; slow: milliseconds per 1 KiB
  long remaining = 1;  // how many more commands it applies to
};

// `devsim-fault wedge UNTIL`: the phone stops answering — every command but devsim-fault prints
// nothing and never ends — until what UNTIL names happens (the recovery ladder's rungs,
// orchestrator/lab/device_recovery.h): "transport" a new connection from the host (the adb
// server reconnected its transport), "device" adbd's `reconnect` service, "reboot" a reboot,
// "never" nothing (a phone whose flash or modem is gone). Each rung also clears the ones below
// it: a reboot clears every wedge but "never".
enum class Wedge { kNone, kTransport, kDevice, kReboot, kNever };

struct FaultState {
  std::vector<ActiveFault> active;
  Wedge wedge = Wedge::kNone;
  std::size_t next_scheduled = 0;  // index into Scenario::faults
  UnplugHandler unplug_handler;
  RefuseAuthHandler refuse_auth_handler;
};

// devsim-fault unplug MS | reboot [MS [BOOT_MS]] | unauthorized MS | hang PREFIX [N] |
// truncate PREFIX BYTES [N] | slow PREFIX MS [N] | wedge UNTIL | garbage N | list | clear. Usage
// errors exit 2. `clear` clears a wedge too.
CommandOutput RunDevsimFault(DeviceState& device, const std::vector<std::string>& argv);

// Runs the scenario's faults whose time (seconds after the device was created) has come.
void RunScheduledFaults(DeviceState& device, std::chrono::system_clock::time_point now);

// Rewrites the output of the command `argv` if an active fault matches its command line, and
// counts that use down. devsim-fault itself is never faulted, so a test can always clear.
void ApplyFaults(FaultState& faults, const std::vector<std::string>& argv, CommandOutput& output);

// The wedge's rungs: a new connection from the host, adbd's `reconnect` service, a reboot.
void OnTransportConnected(FaultState& faults);
void OnAdbdReconnect(FaultState& faults);
void OnReboot(FaultState& faults);

// For streams that are no shell (an install's bytes): true when an active fault of `kind`
// matches the command line `argv`, counted down as ApplyFaults does.
bool TakeFault(FaultState& faults, std::string_view kind, const std::vector<std::string>& argv);

}  // namespace droidlab::devsim
