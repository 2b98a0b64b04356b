// OwedRestores: what undoes each change droidlab makes to a device, kept in the store
// (schema/0002_device_restores.sql) — the one mechanism that leaves a phone as found, whatever
// happens to the run or to the daemon.
//
// Before a run changes a device (`settings put global looper_stats`, `dumpsys battery unplug`;
// later a setprop, a compile, an install) it records what undoes the change, committed durably
// (Record: resumes once the row is on disk; an error and the change is not made). The unplug is
// recorded before the command is sent, so a timeout or a cancel after the phone applied it
// still resets the battery. A restore is marked paid once its command succeeded. What is not
// paid — the run's own restore failed (device unplugged, adb server gone), or the daemon died
// mid-run (kill -9, OOM, power cut) — stays owed in the store and is paid, by this process or
// the next one, as soon as the device is online: by the device registry when it sees the device
// (at start-up too), and by the device's next run before its preflight reads anything,
// whichever comes first. Never by the registry while a run is on the device (HoldForRun): that
// run's own restores are owed until its end, and paying them mid-run — a phone that blinked
// offline and back, or tracking reconnected, reads as "came online" — would undo the setting
// the run measures with (looper stats switched off between its probe and its dump). Without this, a
// phone keeps sampling looper stats (the setting survives reboots) and reports a fake battery until
// somebody notices, and the next run records the run's value as "the device's setting".
//
// After a reboot adbd answers seconds before system_server has published its services: then
// `settings put` fails ("cmd: Can't find service: settings", exit 20) and `dumpsys battery
// reset` exits 0 having done nothing. So a payer first waits (WaitUntilBooted) until
// sys.boot_completed is 1 and a harmless `settings get` answers; a restore that still meets a
// missing service is not paid. Either way it stays owed and is tried again (the next time the
// device comes online, or its next run).
//
// Payment: newest first, one command each (RestoreCommand); each success marked paid at once.
// Two owed restores of the same setting: the older holds the device's own value, and paid last
// it is the one the device ends with.
//
// Threading: Record and Pay run on the client's executor and never block it (the store's
// awaitable door); one payer per device at a time (a second one waits for the first).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "adb/client.h"
#include "base/result.h"
#include "orchestrator/run/device_shell.h"
#include "store/async_store.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

// The kinds of restore (store::DeviceRestore::kind).
inline constexpr char kRestoreGlobalSetting[] = "global_setting";  // name, previous (or delete)
inline constexpr char kRestoreBatteryReset[] = "battery_reset";    // `dumpsys battery reset`
// name, previous: `setprop NAME PREVIOUS`, or `setprop NAME ""` when it had none — a system
// property cannot be deleted from a shell; an empty one reads as unset (SystemProperties.getInt
// gives its default).
inline constexpr char kRestoreSystemProperty[] = "system_property";

store::DeviceRestore GlobalSettingRestore(std::string name, std::optional<std::string> previous);
store::DeviceRestore BatteryResetRestore();
store::DeviceRestore SystemPropertyRestore(std::string name, std::optional<std::string> previous);

// The command that undoes `restore`; an error for a kind this build does not know (it stays
// owed, for a build that does).
BasicResult<std::vector<std::string>, std::string> RestoreCommand(
    const store::DeviceRestore& restore);
// "looper_stats setting", "battery", "log.looper.10123.main.slow property": what a restore puts
// back, for logs.
std::string RestoreWhat(const store::DeviceRestore& restore);

// How a run records what undoes a change before it makes it: `restore` carries kind, name and
// previous; the recorder adds the device, the run and the time. Resumes once the record is
// committed durably; an error means the change must not be made.
using RecordRestore =
    std::function<boost::asio::awaitable<CommandResult<bool>>(store::DeviceRestore restore)>;

class OwedRestores {
 public:
  // `store` must outlive this. `now_ms`: wall clock in ms (default WallNowMs).
  explicit OwedRestores(store::Store& store, std::function<int64_t()> now_ms = nullptr);
  OwedRestores(const OwedRestores&) = delete;
  OwedRestores& operator=(const OwedRestores&) = delete;

  // Commits `restore` (serial set) as owed; its id once durable. created_at 0: now.
  boost::asio::awaitable<store::StoreResult<int64_t>> Record(store::DeviceRestore restore);

  // Puts back everything `serial` owes, if anything. Waits (until `deadline`) while another
  // caller is paying the same device, so that a run never reads a setting halfway through a
  // restore. Returns an error line when something owed could not be paid (it stays owed).
  // `leave_a_run_alone` (the registry's): nothing is paid while a run holds the device.
  boost::asio::awaitable<std::optional<std::string>> Pay(adb::Client& client, std::string serial,
                                                         adb::Deadline deadline,
                                                         std::function<void(std::string_view)> log,
                                                         bool leave_a_run_alone = false);

  // Blocking (a store read; not on an io thread): whether `serial` owes anything.
  bool Owes(const std::string& serial) const;

  // While the hold lives, a run is on `serial`: PayOwedRestore (the registry's) leaves the device
  // alone, and the run pays what it owes at its end (Pay). Held by the run executor until its
  // restore. A payment the registry left for the run is asked again of `pay_later` (below) when
  // the hold ends: the run's own restore may have failed meanwhile (a phone rebooted mid-run
  // answers before its settings service does).
  class RunHold {
   public:
    RunHold(OwedRestores& owed, std::string serial);
    RunHold(const RunHold&) = delete;
    RunHold& operator=(const RunHold&) = delete;
    ~RunHold();

   private:
    OwedRestores& owed_;
    std::string serial_;
  };
  bool RunOn(const std::string& serial) const;
  // Called (on the thread that ends the hold) with a serial the registry left alone during a run,
  // once that run's hold ends: the daemon pays it then as the registry would. May be empty.
  void PayWhenRunEnds(std::function<void(const std::string& serial)> pay_later);

 private:
  bool BeginPaying(const std::string& serial);
  void EndPaying(const std::string& serial);

  store::Store& store_;
  store::AsyncStore door_;
  std::function<int64_t()> now_ms_;
  mutable std::mutex mutex_;
  std::set<std::string> paying_;
  std::multiset<std::string> running_;  // RunHold's
  std::set<std::string> left_for_run_;  // the registry's payments left while a run held them
  std::function<void(const std::string&)> pay_later_;
};

// Polls (every 250 ms, until `deadline`) until `getprop sys.boot_completed` is 1 and
// `settings get global looper_stats` answers: the device has booted and its settings provider is
// up. nullopt then; else why not (the device gone, the deadline passed, cancelled).
boost::asio::awaitable<std::optional<std::string>> WaitUntilBooted(DeviceShell& shell,
                                                                   adb::Deadline deadline);

// owed.Pay(...) for the registry's on_online, unless a run is on the device (RunHold): then
// nothing is paid (nullopt; `log` says why) and the run's end pays.
boost::asio::awaitable<std::optional<std::string>> PayOwedRestore(
    OwedRestores& owed, adb::Client& client, std::string serial, adb::Deadline deadline,
    std::function<void(std::string_view)> log);

}  // namespace droidlab::orchestrator
