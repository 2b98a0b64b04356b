// A looper-stats session on one device (DESIGN.md, looper stats): the `looper_stats` global
// setting read and kept, then enabled with the run's sampling interval — the other keys of the
// old value kept (KeyValueListParser format) — and the charging gate opened: LooperStats
// records nothing while the device is powered (a USB lab phone always is) unless the build
// honours ignore_battery_status=true or `dumpsys battery unplug` fakes a discharging battery.
// Which one works is found out, not guessed: after `cmd looper_stats reset` a short workload
// (the caller's: an unmeasured launch) runs and the dump must have rows; if not, unplug and try
// again. Before the setting is put and before the unplug is sent, what undoes each is recorded
// durably (owed_restores.h): the exact previous value (`settings delete` when there was none),
// `dumpsys battery reset`; the run's end pays them like any owed restore.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/owed_restores.h"
#include "parsers/key_value_list.h"

namespace droidlab::orchestrator {

struct LooperSession {
  bool previous_read = false;       // the setting was read
  parsers::SettingsValue previous;  // the setting before the run (unset: "null")
  std::string value;                // what the session put
  std::string gate;                 // "ignore_battery_status" or "battery_unplug"
  bool unplugged = false;           // `dumpsys battery unplug` sent (its reset recorded)
};

// The value to put: `previous`'s keys in their order, with enabled=true, sampling_interval=N and
// ignore_battery_status=true set (a malformed old value is not carried over: Android would
// reject the whole setting).
std::string LooperSettingValue(const parsers::SettingsValue& previous, int64_t sampling_interval);

// Something that makes system_server post messages on behalf of the app (an unmeasured launch).
using LooperWorkload = std::function<boost::asio::awaitable<CommandResult<bool>>()>;

// Reads, sets, opens the gate, resets; each device command under a deadline of its own
// (`command_timeout` from when it is sent; the workload keeps its own). Each change is preceded by
// `record` of what undoes it: a record that fails stops the session before the change. `session`
// is filled as it goes (for the run's report).
boost::asio::awaitable<CommandResult<bool>> StartLooperSession(
    DeviceShell& shell, int64_t sampling_interval, const LooperWorkload& workload,
    std::chrono::milliseconds command_timeout, const RecordRestore& record, LooperSession& session);

// `dumpsys looper_stats`: the text (an error for a failed or cut-off command).
boost::asio::awaitable<CommandResult<std::string>> DumpLooperStats(DeviceShell& shell,
                                                                   adb::Deadline deadline);

}  // namespace droidlab::orchestrator
