#include "orchestrator/lab/scheduler.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>
#include <mutex>
#include <utility>
#include <vector>

#include "base/wall_clock.h"
#include "orchestrator/lab/cron.h"
#include "orchestrator/stderr_log.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {


SysSeconds ToSeconds(int64_t ms) {
  return SysSeconds(std::chrono::seconds(ms / 1000));
}

int64_t ToMs(SysSeconds s) { return static_cast<int64_t>(s.time_since_epoch().count()) * 1000; }

}  // namespace

struct Scheduler::Impl {
  Impl(store::Store& s, RunQueue& q, DeviceModelLookup m, SchedulerOptions o)
      : store(s), queue(q), model_of(std::move(m)), options(std::move(o)) {
    if (!options.now_ms) options.now_ms = WallNowMs;
    if (!options.log) options.log = StderrLog("scheduler");
  }

  store::AsyncStore store;
  RunQueue& queue;
  DeviceModelLookup model_of;
  SchedulerOptions options;
  std::shared_ptr<asio::steady_timer> sleep;  // the executor's thread only
  bool woken = false;
  std::atomic<int64_t> started{0};

  void Log(const store::Schedule& s, const std::string& what) {
    options.log("schedule " + std::to_string(s.id) + " (" + s.cron + " " + s.timezone + "): " +
                what);
  }

  // Fires what is due; returns when to look again (nullopt: no schedule will ever fire).
  asio::awaitable<std::optional<SysSeconds>> CheckAll() {
    auto listing = store.ListSchedules();
    auto schedules = co_await std::move(listing);
    if (!schedules) {
      options.log("cannot read schedules: " + schedules.error().message);
      co_return std::nullopt;
    }
    std::optional<SysSeconds> earliest_next;
    for (const store::Schedule& schedule : *schedules) {
      if (!schedule.enabled) continue;
      auto next = co_await CheckOne(schedule);
      if (next && (!earliest_next || *next < *earliest_next)) earliest_next = next;
    }
    co_return earliest_next;
  }

  asio::awaitable<std::optional<SysSeconds>> CheckOne(const store::Schedule& schedule) {
    auto expr = ParseCron(schedule.cron);
    if (!expr) {
      Log(schedule, "not understood, left alone: " + expr.error().message);
      co_return std::nullopt;
    }
    auto zone = TimeZone::Find(schedule.timezone);
    if (!zone) {
      Log(schedule, "not understood, left alone: " + zone.error().message);
      co_return std::nullopt;
    }
    const int64_t now_ms = options.now_ms();
    const SysSeconds last = ToSeconds(schedule.last_fired_at.value_or(schedule.created_at));
    const MissedFiringDecision decision =
        DecideMissed(*expr, *zone, last, ToSeconds(now_ms), options.grace);
    if (decision.action == MissedFiringDecision::Action::kNothingDue) co_return decision.next;

    // Recorded first: a restart after this point finds the firing done, never runs it twice.
    const int64_t fired_at = ToMs(*decision.scheduled_for);
    const int64_t id = schedule.id;
    auto marking = store.MarkScheduleFired(id, fired_at);
    auto marked = co_await std::move(marking);
    if (!marked && marked.error().code == store::StoreErrorCode::kConstraint) {
      // Another daemon of the lab recorded this firing first (both believed the lab's chores
      // theirs for a moment: a partition, a lapsed lock); it queues the run.
      Log(schedule, "fired by another daemon, not run here: " + marked.error().message);
      co_return decision.next;
    }
    if (!marked) {
      Log(schedule, "firing not recorded, not run: " + marked.error().message);
      co_return decision.next;
    }
    if (decision.action == MissedFiringDecision::Action::kSkip) {
      Log(schedule, "missed firing older than the grace window, skipped");
      co_return decision.next;
    }

    auto spec = ParseRunSpec(schedule.run_spec_json);
    if (!spec) {
      Log(schedule, "run spec no longer valid, not run: " + spec.error().field + ": " +
                        spec.error().message);
      co_return decision.next;
    }
    std::optional<std::string> model = model_of ? model_of(spec->serial) : std::nullopt;
    std::optional<int64_t> schedule_id = schedule.id;
    auto submitted = co_await queue.Submit(std::move(*spec), std::move(model), schedule_id);
    if (!submitted) {
      Log(schedule, "run not queued: " + submitted.error().message);
    } else {
      ++started;
      Log(schedule, "queued run " + std::to_string(submitted->id));
    }
    co_return decision.next;
  }
};

Scheduler::Scheduler(store::Store& store, RunQueue& queue, DeviceModelLookup model_of,
                     SchedulerOptions options)
    : impl_(std::make_shared<Impl>(store, queue, std::move(model_of), std::move(options))) {}

Scheduler::~Scheduler() = default;

asio::awaitable<void> Scheduler::Run() {
  std::shared_ptr<Impl> impl = impl_;
  auto executor = co_await asio::this_coro::executor;
  co_await asio::this_coro::throw_if_cancelled(false);  // cancellation ends the loop below
  for (;;) {
    impl->woken = false;
    std::optional<SysSeconds> next;
    const bool leading = !impl->options.leading || impl->options.leading();
    if (leading) {
      auto checking = impl->CheckAll();
      next = co_await std::move(checking);
    }
    if (impl->woken) continue;  // woken while checking: check again

    auto wait = leading ? impl->options.max_sleep
                        : std::min(impl->options.max_sleep, impl->options.lead_check);
    if (next) {
      const int64_t until_next = ToMs(*next) - impl->options.now_ms();
      wait = std::clamp(std::chrono::milliseconds(until_next), std::chrono::milliseconds(0),
                        impl->options.max_sleep);
    }
    // A cancel that came while checking would not reach a timer started after it.
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      co_return;
    }
    impl->sleep = std::make_shared<asio::steady_timer>(executor, wait);
    boost::system::error_code ec;
    co_await impl->sleep->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    impl->sleep.reset();
    // Cancellation of Run (not a Wake) ends the loop.
    auto state = co_await asio::this_coro::cancellation_state;
    if (state.cancelled() != asio::cancellation_type::none) co_return;
  }
}

void Scheduler::Wake() {
  impl_->woken = true;
  if (impl_->sleep) impl_->sleep->cancel();
}

int64_t Scheduler::runs_started() const { return impl_->started.load(); }

}  // namespace droidlab::orchestrator
