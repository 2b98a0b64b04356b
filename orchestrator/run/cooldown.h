// Heat: a phone that throttles after a dozen cold starts slows every later one, so before each
// iteration the run waits until the phone is cool enough (issue 14 §3) and each launch keeps the
// conditions it was measured in. Read from two dumps the preflight reads too:
// - `dumpsys thermalservice` "Thermal Status: N" (Android 10+, services/core/.../power/
//   ThermalManagerService.java; PowerManager.THERMAL_STATUS_NONE 0 … SHUTDOWN 6); Android 9 and
//   older have no such status: unknown, not waited on;
// - `dumpsys battery` "temperature: 326" (tenths of °C, BatteryService). While the battery is
//   unplugged by droidlab (`dumpsys battery unplug`, "UPDATES STOPPED") the values are frozen:
//   the temperature is then unknown rather than a stale number.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/run/device_shell.h"

namespace droidlab::orchestrator {

struct LaunchConditions {
  std::optional<int> thermal_status;             // 0–6; unknown: absent
  std::optional<int64_t> battery_temp_tenths_c;  // unknown or frozen: absent
};

struct CoolEnough {
  int max_thermal_status = 1;               // LIGHT
  int64_t max_battery_temp_tenths_c = 380;  // 38.0 °C
};

// The phone's conditions now: the two dumps in one joined command (DeviceShell::RunJoined), with
// `also` after them in the same command, each part under `command_timeout` (summed). A device
// error (gone, timed out, cancelled) is returned; a dump that does not parse leaves its field
// unknown. The answers of `also` go to `also_answers`.
boost::asio::awaitable<CommandResult<LaunchConditions>> ReadLaunchConditions(
    DeviceShell& shell, std::chrono::milliseconds command_timeout, std::vector<ShellPart> also = {},
    std::vector<CommandResult<adb::ShellResult>>* also_answers = nullptr);

// "" when `c` is cool enough (an unknown value is not waited on), else why not:
// "thermal status MODERATE (at most LIGHT)", "battery 41.2 °C (at most 38.0 °C)".
std::string TooHot(const LaunchConditions& c, const CoolEnough& limit);

struct CooldownResult {
  LaunchConditions conditions;  // the last reading
  int64_t waited_ms = 0;
  std::string still_hot;  // "" when cool enough; else TooHot's words after the timeout
  // The answers of `with_first_read`, when the first reading was cool enough (no wait); after a
  // wait they are stale, and absent.
  std::optional<std::vector<CommandResult<adb::ShellResult>>> first_read_answers;
};

// Reads the conditions, and while they are too hot reads them again every `poll` until they are
// not or `timeout` has passed. Cancellable (the run's cancel ends the wait). `with_first_read` is
// sent in the first reading's command (the launch's preparation: launch_iteration.h
// PreparationParts), so that a phone cool at once costs one command for both; only commands
// that may run again belong there, since after a wait the caller sends them again.
boost::asio::awaitable<CommandResult<CooldownResult>> WaitUntilCool(
    DeviceShell& shell, CoolEnough limit, std::chrono::milliseconds timeout,
    std::chrono::milliseconds poll, std::chrono::milliseconds command_timeout,
    std::vector<ShellPart> with_first_read = {});

}  // namespace droidlab::orchestrator
