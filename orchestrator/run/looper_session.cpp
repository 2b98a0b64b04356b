#include "orchestrator/run/looper_session.h"

#include "orchestrator/run/device_commands.h"
#include "parsers/looper_stats.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

const std::string kSetting = "looper_stats";

// Rows in a dump: the gate is open when the workload left any.
asio::awaitable<CommandResult<size_t>> DumpRows(DeviceShell& shell, adb::Deadline deadline) {
  auto dump = co_await DumpLooperStats(shell, deadline);
  if (!dump) co_return dump.error();
  auto parsed = parsers::ParseLooperStats(*dump);
  if (!parsed) {
    co_return CommandError{std::nullopt,
                           "`dumpsys looper_stats` not understood: " + parsed.error().message};
  }
  co_return parsed->entries.size();
}

}  // namespace

std::string LooperSettingValue(const parsers::SettingsValue& previous, int64_t sampling_interval) {
  parsers::KeyValueList list = parsers::ParseKeyValueList(previous.value.value_or(""));
  list.Set("enabled", "true");
  list.Set("sampling_interval", std::to_string(sampling_interval));
  list.Set("ignore_battery_status", "true");
  return list.Serialize();
}

asio::awaitable<CommandResult<std::string>> DumpLooperStats(DeviceShell& shell,
                                                            adb::Deadline deadline) {
  auto dumpsys = shell.Run(DumpsysLooperStats(), deadline);
  auto r = co_await std::move(dumpsys);
  if (!r) co_return r.error();
  // dumpsys prints "Can't find service" on stderr (exit 0): the parser wants to see it.
  co_return r->out + r->err;
}

asio::awaitable<CommandResult<bool>> StartLooperSession(DeviceShell& shell,
                                                        int64_t sampling_interval,
                                                        const LooperWorkload& workload,
                                                        std::chrono::milliseconds command_timeout,
                                                        const RecordRestore& record,
                                                        LooperSession& session) {
  // Each command's own deadline, from when it is sent.
  auto deadline = [command_timeout] { return adb::DeadlineAfter(command_timeout); };
  auto settings_get = shell.Run(SettingsGetGlobal(kSetting), deadline());
  auto got = co_await std::move(settings_get);
  if (!got) co_return got.error();
  auto previous = parsers::ParseSettingsGet(got->out);
  if (!previous) {
    co_return CommandError{std::nullopt, "`settings get global looper_stats` printed nothing"};
  }
  session.previous = *previous;
  session.previous_read = true;
  session.value = LooperSettingValue(session.previous, sampling_interval);
  // What undoes the puts, on disk before the first is sent.
  store::DeviceRestore setting_restore = GlobalSettingRestore(kSetting, session.previous.value);
  auto recording_setting = record(std::move(setting_restore));
  if (auto r = co_await std::move(recording_setting); !r) co_return r.error();
  // The gate is probed with every message sampled: LooperStats creates an entry only for a
  // sampled message (findEntry(msg, allowCreateNew = sampled)), so at the run's interval — 1,000
  // by default — a probe's few hundred messages often leave no entry at all, and a working gate
  // was taken for a closed one (the battery then unplugged for nothing, and the run failed).
  // The run's own interval is put once the gate is known.
  const std::string probe_value = LooperSettingValue(session.previous, 1);
  auto probe_put = shell.Run(SettingsPutGlobal(kSetting, probe_value), deadline());
  if (auto r = co_await std::move(probe_put); !r) {
    co_return r.error();
  }
  // Also the first sign of a device without the service (Android 9: "Can't find service").
  auto first_reset = shell.Run(LooperStatsReset(), deadline());
  if (auto r = co_await std::move(first_reset); !r) {
    co_return CommandError{r.error().adb,
                           "looper stats unavailable on this device: " + r.error().message};
  }
  if (auto w = co_await workload(); !w) co_return w.error();
  auto rows = co_await DumpRows(shell, deadline());
  if (!rows) co_return rows.error();
  if (*rows > 0) {
    session.gate = "ignore_battery_status";
  } else {
    // This build ignores ignore_battery_status (or predates it): fake a discharging battery.
    // The reset is recorded before the unplug is sent: a timeout or a cancel after the phone
    // applied it must still reset the battery.
    store::DeviceRestore battery_restore = BatteryResetRestore();
    auto recording_battery = record(std::move(battery_restore));
    if (auto r = co_await std::move(recording_battery); !r) co_return r.error();
    session.unplugged = true;
    auto unplug = shell.Run(DumpsysBatteryUnplug(), deadline());
    if (auto r = co_await std::move(unplug); !r) {
      co_return r.error();
    }
    auto unplugged_reset = shell.Run(LooperStatsReset(), deadline());
    if (auto r = co_await std::move(unplugged_reset); !r) {
      co_return r.error();
    }
    if (auto w = co_await workload(); !w) co_return w.error();
    rows = co_await DumpRows(shell, deadline());
    if (!rows) co_return rows.error();
    if (*rows == 0) {
      co_return CommandError{std::nullopt,
                             "looper_stats recorded nothing, neither with "
                             "ignore_battery_status=true nor with the battery unplugged"};
    }
    session.gate = "battery_unplug";
  }
  // The run's sampling interval; then its window starts: the probe's rows are not the run's.
  if (session.value != probe_value) {
    auto settings_put = shell.Run(SettingsPutGlobal(kSetting, session.value), deadline());
    if (auto r = co_await std::move(settings_put); !r) {
      co_return r.error();
    }
  }
  auto run_window_reset = shell.Run(LooperStatsReset(), deadline());
  if (auto r = co_await std::move(run_window_reset); !r) {
    co_return r.error();
  }
  co_return true;
}

}  // namespace droidlab::orchestrator
