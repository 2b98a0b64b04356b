#include "orchestrator/lab/run_queue.h"

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/lab/history_alerts.h"
#include "orchestrator/lab/run_summaries.h"
#include "orchestrator/listeners.h"
#include "orchestrator/stderr_log.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {


RunQueueError Unavailable(std::string message) {
  return RunQueueError{RunQueueError::Code::kUnavailable, "", std::move(message)};
}

std::string ExceptionText(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "unknown exception";
  }
}

// Waits until `timer` is cancelled (the steady_timer as an event: it never expires by itself).
asio::awaitable<void> WaitForSignal(asio::steady_timer& timer) {
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace

struct RunQueue::Impl : std::enable_shared_from_this<Impl> {
  struct Queued {
    int64_t run_id = 0;
    RunSpec spec;
  };
  struct Device {
    std::deque<Queued> queue;
    bool busy = false;  // a worker coroutine serves this device
    std::optional<int64_t> current;
    std::shared_ptr<asio::cancellation_signal> cancel;
    std::vector<std::shared_ptr<asio::steady_timer>> current_done;  // Cancel's waiters
  };

  Impl(store::Store& s, RunExecuteFunction e, RunQueueOptions o)
      : store(s), execute(std::move(e)), options(std::move(o)) {
    if (!options.now_ms) options.now_ms = WallNowMs;
    if (!options.log) options.log = StderrLog("run_queue");
  }

  store::AsyncStore store;
  RunExecuteFunction execute;
  RunQueueOptions options;

  // The executor's thread only.
  std::optional<asio::any_io_executor> executor;
  std::map<std::string, Device, std::less<>> devices;
  std::set<int64_t> enqueued;  // every run this queue has taken, so none is taken twice
  bool stopping = false;
  int workers = 0;
  std::shared_ptr<asio::steady_timer> workers_done;
  // The claim loop (Run): its wait, cancelled to wake it; a wake that came while it was busy.
  std::shared_ptr<asio::steady_timer> claim_wait;
  bool woken = false;
  int64_t last_renewed_ms = 0;  // the last renewal the store accepted (LeaseNow's clock)
  // Claims and their leases are kept in the database server's clock, which every host of a lab
  // shares (store::Reader::DatabaseClockMs): this host's clock plus this offset, measured at
  // each renewal. With each host's own clock, one running a minute behind wrote leases the
  // others saw as lapsed and lost the runs it was measuring; one ahead kept a dead host's runs
  // from the others as long. 0 on SQLite (one host: its clock is the database's).
  int64_t clock_offset_ms = 0;

  // Any thread.
  mutable std::mutex mutex;
  std::map<int64_t, RunProgress> progress;
  // Other hosts' runs (Announce): their progress while they run, and the newest ends heard (an
  // ended run's id never runs again: a pool run interrupted is queued again under a new id).
  struct RemoteRuns {
    static constexpr size_t kEndsKept = 4096;
    std::map<int64_t, RunProgress> progress;
    std::set<int64_t> ended;
    std::deque<int64_t> ended_order;
  } remote;
  std::map<std::string, size_t, std::less<>> pending;
  Listeners<RunEvent> listeners;

  void Emit(const RunEvent& event) { listeners.Emit(event); }

  void AddPending(const std::string& serial, int delta) {
    std::lock_guard lock(mutex);
    size_t& n = pending[serial];
    n = static_cast<size_t>(static_cast<int64_t>(n) + delta);
    if (n == 0) pending.erase(serial);
  }

  asio::awaitable<store::Status> SetStatus(int64_t run_id, store::RunStatus status,
                                           std::optional<std::string> error) {
    store::RunStatusUpdate update;
    update.run_id = run_id;
    update.status = status;
    update.error = std::move(error);
    update.finished_at = options.now_ms();
    auto updating = store.UpdateRunStatus(std::move(update));
    co_return co_await std::move(updating);
  }

  void Enqueue(int64_t run_id, RunSpec spec) {
    if (!enqueued.insert(run_id).second) return;  // Recover and Submit may meet at start-up
    const std::string serial = spec.serial;
    Device& device = devices[serial];
    device.queue.push_back(Queued{run_id, std::move(spec)});
    AddPending(serial, +1);
    if (device.busy) return;
    device.busy = true;
    ++workers;
    auto self = shared_from_this();
    asio::co_spawn(*executor, ServeDevice(self, serial),
                   [self, serial](std::exception_ptr e) {
                     if (e) self->options.log(serial + ": device worker died: " + ExceptionText(e));
                   });
  }

  // One device's runs, one after the other, until its queue is empty.
  static asio::awaitable<void> ServeDevice(std::shared_ptr<Impl> self, std::string serial) {
    for (;;) {
      if (self->devices[serial].queue.empty() || self->stopping) break;
      // Quarantined since its runs were claimed (schema 0019): none of them starts on it.
      auto checking = self->Quarantined(serial);
      const bool quarantined = co_await std::move(checking);
      if (quarantined) {
        auto giving_back = self->GiveBackQueued(serial);
        co_await std::move(giving_back);
        continue;
      }
      Device& device = self->devices[serial];
      if (device.queue.empty() || self->stopping) break;
      Queued next = std::move(device.queue.front());
      device.queue.pop_front();
      device.current = next.run_id;
      device.cancel = std::make_shared<asio::cancellation_signal>();
      co_await self->RunOne(serial, next, device.cancel);
      Device& after = self->devices[serial];
      after.current.reset();
      after.cancel.reset();
      for (auto& waiter : after.current_done) waiter->cancel();
      after.current_done.clear();
      self->AddPending(serial, -1);
    }
    self->devices[serial].busy = false;
    if (--self->workers == 0 && self->workers_done) self->workers_done->cancel();
    self->Wake();  // the phone is idle: it may take the next run at once
  }

  asio::awaitable<void> RunOne(const std::string& serial, const Queued& run,
                               std::shared_ptr<asio::cancellation_signal> cancel) {
    {
      std::lock_guard lock(mutex);
      progress[run.run_id] =
          RunProgress{run.run_id, "preflight", 0, run.spec.iterations, 0};
    }
    // No event yet: the run is `running` once the executor committed it, and says so then.

    RunExecutorOptions run_options = options.executor;
    auto weak = weak_from_this();
    run_options.on_progress = [weak, serial](const RunProgress& p) {
      auto self = weak.lock();
      if (!self) return;
      {
        std::lock_guard lock(self->mutex);
        self->progress[p.run_id] = p;
      }
      const store::RunStatus status = p.running ? store::RunStatus::kRunning : store::RunStatus::kQueued;
      self->Emit(RunEvent{p.run_id, serial, status, p, {}, false});
    };

    // The run in a coroutine of its own, so that its cancellation slot is ours to signal.
    auto done = std::make_shared<asio::steady_timer>(*executor, asio::steady_timer::time_point::max());
    auto outcome = std::make_shared<std::optional<RunOutcome>>();
    auto failure = std::make_shared<std::string>();
    asio::co_spawn(*executor, execute(run.run_id, run.spec, std::move(run_options)),
                   asio::bind_cancellation_slot(
                       cancel->slot(), [done, outcome, failure](std::exception_ptr e, RunOutcome o) {
                         if (e) {
                           *failure = ExceptionText(e);
                         } else {
                           *outcome = std::move(o);
                         }
                         done->cancel();
                       }));
    co_await WaitForSignal(*done);

    RunEvent finished{run.run_id,   serial,       store::RunStatus::kFailed,
                      std::nullopt, std::nullopt, false};
    bool stored = true;  // the end is on disk: only then is it announced
    if (*outcome) {
      finished.status = (*outcome)->status;
      finished.error = (*outcome)->error;
      finished.device_fault = (*outcome)->device_fault;
      stored = (*outcome)->status_stored;
    } else {
      // The executor broke its promise to record the end itself: record it here.
      finished.error = "internal error: " + *failure;
      options.log(serial + " run " + std::to_string(run.run_id) + ": " + *finished.error);
      auto s = co_await SetStatus(run.run_id, store::RunStatus::kFailed, finished.error);
      if (!s) options.log("run " + std::to_string(run.run_id) + ": " + s.error().message);
      stored = s.ok();
    }
    {
      std::lock_guard lock(mutex);
      progress.erase(run.run_id);
    }
    bool alert = false;
    if (stored && finished.status == store::RunStatus::kSucceeded) {
      // Its point of the series is in place before its end is announced. A summary not
      // stored is not the run's failure: the back-fill at the next start writes it.
      auto summarizing = RecordRunSummaries(store, run.run_id);
      const store::Status summarized = co_await std::move(summarizing);
      if (!summarized) {
        options.log("run " + std::to_string(run.run_id) +
                    ": summary not stored: " + summarized.error().message);
      }
      alert = summarized.ok() && options.alerts != nullptr;
    }
    if (!stored) {
      options.log("run " + std::to_string(run.run_id) + ": its end (" +
                  store::RunStatusName(finished.status) +
                  ") is not announced: the store could not record it");
      co_return;
    }
    Emit(finished);
    if (alert) {
      // After the end is announced: judging the history never delays it.
      auto alerting = RaiseHistoryAlerts(store, *options.alerts, run.run_id, options.log);
      co_await std::move(alerting);
    }
  }

  // ---- Claims (issue 17 §2; run_queue.h says how they work).

  void Wake() {
    woken = true;
    if (claim_wait) claim_wait->cancel();
  }

  int64_t LeaseNow() const { return options.now_ms() + clock_offset_ms; }
  int64_t LeaseUntil() const { return LeaseNow() + options.lease_ms; }

  // clock_offset_ms measured: the server's clock against the middle of the round trip that
  // read it. A failed read keeps the last offset (the renewal that follows says why).
  asio::awaitable<void> MeasureClockOffset() {
    const int64_t asked = options.now_ms();
    auto reading = store.Read([](store::Reader& r) { return r.DatabaseClockMs(); });
    auto server = co_await std::move(reading);
    const int64_t answered = options.now_ms();
    if (!server) co_return;
    if (!*server) {
      clock_offset_ms = 0;
      co_return;
    }
    const int64_t offset = **server - asked / 2 - answered / 2;
    if (std::abs(offset) >= 1000 && std::abs(offset - clock_offset_ms) >= 1000) {
      options.log("this host's clock is " + std::to_string(std::abs(offset) / 1000) + " s " +
                  (offset > 0 ? "behind" : "ahead of") +
                  " the database server's: its claims are kept in the server's time");
    }
    clock_offset_ms = offset;
  }

  bool Idle(const std::string& serial) const {
    auto it = devices.find(serial);
    return it == devices.end() || (!it->second.busy && it->second.queue.empty());
  }

  // Whether the store says another host holds `serial` now (its runs are that host's to claim),
  // or that the phone is quarantined (schema 0019: its runs wait, unclaimed, until an operator
  // releases it and it claims them as an idle phone). One host (no local_phones): never.
  asio::awaitable<bool> HeldElsewhere(std::string serial) {
    if (!options.local_phones) co_return false;
    auto reading = store.GetDevice(std::move(serial));
    auto device = co_await std::move(reading);
    if (!device.ok()) co_return false;
    co_return (device->host && *device->host != options.host) || device->quarantined_at.has_value();
  }

  // Whether the store has `serial` quarantined; with claims only (local_phones), as HeldElsewhere.
  asio::awaitable<bool> Quarantined(std::string serial) {
    if (!options.local_phones) co_return false;
    auto reading = store.GetDevice(std::move(serial));
    auto device = co_await std::move(reading);
    co_return device.ok() && device->quarantined_at.has_value();
  }

  // The runs queued here for a quarantined phone, given back unclaimed: a run for its serial
  // waits for the phone's release (then its idle phone claims it again), a pool run goes to any
  // phone that matches. One the store would not take back stays claimed until its lease lapses.
  asio::awaitable<void> GiveBackQueued(std::string serial) {
    std::deque<Queued> queued;
    queued.swap(devices[serial].queue);
    for (const Queued& run : queued) {
      AddPending(serial, -1);
      enqueued.erase(run.run_id);  // this host may claim it again once the phone is released
      const std::string id = std::to_string(run.run_id);
      auto releasing = store.ReleaseClaim(run.run_id, options.host);
      auto released = co_await std::move(releasing);
      if (!released) {
        options.log("run " + id + ": its claim could not be given back (it lapses instead): " +
                    released.error().message);
      } else if (*released) {
        options.log("run " + id + ": not started on " + serial +
                    ", quarantined: given back unclaimed");
      }
    }
  }

  // Run `id` (a run for a serial) claimed for this host and queued here; false when another
  // host claimed it first, it was cancelled meanwhile, or the store refused (logged).
  asio::awaitable<bool> ClaimAndEnqueue(int64_t id, RunSpec spec) {
    store::RunClaim claim{options.host, spec.serial, id, LeaseUntil()};
    auto claiming = store.ClaimRun(std::move(claim));
    auto claimed = co_await std::move(claiming);
    if (!claimed) {
      options.log("run " + std::to_string(id) + ": could not claim it: " + claimed.error().message);
      co_return false;
    }
    if (!*claimed) co_return false;
    Enqueue(id, std::move(spec));
    co_return true;
  }

  // Each idle phone of this host claims the oldest run it may take: one for its serial or for a
  // pool it matches. One durable commit for all of them.
  asio::awaitable<void> ClaimForIdlePhones() {
    std::vector<std::string> idle;
    for (std::string& serial : options.local_phones()) {
      if (Idle(serial)) idle.push_back(std::move(serial));
    }
    if (idle.empty() || stopping) co_return;
    // A read first: a claim is a durable commit, and most passes of an idle lab find nothing.
    store::RunQuery query;
    query.status = store::RunStatus::kQueued;
    query.limit = 100;
    auto listing = store.ListRuns(query);
    auto queued = co_await std::move(listing);
    if (queued) {
      bool unclaimed = false;
      for (const store::Run& run : queued->runs) unclaimed = unclaimed || !run.host;
      // Only the newest 100 were read: with that many queued, claim anyway.
      if (!unclaimed && queued->next_cursor.empty()) co_return;
    }
    auto claiming = store.ClaimRunsForPhones(options.host, std::move(idle), LeaseUntil());
    auto claimed = co_await std::move(claiming);
    if (!claimed) {
      options.log("could not claim runs for this host's idle phones: " + claimed.error().message);
      co_return;
    }
    for (const store::PhoneClaim& claim : *claimed) {
      auto reading = store.GetRun(claim.run_id);
      auto run = co_await std::move(reading);
      const std::string id = std::to_string(claim.run_id);
      if (!run) {
        // Still claimed: its lease lapses and any host may claim it again.
        options.log("run " + id + ": claimed but not read: " + run.error().message);
        continue;
      }
      auto spec = ParseRunSpec(run->spec_json);
      if (!spec) {
        std::string why =
            "stored spec no longer valid: " + spec.error().field + ": " + spec.error().message;
        auto failing = SetStatus(claim.run_id, store::RunStatus::kFailed, std::move(why));
        auto s = co_await std::move(failing);
        if (!s) options.log("run " + id + ": " + s.error().message);
        continue;
      }
      spec->serial = claim.serial;  // a pool run's: the phone that claimed it
      Enqueue(claim.run_id, std::move(*spec));
    }
  }

  // The runs this queue holds now: queued here or running.
  std::vector<int64_t> HeldHere() const {
    std::vector<int64_t> held;
    for (const auto& [serial, device] : devices) {
      if (device.current) held.push_back(*device.current);
      for (const Queued& q : device.queue) held.push_back(q.run_id);
    }
    return held;
  }

  // A run this queue holds, cancelled: a queued one recorded `cancelled` at once, a running one
  // signalled and waited for (its executor restores the phone and records the end). Whether the
  // run was here; a store failure in `failure`.
  asio::awaitable<bool> CancelHere(int64_t run_id, std::string* failure) {
    std::string serial;
    bool was_queued = false;
    std::shared_ptr<asio::steady_timer> running_done;
    for (auto& [s, device] : devices) {
      for (auto it = device.queue.begin(); it != device.queue.end(); ++it) {
        if (it->run_id != run_id) continue;
        device.queue.erase(it);
        serial = s;
        was_queued = true;
        break;
      }
      if (was_queued) break;
      if (device.current == run_id) {
        serial = s;
        running_done =
            std::make_shared<asio::steady_timer>(*executor, asio::steady_timer::time_point::max());
        device.current_done.push_back(running_done);
        device.cancel->emit(asio::cancellation_type::terminal);
        break;
      }
    }
    if (was_queued) {
      AddPending(serial, -1);
      // Every terminal run says why, as the executor's "cancelled during …" does for a running one.
      const std::string why = "cancelled before it started";
      auto s = co_await SetStatus(run_id, store::RunStatus::kCancelled, why);
      if (!s) {
        *failure = "the cancel could not be stored: " + s.error().message;
      } else {
        Emit(RunEvent{run_id, serial, store::RunStatus::kCancelled, std::nullopt, why, false});
      }
    } else if (running_done) {
      co_await WaitForSignal(*running_done);
    }
    co_return was_queued || running_done;
  }

  // A run whose claim this host lost (another host ended it, or this one could not renew):
  // dropped if queued here, stopped if running (its phone restored). Its stored end is the
  // other host's to write.
  void Drop(int64_t run_id, const std::string& why) {
    for (auto& [serial, device] : devices) {
      for (auto it = device.queue.begin(); it != device.queue.end(); ++it) {
        if (it->run_id != run_id) continue;
        device.queue.erase(it);
        AddPending(serial, -1);
        options.log("run " + std::to_string(run_id) + ": dropped: " + why);
        return;
      }
      if (device.current == run_id && device.cancel) {
        options.log("run " + std::to_string(run_id) + ": stopped: " + why);
        device.cancel->emit(asio::cancellation_type::terminal);
        return;
      }
    }
  }

  // This host's claims renewed; nothing held here, nothing to renew (it is a durable commit).
  asio::awaitable<store::StoreResult<store::RenewedLeases>> RenewHeld(int64_t lease_until) {
    if (HeldHere().empty()) co_return store::RenewedLeases{};
    auto renewing = store.RenewLeases(options.host, lease_until);
    co_return co_await std::move(renewing);
  }

  // Renews this host's claims, acts on the cancels asked of them through other daemons, then
  // ends the claims of hosts that stopped renewing theirs.
  static asio::awaitable<void> RenewClaims(std::shared_ptr<Impl> self) {
    auto measuring = self->MeasureClockOffset();
    co_await std::move(measuring);
    const int64_t now = self->LeaseNow();
    auto renewing = self->RenewHeld(now + self->options.lease_ms);
    auto renewed = co_await std::move(renewing);
    if (!renewed) {
      self->options.log("could not renew this host's claims: " + renewed.error().message);
      // Stopped before the lease can lapse (two renewals early), so that no other host starts a
      // run this one still measures (the lease is in the server's time: clock_offset_ms).
      const int64_t margin = 2 * static_cast<int64_t>(self->options.renew_every.count());
      if (now - self->last_renewed_ms >= std::max<int64_t>(self->options.lease_ms - margin, 0)) {
        const std::string why = "this host could not renew its claims for " +
                                std::to_string((now - self->last_renewed_ms) / 1000) +
                                " s: another host may take its runs";
        for (int64_t id : self->HeldHere()) self->Drop(id, why);
      }
    } else {
      self->last_renewed_ms = now;
      const std::set<int64_t> held(renewed->held.begin(), renewed->held.end());
      for (int64_t id : self->HeldHere()) {
        if (held.count(id) == 0) self->Drop(id, "its claim lapsed and another host ended it");
      }
      for (int64_t id : renewed->cancel_requested) {
        // Cancelled as a cancel through this daemon would be; not awaited here.
        asio::co_spawn(*self->executor, CancelAsked(self, id), asio::detached);
      }
    }
    store::LeaseExpiry expiry;
    expiry.now_ms = now;
    auto expiring = self->store.ExpireLeases(std::move(expiry));
    auto expired = co_await std::move(expiring);
    if (!expired) {
      self->options.log("could not end lapsed claims: " + expired.error().message);
      co_return;
    }
    // Their ends reach every daemon's listeners through the store (Announce), as any other
    // host's change does.
    if (!expired->interrupted.empty() || expired->released > 0) {
      self->options.log(std::to_string(expired->interrupted.size()) +
                        " run(s) of hosts that stopped answering interrupted (" +
                        std::to_string(expired->requeued.size()) + " pool run(s) queued again), " +
                        std::to_string(expired->released) + " claim(s) released");
      self->Wake();
    }
  }

  static asio::awaitable<void> CancelAsked(std::shared_ptr<Impl> self, int64_t run_id) {
    std::string failure;
    auto cancelling = self->CancelHere(run_id, &failure);
    co_await std::move(cancelling);
    if (!failure.empty()) self->options.log("run " + std::to_string(run_id) + ": " + failure);
  }

  // Start-up: this host's claims from before end (its runs left running `interrupted`, its
  // queued ones released; a pool run queued again), then the runs left queued for a phone no
  // other host holds are claimed and queued again here, oldest first.
  asio::awaitable<void> Recover() {
    auto measuring = MeasureClockOffset();
    co_await std::move(measuring);
    store::LeaseExpiry expiry;
    expiry.now_ms = LeaseNow();
    expiry.restarting_host = options.host;
    expiry.restart_reason = "the daemon stopped while the run was running";
    auto expiring = store.ExpireLeases(std::move(expiry));
    auto expired = co_await std::move(expiring);
    if (!expired) {
      options.log("could not mark runs interrupted: " + expired.error().message);
    } else if (!expired->interrupted.empty()) {
      options.log(std::to_string(expired->interrupted.size()) +
                  " run(s) left running marked interrupted");
    }
    last_renewed_ms = LeaseNow();
    std::vector<store::Run> queued;
    store::RunQuery query;
    query.status = store::RunStatus::kQueued;
    query.limit = 1000;
    for (;;) {
      auto listing = store.ListRuns(query);
      auto page = co_await std::move(listing);
      if (!page) {
        options.log("could not read queued runs: " + page.error().message);
        break;
      }
      for (auto& run : page->runs) queued.push_back(std::move(run));
      if (page->next_cursor.empty()) break;
      query.cursor = page->next_cursor;
    }
    for (auto it = queued.rbegin(); it != queued.rend(); ++it) {
      if (it->pool || it->host) continue;  // a pool's: claimed by a phone; a host's: its own
      auto spec = ParseRunSpec(it->spec_json);
      if (!spec) {
        const std::string why = "stored spec no longer valid: " + spec.error().field + ": " +
                                spec.error().message;
        auto s = co_await SetStatus(it->id, store::RunStatus::kFailed, why);
        if (!s) options.log("run " + std::to_string(it->id) + ": " + s.error().message);
        continue;
      }
      auto checking = HeldElsewhere(spec->serial);
      const bool elsewhere = co_await std::move(checking);
      if (elsewhere) continue;
      auto claiming = ClaimAndEnqueue(it->id, std::move(*spec));
      co_await std::move(claiming);
    }
  }

  std::optional<RunProgress> Progress(int64_t run_id) const {
    std::lock_guard lock(mutex);
    if (auto it = progress.find(run_id); it != progress.end()) return it->second;
    if (auto it = remote.progress.find(run_id); it != remote.progress.end()) return it->second;
    return std::nullopt;
  }
};

RunQueue::RunQueue(store::Store& store, RunExecuteFunction execute, RunQueueOptions options)
    : impl_(std::make_shared<Impl>(store, std::move(execute), std::move(options))) {}

RunQueue::~RunQueue() = default;

asio::awaitable<void> RunQueue::Run() {
  std::shared_ptr<Impl> impl = impl_;
  impl->executor = co_await asio::this_coro::executor;
  co_await asio::this_coro::throw_if_cancelled(false);
  co_await impl->Recover();

  // Serve until cancelled (a cancel that came during recovery counts: the timer would never
  // hear it): idle phones claim runs, claims are renewed.
  auto next_renewal = std::chrono::steady_clock::now() + impl->options.renew_every;
  for (;;) {
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      break;
    }
    impl->woken = false;
    if (impl->options.local_phones) {
      auto claiming = impl->ClaimForIdlePhones();
      co_await std::move(claiming);
    }
    if (std::chrono::steady_clock::now() >= next_renewal) {
      auto renewing = Impl::RenewClaims(impl);
      co_await std::move(renewing);
      next_renewal = std::chrono::steady_clock::now() + impl->options.renew_every;
    }
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      break;
    }
    if (impl->woken) continue;
    auto wake_at = next_renewal;
    if (impl->options.local_phones) {
      wake_at = std::min(wake_at, std::chrono::steady_clock::now() + impl->options.claim_every);
    }
    impl->claim_wait = std::make_shared<asio::steady_timer>(*impl->executor, wake_at);
    co_await WaitForSignal(*impl->claim_wait);
    impl->claim_wait.reset();
  }
  co_await asio::this_coro::reset_cancellation_state();

  // Stop: queued runs stay queued in the store (the next start takes them up); running ones are
  // cancelled and restore their devices.
  impl->stopping = true;
  for (auto& [serial, device] : impl->devices) {
    if (device.cancel) device.cancel->emit(asio::cancellation_type::terminal);
  }
  while (impl->workers > 0) {
    impl->workers_done = std::make_shared<asio::steady_timer>(
        *impl->executor, asio::steady_timer::time_point::max());
    co_await WaitForSignal(*impl->workers_done);
  }
  impl->workers_done.reset();
  // The runs this host claimed and never started are released at once for any host to take.
  store::LeaseExpiry release;
  release.now_ms = impl->LeaseNow();
  release.restarting_host = impl->options.host;
  release.restart_reason = "the daemon stopped while the run was running";
  auto releasing = impl->store.ExpireLeases(std::move(release));
  auto released = co_await std::move(releasing);
  if (!released)
    impl->options.log("could not release this host's claims: " + released.error().message);
}

asio::awaitable<QueueResult<store::Run>> RunQueue::Submit(RunSpec spec,
                                                          std::optional<std::string> device_model,
                                                          std::optional<int64_t> schedule_id) {
  std::shared_ptr<Impl> impl = impl_;
  if (auto invalid = ValidateRunSpec(spec)) {
    co_return RunQueueError{RunQueueError::Code::kInvalidArgument, invalid->field,
                            invalid->message};
  }
  if (!impl->executor || impl->stopping) co_return Unavailable("the run queue is not running");

  store::NewRun new_run;
  new_run.spec_json = RunSpecToJson(spec);
  new_run.serial = spec.serial;
  if (spec.pool) new_run.pool = store::RunPool{spec.pool->model, spec.pool->sdk, spec.pool->labels};
  new_run.device_model = std::move(device_model);
  new_run.package = spec.package;
  new_run.activity = spec.activity;
  new_run.mode = LaunchModeName(spec.mode);
  new_run.iterations = spec.iterations;
  new_run.created_at = impl->options.now_ms();
  new_run.schedule_id = schedule_id;
  auto creating = impl->store.CreateRun(new_run);
  auto id = co_await std::move(creating);
  if (!id) co_return Unavailable("the run could not be stored: " + id.error().message);

  store::Run run;
  run.id = *id;
  run.spec_json = new_run.spec_json;
  run.serial = new_run.serial;
  run.device_model = new_run.device_model;
  run.package = new_run.package;
  run.activity = new_run.activity;
  run.mode = new_run.mode;
  run.iterations = new_run.iterations;
  run.status = store::RunStatus::kQueued;
  run.created_at = new_run.created_at;
  run.schedule_id = new_run.schedule_id;
  run.pool = new_run.pool.has_value();

  // Told before Enqueue: co_spawn may start the device's worker at once, and its `running` must
  // not reach a dashboard before `queued`.
  impl->Emit(
      RunEvent{run.id, run.serial, store::RunStatus::kQueued, std::nullopt, std::nullopt, false});
  if (spec.pool) {
    impl->Wake();  // a phone of this host may match
    co_return run;
  }
  // Another host's phone: that host's queue claims the run when the phone is idle.
  auto checking = impl->HeldElsewhere(spec.serial);
  const bool elsewhere = co_await std::move(checking);
  if (elsewhere) co_return run;
  auto claiming = impl->ClaimAndEnqueue(run.id, std::move(spec));
  const bool claimed = co_await std::move(claiming);
  if (claimed) {
    run.host = impl->options.host;
    run.lease_until = impl->LeaseUntil();
  }
  co_return run;
}

asio::awaitable<QueueResult<store::Run>> RunQueue::Cancel(int64_t run_id) {
  std::shared_ptr<Impl> impl = impl_;
  std::string failure;
  auto cancelling = impl->CancelHere(run_id, &failure);
  const bool here = co_await std::move(cancelling);
  if (!failure.empty()) co_return Unavailable(failure);
  std::optional<store::CancelRequest> elsewhere;
  if (!here) {
    // Not this queue's: unclaimed (ended at once) or another host's (flagged for it).
    std::string why = "cancelled before it started";
    auto requesting = impl->store.RequestRunCancel(run_id, std::move(why), impl->options.now_ms());
    auto requested = co_await std::move(requesting);
    if (!requested) {
      if (requested.error().code == store::StoreErrorCode::kNotFound) {
        co_return RunQueueError{RunQueueError::Code::kNotFound, "",
                                "no run " + std::to_string(run_id)};
      }
      co_return Unavailable("the cancel could not be stored: " + requested.error().message);
    }
    elsewhere = *requested;
  }

  auto reading = impl->store.GetRun(run_id);
  auto run = co_await std::move(reading);
  if (!run) {
    if (run.error().code == store::StoreErrorCode::kNotFound) {
      co_return RunQueueError{RunQueueError::Code::kNotFound, "",
                              "no run " + std::to_string(run_id)};
    }
    co_return Unavailable(run.error().message);
  }
  if (elsewhere == store::CancelRequest::kAlreadyEnded) {
    co_return RunQueueError{RunQueueError::Code::kConflict, "",
                            "run " + std::to_string(run_id) + " has already ended (" +
                                store::RunStatusName(run->status) + ")"};
  }
  if (elsewhere == store::CancelRequest::kCancelled) {
    impl->Emit(RunEvent{run_id, run->serial, store::RunStatus::kCancelled, std::nullopt, run->error,
                        false});
  }
  co_return std::move(*run);
}

std::optional<RunProgress> RunQueue::Progress(int64_t run_id) const {
  return impl_->Progress(run_id);
}

size_t RunQueue::Pending(std::string_view serial) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->pending.find(serial);
  return it == impl_->pending.end() ? 0 : it->second;
}

void RunQueue::Announce(RunEvent event) {
  event.remote = true;
  {
    std::lock_guard lock(impl_->mutex);
    Impl::RemoteRuns& remote = impl_->remote;
    if (event.progress) {
      // Progress and ends come over two connections: a progress heard after the run's end
      // would tell a dashboard it runs again.
      if (remote.ended.contains(event.run_id)) return;
      remote.progress[event.run_id] = *event.progress;
    } else if (event.status != store::RunStatus::kRunning) {
      remote.progress.erase(event.run_id);  // ended, or queued again (a pool run)
    }
    if (store::IsFinished(event.status) && remote.ended.insert(event.run_id).second) {
      remote.ended_order.push_back(event.run_id);
      if (remote.ended_order.size() > Impl::RemoteRuns::kEndsKept) {
        remote.ended.erase(remote.ended_order.front());
        remote.ended_order.pop_front();
      }
    }
  }
  impl_->Emit(event);
}

uint64_t RunQueue::Subscribe(std::function<void(const RunEvent&)> listener) {
  return impl_->listeners.Add(std::move(listener));
}

void RunQueue::Unsubscribe(uint64_t id) { impl_->listeners.Remove(id); }

}  // namespace droidlab::orchestrator
