// RunQueue: the lab's runs. One run at a time per device, the others waiting in the order they
// were queued; devices run in parallel. A run is checked (ParseRunSpec's rules) and stored as
// `queued` before Submit returns; ExecuteRun (run_executor.h) takes it from there.
//
//   RunQueue queue(store, [&](int64_t id, RunSpec spec, RunExecutorOptions o) {
//     return ExecuteRun(client, store, id, std::move(spec), std::move(o));
//   });
//   asio::co_spawn(io, queue.Run(), ...);              // until cancelled
//   auto run = co_await queue.Submit(spec, std::nullopt);   // store::Run, status queued
//   auto cancelled = co_await queue.Cancel(run->id);
//
// Start-up (Run): runs the store left `running` (the daemon died under them) become
// `interrupted`; runs left `queued` are queued again, oldest first.
//
// Several daemons on one database (issue 17 §2): every run is claimed in the store by the host
// that measures it (store::RunClaim), never by two. A run for a serial is claimed at once by the
// daemon it was posted to, unless the store says another host holds that phone: that host's
// queue claims it when the phone is idle. A pool run (RunSpec::pool) is claimed by the first
// host with an idle phone that matches. With `local_phones` set, the queue looks every
// `claim_every` (and when woken) for a run each idle phone of its own may take; every
// `renew_every` it renews its claims (a claim holds `lease_ms`), cancels the runs a cancel was
// asked of through another daemon, and ends the claims of hosts that stopped renewing theirs
// (their running runs `interrupted`, a pool run queued again as a new run). A host that could
// not renew for `lease_ms` cancels its own runs: another host may take them. Leases are kept in
// the database server's clock (store::Reader::DatabaseClockMs, measured at each renewal), not in
// each host's: hosts whose clocks disagree still agree on when a lease lapses.
//
// Threading: Run, Submit and Cancel must be called on one executor (the daemon's io_context
// thread, where the adb client lives): runs are spawned there. Progress, Pending and the
// listeners' registration are thread-safe. Listeners are called on that executor and must not
// block.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "orchestrator/run/run_executor.h"
#include "orchestrator/spec/run_spec.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

struct RunQueueError {
  enum class Code {
    kInvalidArgument,  // the spec (field names it)
    kNotFound,         // Cancel: no such run
    kConflict,         // Cancel: the run has already finished
    kUnavailable,      // the store refused (disk full, ...), or the queue is stopping
  };
  Code code = Code::kInvalidArgument;
  std::string field;  // kInvalidArgument: the spec field
  std::string message;
};
template <class T>
using QueueResult = BasicResult<T, RunQueueError>;

// A change worth telling a dashboard: a run's status or progress.
struct RunEvent {
  int64_t run_id = 0;
  std::string serial;
  store::RunStatus status = store::RunStatus::kQueued;
  std::optional<RunProgress> progress;  // while running
  std::optional<std::string> error;
  bool device_fault = false;  // a failure the phone caused (RunOutcome::device_fault)
  bool remote = false;        // another host's run, told through the store (Announce)
};

// Runs one run to its end and records its status (ExecuteRun's contract); the queue passes
// `options.executor` with on_progress set to its own forwarder. Tests pass a fake.
using RunExecuteFunction = std::function<boost::asio::awaitable<RunOutcome>(
    int64_t run_id, RunSpec spec, RunExecutorOptions options)>;

class AlertCenter;

struct RunQueueOptions {
  RunExecutorOptions executor;  // handed to each run; on_progress is the queue's
  // Where a succeeded run's history alerts are raised (lab/history_alerts.h); none: no alerts.
  AlertCenter* alerts = nullptr;
  std::function<int64_t()> now_ms;                 // default: the wall clock, ms
  std::function<void(std::string_view)> log;       // default: stderr
  // The lab (above): this host's name (hosts.name); how long a claim holds unless renewed, how
  // often claims are renewed and how often idle phones look for a run.
  std::string host = "local";
  int64_t lease_ms = 30'000;
  std::chrono::milliseconds renew_every{5'000};
  std::chrono::milliseconds claim_every{1'000};
  // The serials of this host's phones that may run now (state "device"); unset: the queue
  // takes only the runs posted to it and those it finds queued at start-up (one host).
  std::function<std::vector<std::string>()> local_phones;
};

class RunQueue {
 public:
  RunQueue(store::Store& store, RunExecuteFunction execute, RunQueueOptions options = {});
  ~RunQueue();
  RunQueue(const RunQueue&) = delete;
  RunQueue& operator=(const RunQueue&) = delete;

  // Recovers the store's runs (above), then serves until cancelled; on cancellation cancels
  // the runs in progress (they restore their devices) and returns once they have ended.
  boost::asio::awaitable<void> Run();

  // Checks and queues a run. `device_model` is stored with it (baselines compare like with
  // like); `schedule_id` when a schedule started it.
  boost::asio::awaitable<QueueResult<store::Run>> Submit(RunSpec spec,
                                                         std::optional<std::string> device_model,
                                                         std::optional<int64_t> schedule_id);
  // Cancels a queued run at once, a running one within a second (the device is restored); a
  // run another host holds gets cancel_requested, which that host acts on at its next renewal.
  // Returns the run as stored afterwards.
  boost::asio::awaitable<QueueResult<store::Run>> Cancel(int64_t run_id);

  // The progress of a running run, if it is running now — here, or on another host that told
  // it (Announce). Thread-safe.
  std::optional<RunProgress> Progress(int64_t run_id) const;
  // Runs queued or running now, per serial. Thread-safe.
  size_t Pending(std::string_view serial) const;

  // A change of a run another daemon made, or its progress (store::pg::RunChangeListener), told
  // to this queue's listeners as its own are, marked `remote`; the progress is what Progress
  // answers for that run until an end is announced. Call on the queue's executor.
  void Announce(RunEvent event);

  // Listeners for every RunEvent; returns an id for Unsubscribe.
  uint64_t Subscribe(std::function<void(const RunEvent&)> listener);
  void Unsubscribe(uint64_t id);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::orchestrator
