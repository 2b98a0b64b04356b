#include "orchestrator/lab/device_health.h"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>
#include <exception>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/lab/device_registry.h"
#include "orchestrator/lab/run_queue.h"
#include "orchestrator/run/cancelled.h"
#include "orchestrator/run/device_commands.h"
#include "orchestrator/stderr_log.h"
#include "parsers/dumpsys_battery.h"
#include "parsers/dumpsys_thermal.h"
#include "parsers/proc_stat.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

constexpr int64_t kDayMs = 24 * 3600 * 1000;

std::string WhyNoAnswer(const adb::Result<adb::ShellResult>& said) {
  if (!said) return said.error().message;
  return "it printed no uptime";
}

}  // namespace

void AdbCommandTally::Count(std::string_view serial, adb::Clock::duration elapsed, bool ok) {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  std::lock_guard lock(mutex_);
  for (auto* table : {&since_last_, &totals_}) {
    auto it = table->find(serial);
    if (it == table->end()) it = table->emplace(std::string(serial), Counts{}).first;
    ++it->second.commands;
    if (!ok) ++it->second.errors;
    it->second.seconds += seconds;
  }
}

AdbCommandTally::Counts AdbCommandTally::TakeSinceLast(std::string_view serial) {
  std::lock_guard lock(mutex_);
  auto it = since_last_.find(serial);
  if (it == since_last_.end()) return {};
  Counts counts = it->second;
  since_last_.erase(it);
  return counts;
}

std::map<std::string, AdbCommandTally::Counts, std::less<>> AdbCommandTally::Totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

struct DeviceHealthMonitor::Impl : std::enable_shared_from_this<Impl> {
  // One phone's state. The snapshot is read by any thread (under `mutex`); the rest is only
  // touched on the executor but kept beside it.
  struct Phone {
    DeviceHealthSnapshot snapshot;
    std::string state;              // the registry's last word
    bool seen_as_device = false;    // reconnects count only after the first time
    std::optional<int64_t> offline_since;
    int64_t next_check_at = 0;
    bool busy_task = false;         // a check or a ladder is under way
    bool unanswered_while_busy = false;  // said once per episode
    std::optional<int64_t> last_uptime_ms;
    std::deque<int64_t> ladder_reboots;  // when the ladder rebooted it, for the daily bound
  };

  Impl(adb::Client& c, store::Store& s, DeviceRegistry& r, DeviceHealthOptions o)
      : client(c), store(s), registry(r), options(std::move(o)) {
    if (!options.now_ms) options.now_ms = WallNowMs;
    if (!options.log) options.log = StderrLog("device_health");
  }

  adb::Client& client;
  store::AsyncStore store;
  DeviceRegistry& registry;
  DeviceHealthOptions options;

  mutable std::mutex mutex;
  std::map<std::string, Phone, std::less<>> phones;

  // Executor only.
  std::map<uint64_t, std::shared_ptr<asio::cancellation_signal>> tasks;
  uint64_t next_task = 0;
  std::shared_ptr<asio::steady_timer> tasks_done;
  std::optional<asio::any_io_executor> run_executor;  // Run's, once it started
  bool stopping = false;

  Phone& PhoneLocked(std::string_view serial) {
    auto it = phones.find(serial);
    if (it == phones.end()) {
      it = phones.emplace(std::string(serial), Phone{}).first;
      it->second.snapshot.serial = std::string(serial);
    }
    return it->second;
  }

  template <class F>
  void Update(std::string_view serial, F&& f) {
    std::lock_guard lock(mutex);
    f(PhoneLocked(serial));
  }

  // A check or ladder of its own, cancelled when the monitor stops.
  void Spawn(asio::any_io_executor on, asio::awaitable<void> task) {
    auto signal = std::make_shared<asio::cancellation_signal>();
    const uint64_t id = next_task++;
    tasks[id] = signal;
    auto self = shared_from_this();
    asio::co_spawn(on, std::move(task),
                   asio::bind_cancellation_slot(
                       signal->slot(), [self, id, on](std::exception_ptr e) {
                         if (e) {
                           try {
                             std::rethrow_exception(e);
                           } catch (const std::exception& x) {
                             self->options.log(std::string("health task failed: ") + x.what());
                           } catch (...) {
                             self->options.log("health task failed");
                           }
                         }
                         // The signal is still bound to this handler's slot: forget it later.
                         asio::post(on, [self, id] {
                           self->tasks.erase(id);
                           if (self->tasks.empty() && self->tasks_done) self->tasks_done->cancel();
                         });
                       }));
  }

  asio::awaitable<void> RecordEvent(std::string serial, std::string kind, std::string detail) {
    options.log("device " + serial + ": " + kind + ": " + detail);
    store::DeviceEvent event;
    event.serial = std::move(serial);
    event.host = options.host;
    event.at = options.now_ms();
    event.kind = std::move(kind);
    event.detail = std::move(detail);
    const std::string what = event.kind + " of " + event.serial;
    auto recording = store.RecordDeviceEvent(std::move(event));
    const store::Status recorded = co_await std::move(recording);
    if (!recorded) options.log("device event " + what + " not stored: " + recorded.error().message);
  }

  asio::awaitable<void> SyncQuarantines() {
    auto listing = store.ListDevices();
    auto devices = co_await std::move(listing);
    if (!devices) {
      options.log("quarantines not read: " + devices.error().message);
      co_return;
    }
    const int64_t now = options.now_ms();
    std::lock_guard lock(mutex);
    for (const store::Device& d : *devices) {
      auto it = phones.find(d.serial);
      if (it == phones.end()) {
        if (!d.quarantined_at) continue;
        it = phones.emplace(d.serial, Phone{}).first;
        it->second.snapshot.serial = d.serial;
      }
      DeviceHealthSnapshot& s = it->second.snapshot;
      if (s.quarantined_at && !d.quarantined_at) {
        // Released: checked again at once, the ladder's reboots forgiven.
        it->second.next_check_at = now;
        it->second.ladder_reboots.clear();
        s.answering = true;
      }
      s.quarantined_at = d.quarantined_at;
      s.quarantine_reason = d.quarantine_reason;
    }
  }

  void OnRegistryChange(const DeviceSnapshot& d) {
    const int64_t now = options.now_ms();
    std::lock_guard lock(mutex);
    Phone& p = PhoneLocked(d.serial);
    if (d.state == p.state) return;
    if (d.state == "device") {
      if (p.seen_as_device) ++p.snapshot.reconnects;
      p.seen_as_device = true;
    }
    if (d.state == "offline") {
      p.offline_since = now;
    } else {
      p.offline_since.reset();
    }
    p.state = d.state;
  }

  bool Busy(std::string_view serial) const { return options.busy && options.busy(serial); }

  // Checks, ladders and Run look at their cancellation themselves (Cancelled()), so an awaited
  // operation never throws operation_aborted at them.
  asio::awaitable<void> Check(std::string serial_text) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto serial = adb::Serial::Parse(serial_text);
    if (!serial) {
      Update(serial_text, [](Phone& p) { p.busy_task = false; });
      co_return;
    }
    const bool busy = Busy(serial_text);
    store::DeviceHealthSample sample;
    sample.serial = serial_text;
    sample.host = options.host;
    sample.at = options.now_ms();
    const std::vector<std::string> uptime_argv = CatProcUptime();
    auto asking = client.ShellArgv(*serial, uptime_argv,
                                   adb::DeadlineAfter(options.recovery.probe_timeout));
    auto said = co_await std::move(asking);
    const bool cancelled = co_await Cancelled();
    if (cancelled) co_return;
    std::optional<parsers::ProcUptime> uptime;
    if (said) {
      if (auto parsed = parsers::ParseProcUptime(said->out)) uptime = *parsed;
    }
    if (!uptime) {
      const std::string why = WhyNoAnswer(said);
      bool tell = true;
      Update(serial_text, [&](Phone& p) {
        ++p.snapshot.checks;
        ++p.snapshot.unanswered_checks;
        p.snapshot.answering = false;
        p.snapshot.checked_at = sample.at;
        if (busy) {
          tell = !p.unanswered_while_busy;
          p.unanswered_while_busy = true;
        }
      });
      auto storing = StoreSample(std::move(sample));
      co_await std::move(storing);
      if (busy) {
        if (tell) {
          std::string detail = "no answer to `cat /proc/uptime` within " +
                               std::to_string(options.recovery.probe_timeout.count()) +
                               " ms (" + why + ") while a run is on it: the ladder waits for "
                               "the run to end";
          auto noting = RecordEvent(serial_text, "unresponsive", std::move(detail));
          co_await std::move(noting);
        }
        Update(serial_text, [](Phone& p) { p.busy_task = false; });
        co_return;
      }
      std::string detail = "no answer to `cat /proc/uptime` within " +
                           std::to_string(options.recovery.probe_timeout.count()) + " ms (" +
                           why + ")";
      auto recovering = Recover(serial_text, std::move(detail));
      co_await std::move(recovering);
      co_return;
    }
    sample.uptime_ms = uptime->uptime_cs * 10;
    std::optional<int64_t> uptime_before;
    Update(serial_text, [&](Phone& p) {
      uptime_before = p.last_uptime_ms;
      p.last_uptime_ms = sample.uptime_ms;
      p.unanswered_while_busy = false;
    });
    if (uptime_before && *sample.uptime_ms < *uptime_before) {
      Update(serial_text, [](Phone& p) { ++p.snapshot.reboots; });
      std::string detail = "its uptime went from " + std::to_string(*uptime_before / 1000) +
                           " s to " + std::to_string(*sample.uptime_ms / 1000) + " s";
      auto noting = RecordEvent(serial_text, "rebooted", std::move(detail));
      co_await std::move(noting);
    }
    if (!busy) {
      const std::vector<std::string> battery_argv = DumpsysBattery();
      auto reading = client.ShellArgv(*serial, battery_argv,
                                      adb::DeadlineAfter(options.recovery.probe_timeout));
      auto battery = co_await std::move(reading);
      if (battery) {
        if (auto parsed = parsers::ParseDumpsysBattery(battery->out)) {
          if (parsed->level) sample.battery_level = *parsed->level;
          if (parsed->temperature_tenths_c) sample.battery_temp = *parsed->temperature_tenths_c;
        }
      }
      const std::vector<std::string> thermal_argv = DumpsysThermalservice();
      auto asking_thermal = client.ShellArgv(*serial, thermal_argv,
                                             adb::DeadlineAfter(options.recovery.probe_timeout));
      auto thermal = co_await std::move(asking_thermal);
      if (thermal) {
        // Android 9's native thermalservice prints nothing: no status, not an error.
        if (auto parsed = parsers::ParseDumpsysThermal(thermal->out)) {
          sample.thermal_status = parsed->thermal_status;
        }
      }
    }
    Update(serial_text, [&](Phone& p) {
      DeviceHealthSnapshot& s = p.snapshot;
      ++s.checks;
      s.answering = true;
      s.checked_at = sample.at;
      if (sample.battery_level) s.battery_level = sample.battery_level;
      if (sample.battery_temp) s.battery_temp_tenths = sample.battery_temp;
      if (sample.thermal_status) s.thermal_status = sample.thermal_status;
      p.busy_task = false;
    });
    auto storing = StoreSample(std::move(sample));
    co_await std::move(storing);
  }

  asio::awaitable<void> StoreSample(store::DeviceHealthSample sample) {
    if (options.tally != nullptr) {
      const AdbCommandTally::Counts counts = options.tally->TakeSinceLast(sample.serial);
      sample.adb_commands = static_cast<int64_t>(counts.commands);
      sample.adb_errors = static_cast<int64_t>(counts.errors);
      sample.adb_ms = static_cast<int64_t>(counts.seconds * 1000);
    }
    const std::string serial = sample.serial;
    auto storing = store.RecordDeviceHealth(std::move(sample));
    const store::Status stored = co_await std::move(storing);
    if (!stored) options.log("health of " + serial + " not stored: " + stored.error().message);
  }

  // The ladder for a phone that does not answer (`why`), then its quarantine if it did not help.
  asio::awaitable<void> Recover(std::string serial_text, std::string why) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto serial = adb::Serial::Parse(serial_text);
    if (!serial) {
      // Not a serial adb would take (never from adb's own list): leave it to the next check.
      Update(serial_text, [](Phone& p) { p.busy_task = false; });
      co_return;
    }
    const int64_t now = options.now_ms();
    bool may_reboot = false;
    Update(serial_text, [&](Phone& p) {
      p.snapshot.recovering = true;
      while (!p.ladder_reboots.empty() && p.ladder_reboots.front() <= now - kDayMs) {
        p.ladder_reboots.pop_front();
      }
      may_reboot = options.recovery.allow_reboot &&
                   static_cast<int>(p.ladder_reboots.size()) < options.max_reboots_per_day;
    });
    {
      std::string detail = why + "; climbing the recovery ladder";
      auto noting = RecordEvent(serial_text, "unresponsive", std::move(detail));
      co_await std::move(noting);
    }
    auto self = shared_from_this();
    RecoveryRecorder record = [self, serial_text](std::string kind, std::string detail) {
      return self->RecordEvent(serial_text, std::move(kind), std::move(detail));
    };
    auto climbing =
        ClimbRecoveryLadder(client, *serial, options.recovery, may_reboot, std::move(record));
    const RecoveryResult result = co_await std::move(climbing);
    const bool cancelled = co_await Cancelled();
    const int64_t after = options.now_ms();
    Update(serial_text, [&](Phone& p) {
      DeviceHealthSnapshot& s = p.snapshot;
      if (result.steps_taken >= 1) ++s.transport_reconnects;
      if (result.steps_taken >= 2) ++s.device_reconnects;
      if (result.steps_taken >= 3) {
        ++s.reboot_requests;
        p.ladder_reboots.push_back(after);
      }
      s.recovering = false;
      s.answering = result.recovered;
      p.next_check_at = after + options.interval.count();
      p.offline_since.reset();
      if (cancelled || result.recovered) p.busy_task = false;
    });
    if (cancelled || result.recovered) co_return;
    std::string tried = "reconnect_transport, reconnect_device";
    if (may_reboot) {
      tried += ", reboot";
    } else if (options.recovery.allow_reboot) {
      tried += " (no reboot: " + std::to_string(options.max_reboots_per_day) +
               " already in the last 24 h)";
    } else {
      tried += " (reboots not allowed: recovery_reboot is off)";
    }
    store::DeviceEvent event;
    event.serial = serial_text;
    event.host = options.host;
    event.at = after;
    event.kind = "quarantined";
    event.detail = "stopped answering (" + why + "); the ladder did not bring it back: " + tried +
                   ". Out of every pool until released: POST /api/v1/devices/" + serial_text +
                   "/release";
    options.log("device " + serial_text + ": quarantined: " + event.detail);
    const std::string reason = event.detail;
    auto quarantining = store.QuarantineDevice(std::move(event));
    const store::Status quarantined = co_await std::move(quarantining);
    if (!quarantined) {
      options.log("quarantine of " + serial_text + " not stored: " + quarantined.error().message);
    }
    Update(serial_text, [&](Phone& p) {
      if (!p.snapshot.quarantined_at) {
        p.snapshot.quarantined_at = after;
        p.snapshot.quarantine_reason = reason;
      }
      p.busy_task = false;
    });
  }

  asio::awaitable<void> Run() {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto executor = co_await asio::this_coro::executor;
    run_executor = executor;
    auto self = shared_from_this();
    const uint64_t subscription =
        registry.Subscribe([self](const DeviceSnapshot& d) { self->OnRegistryChange(d); });
    for (const DeviceSnapshot& d : registry.Snapshot()) OnRegistryChange(d);
    asio::steady_timer tick(executor);
    int64_t next_sync = 0;
    for (;;) {
      const int64_t now = options.now_ms();
      if (now >= next_sync) {
        auto syncing = SyncQuarantines();
        co_await std::move(syncing);
        next_sync = now + options.quarantine_sync.count();
      }
      for (const DeviceSnapshot& d : registry.Snapshot()) {
        if (d.state != "device" && d.state != "offline") continue;
        const bool busy = Busy(d.serial);
        std::optional<std::string> offline_why;
        bool check = false;
        {
          std::lock_guard lock(mutex);
          Phone& p = PhoneLocked(d.serial);
          if (p.busy_task || p.snapshot.quarantined_at) continue;
          if (d.state == "device" && now >= p.next_check_at) {
            check = true;
          } else if (d.state == "offline" && p.offline_since && !busy &&
                     now - *p.offline_since >= options.interval.count()) {
            offline_why = "adb has listed it offline for " +
                          std::to_string((now - *p.offline_since) / 1000) + " s";
          }
          if (check || offline_why) {
            p.busy_task = true;
            p.next_check_at = now + options.interval.count();
          }
        }
        if (check) {
          Spawn(executor, Check(d.serial));
        } else if (offline_why) {
          Spawn(executor, Recover(d.serial, std::move(*offline_why)));
        }
      }
      tick.expires_after(std::chrono::milliseconds(250));
      boost::system::error_code ec;
      co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      const bool cancelled = co_await Cancelled();
      if (ec || cancelled) break;
    }
    registry.Unsubscribe(subscription);
    stopping = true;
    co_await asio::this_coro::reset_cancellation_state();
    if (!tasks.empty()) {
      tasks_done = std::make_shared<asio::steady_timer>(executor,
                                                        asio::steady_timer::time_point::max());
      for (auto& [id, signal] : tasks) signal->emit(asio::cancellation_type::terminal);
      boost::system::error_code ec;
      while (!tasks.empty()) {
        co_await tasks_done->async_wait(asio::redirect_error(asio::use_awaitable, ec));
      }
    }
  }
};

DeviceHealthMonitor::DeviceHealthMonitor(adb::Client& client, store::Store& store,
                                         DeviceRegistry& registry, DeviceHealthOptions options)
    : impl_(std::make_shared<Impl>(client, store, registry, std::move(options))) {}

DeviceHealthMonitor::~DeviceHealthMonitor() = default;

asio::awaitable<void> DeviceHealthMonitor::Run() {
  auto self = impl_;
  co_await self->Run();
}

void DeviceHealthMonitor::CountRunEnd(const RunEvent& event) {
  if (event.status != store::RunStatus::kFailed || !event.device_fault) return;
  impl_->Update(event.serial, [](Impl::Phone& p) { ++p.snapshot.runs_failed; });
  std::string detail =
      "run " + std::to_string(event.run_id) + " failed: " + event.error.value_or("no reason given");
  if (!impl_->run_executor || impl_->stopping) return;  // not running: counted, not stored
  impl_->Spawn(*impl_->run_executor,
               impl_->RecordEvent(event.serial, "run_failed", std::move(detail)));
}

std::vector<DeviceHealthSnapshot> DeviceHealthMonitor::Snapshot() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<DeviceHealthSnapshot> out;
  out.reserve(impl_->phones.size());
  for (const auto& [serial, phone] : impl_->phones) out.push_back(phone.snapshot);
  return out;
}

bool DeviceHealthMonitor::Quarantined(std::string_view serial) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->phones.find(serial);
  return it != impl_->phones.end() && it->second.snapshot.quarantined_at.has_value();
}

}  // namespace droidlab::orchestrator
