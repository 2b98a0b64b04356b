#include "orchestrator/lab/run_queue.h"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "orchestrator/listeners.h"
#include "orchestrator/stderr_log.h"
#include "base/wall_clock.h"
#include "orchestrator/lab/history_alerts.h"
#include "orchestrator/lab/run_summaries.h"
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

  // Any thread.
  mutable std::mutex mutex;
  std::map<int64_t, RunProgress> progress;
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
      self->Emit(RunEvent{p.run_id, serial, status, p, {}});
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

    RunEvent finished{run.run_id, serial, store::RunStatus::kFailed, std::nullopt, std::nullopt};
    bool stored = true;  // the end is on disk: only then is it announced
    if (*outcome) {
      finished.status = (*outcome)->status;
      finished.error = (*outcome)->error;
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

  // The store's runs left queued, oldest first, and those left running marked interrupted.
  asio::awaitable<void> Recover() {
    std::string reason = "the daemon stopped while the run was running";
    auto interrupting = store.InterruptRunningRuns(std::move(reason), options.now_ms());
    auto interrupted = co_await std::move(interrupting);
    if (!interrupted) {
      options.log("could not mark runs interrupted: " + interrupted.error().message);
    } else if (*interrupted > 0) {
      options.log(std::to_string(*interrupted) + " run(s) left running marked interrupted");
    }
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
      auto spec = ParseRunSpec(it->spec_json);
      if (!spec) {
        const std::string why = "stored spec no longer valid: " + spec.error().field + ": " +
                                spec.error().message;
        auto s = co_await SetStatus(it->id, store::RunStatus::kFailed, why);
        if (!s) options.log("run " + std::to_string(it->id) + ": " + s.error().message);
        continue;
      }
      Enqueue(it->id, std::move(*spec));
    }
  }

  std::optional<RunProgress> Progress(int64_t run_id) const {
    std::lock_guard lock(mutex);
    auto it = progress.find(run_id);
    if (it == progress.end()) return std::nullopt;
    return it->second;
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
  // hear it).
  if ((co_await asio::this_coro::cancellation_state).cancelled() == asio::cancellation_type::none) {
    asio::steady_timer forever(*impl->executor, asio::steady_timer::time_point::max());
    co_await WaitForSignal(forever);
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

  // Told before Enqueue: co_spawn may start the device's worker at once, and its `running` must
  // not reach a dashboard before `queued`.
  impl->Emit(RunEvent{run.id, run.serial, store::RunStatus::kQueued, std::nullopt, std::nullopt});
  impl->Enqueue(run.id, std::move(spec));
  co_return run;
}

asio::awaitable<QueueResult<store::Run>> RunQueue::Cancel(int64_t run_id) {
  std::shared_ptr<Impl> impl = impl_;
  std::string serial;
  bool was_queued = false;
  std::shared_ptr<asio::steady_timer> running_done;
  for (auto& [s, device] : impl->devices) {
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
      running_done = std::make_shared<asio::steady_timer>(*impl->executor,
                                                          asio::steady_timer::time_point::max());
      device.current_done.push_back(running_done);
      device.cancel->emit(asio::cancellation_type::terminal);
      break;
    }
  }

  if (was_queued) {
    impl->AddPending(serial, -1);
    // Every terminal run says why, as the executor's "cancelled during …" does for a running one.
    const std::string why = "cancelled before it started";
    auto s = co_await impl->SetStatus(run_id, store::RunStatus::kCancelled, why);
    if (!s) co_return Unavailable("the cancel could not be stored: " + s.error().message);
    impl->Emit(RunEvent{run_id, serial, store::RunStatus::kCancelled, std::nullopt, why});
  } else if (running_done) {
    co_await WaitForSignal(*running_done);  // the executor restores the device and records it
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
  if (!was_queued && !running_done) {
    co_return RunQueueError{RunQueueError::Code::kConflict, "",
                            "run " + std::to_string(run_id) + " has already ended (" +
                                store::RunStatusName(run->status) + ")"};
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

uint64_t RunQueue::Subscribe(std::function<void(const RunEvent&)> listener) {
  return impl_->listeners.Add(std::move(listener));
}

void RunQueue::Unsubscribe(uint64_t id) { impl_->listeners.Remove(id); }

}  // namespace droidlab::orchestrator
