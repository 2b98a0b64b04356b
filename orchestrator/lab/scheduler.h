// Scheduler: starts the store's schedules' runs when their cron expressions fire (cron.h has the
// rules: IANA zones, DST nights fire once, missed firings after downtime run once within the
// grace window, never twice). Schedules live in the store, so they survive restarts; before a
// run is queued the firing it stands for is recorded (MarkScheduleFired), so a daemon that dies
// right after cannot fire it again. The store records a firing once, so two daemons of a lab
// that both believed the chores theirs (a partition) queue its run once: the second logs it.
//
//   Scheduler scheduler(store, queue, model_of, {});
//   asio::co_spawn(io, scheduler.Run(), ...);   // until cancelled
//   scheduler.Wake();                            // after creating or deleting a schedule
//
// A schedule whose expression, zone or run spec no longer parses (an older droidlab stored it)
// is logged and left alone; the others go on.
//
// Threading: Run and Wake on the run queue's executor. Store calls never block that thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "orchestrator/lab/run_queue.h"
#include "store/store.h"

namespace droidlab::orchestrator {

struct SchedulerOptions {
  // How late a missed firing may still run after downtime.
  std::chrono::seconds grace{std::chrono::hours(1)};
  // Schedules are read again at least this often even when nothing woke the scheduler.
  std::chrono::milliseconds max_sleep{std::chrono::seconds(60)};
  std::function<int64_t()> now_ms;            // wall clock, ms since the epoch
  std::function<void(std::string_view)> log;  // default: stderr
  // Several daemons on one database (issue 17 §2): only the one doing the lab's chores fires
  // schedules; the others look again every `lead_check`. Unset: this one always does.
  std::function<bool()> leading;
  std::chrono::milliseconds lead_check{std::chrono::seconds(5)};
};

// The device model to store with a scheduled run (for baselines), by serial; may be empty.
using DeviceModelLookup = std::function<std::optional<std::string>(std::string_view serial)>;

class Scheduler {
 public:
  Scheduler(store::Store& store, RunQueue& queue, DeviceModelLookup model_of,
            SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Checks every schedule now and whenever one is due (or woken), until cancelled.
  boost::asio::awaitable<void> Run();
  // Check again now (a schedule was created, enabled or deleted).
  void Wake();

  // Runs started so far (for tests and /metrics).
  int64_t runs_started() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::orchestrator
