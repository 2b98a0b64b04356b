// A looper-stats session on one device (DESIGN.md, looper stats): the `looper_stats` global
// setting read and kept, then enabled with the run's sampling interval — the other keys of the
// old value kept (KeyValueListParser format) — and the charging gate opened: LooperStats
// records nothing while the device is powered (a USB lab phone always is) unless the build
// honours ignore_battery_status=true or `dumpsys battery unplug` fakes a discharging battery.
// Which one works is found out, not guessed: after `cmd looper_stats reset` a short workload
// (the caller's: an unmeasured launch) runs and the dump must have rows; if not, unplug and try
// again. Restore puts back the exact previous value (`settings delete` when there was none) and
// `dumpsys battery reset` after an unplug.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>

#include "orchestrator/run/device_shell.h"
#include "parsers/key_value_list.h"

namespace droidlab::orchestrator {

struct LooperSession {
  bool previous_read = false;       // restore only what was read
  parsers::SettingsValue previous;  // the setting before the run (unset: "null")
  std::string value;                // what the session put
  std::string gate;                 // "ignore_battery_status" or "battery_unplug"
  bool unplugged = false;           // `dumpsys battery reset` owed
};

// The value to put: `previous`'s keys in their order, with enabled=true, sampling_interval=N and
// ignore_battery_status=true set (a malformed old value is not carried over: Android would
// reject the whole setting).
std::string LooperSettingValue(const parsers::SettingsValue& previous, int64_t sampling_interval);

// Something that makes system_server post messages on behalf of the app (an unmeasured launch).
using LooperWorkload = std::function<boost::asio::awaitable<CommandResult<bool>>()>;

// Reads, sets, opens the gate, resets. `session` is filled as it goes, so a failure half-way is
// restored by RestoreLooperSession all the same.
boost::asio::awaitable<CommandResult<bool>> StartLooperSession(DeviceShell& shell,
                                                               int64_t sampling_interval,
                                                               const LooperWorkload& workload,
                                                               adb::Deadline deadline,
                                                               LooperSession& session);

// `dumpsys looper_stats`: the text (an error for a failed or cut-off command).
boost::asio::awaitable<CommandResult<std::string>> DumpLooperStats(DeviceShell& shell,
                                                                   adb::Deadline deadline);

boost::asio::awaitable<CommandResult<bool>> RestoreLooperSession(DeviceShell& shell,
                                                                 const LooperSession& session,
                                                                 adb::Deadline deadline);

}  // namespace droidlab::orchestrator
