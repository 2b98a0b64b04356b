#include "orchestrator/run/run_executor.h"

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <ctime>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "adb/install_plan.h"
#include "base/wall_clock.h"
#include "orchestrator/builds/build_install.h"
#include "orchestrator/builds/build_library.h"
#include "orchestrator/run/cancelled.h"
#include "orchestrator/run/compilation.h"
#include "orchestrator/run/cooldown.h"
#include "orchestrator/run/device_clock.h"
#include "orchestrator/run/device_commands.h"
#include "orchestrator/run/device_loss.h"
#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/installed_build.h"
#include "orchestrator/run/iteration_faults.h"
#include "orchestrator/run/launch_iteration.h"
#include "orchestrator/run/logcat_feed.h"
#include "orchestrator/run/looper_rows.h"
#include "orchestrator/run/looper_session.h"
#include "orchestrator/run/lost_writes.h"
#include "orchestrator/run/preflight.h"
#include "orchestrator/run/proc_sampler.h"
#include "orchestrator/run/side_by_side.h"
#include "orchestrator/run/slow_message_session.h"
#include "orchestrator/stderr_log.h"
#include "parsers/looper_stats.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;
using namespace boost::asio::experimental::awaitable_operators;

namespace {


int YearOf(int64_t epoch_ms) {
  const std::time_t t = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm.tm_year + 1900;
}

// What the launch loop leaves behind; shared because the `||` race may end on another operand.
struct LoopState {
  int64_t iterations_done = 0;
  int64_t launches_recorded = 0;
  int64_t valid_launches = 0;
  // Measured (not warm-up) iterations, and those of them with a fault of the app: when they are
  // all, the run fails with the first fault (EveryIterationFaultedReason).
  int64_t measured = 0;
  int64_t faulted = 0;
  std::optional<store::IterationFault> first_fault;
  bool one_fault_kind = true;
  // Each stored iteration as it was counted, for a fault of it that comes later (LateFaults).
  struct Counted {
    bool warmup = false;
    bool valid = false;    // counted in valid_launches
    bool faulted = false;  // counted in faulted
  };
  std::map<int64_t, Counted> counted;
  bool cancelled = false;
  std::optional<std::string> error;  // the run fails with this
  bool device_fault = false;         // ... because the phone went away or stopped answering
};

// Warm and hot launches need a process (and for hot a created activity) to come back to: one
// launch first, not measured. False: the loop ends, `state` says why (`what` failed).
asio::awaitable<bool> PrimeForMode(IterationContext& ctx, std::shared_ptr<LoopState> state,
                                   std::string what) {
  if (ctx.spec.mode == LaunchMode::kCold) co_return true;
  auto priming = PrimingLaunch(ctx);
  auto primed = co_await std::move(priming);
  if (primed) co_return true;
  if (primed.error().cancelled()) {
    state->cancelled = true;
  } else {
    state->error = what + ": " + primed.error().message;
  }
  co_return false;
}

// An install's outcome: the build installed, or why not (and whether because of a cancel).
struct InstallAttempt {
  std::optional<InstalledBuild> installed;
  std::string error;
  bool cancelled = false;
};

// The launches the writer committed, as its completions tell (on the writer thread). The run's
// progress counts these, never launches only queued: a dashboard that saw "7 done" finds 7
// launches in the store, even when the disk fills after the writer took the 8th.
struct StoredLaunches {
  std::mutex mutex;
  int64_t iterations_done = 0;  // the highest iteration committed
  int64_t count = 0;
  int64_t valid = 0;
};

class Execution {
 public:
  Execution(adb::Client& client, store::Store& store, int64_t run_id, RunSpec spec,
            RunExecutorOptions options)
      : client_(client),
        store_(store),
        run_id_(run_id),
        spec_(std::move(spec)),
        options_(std::move(options)),
        store_ref_(store) {
    if (!options_.now_ms) options_.now_ms = WallNowMs;
    if (!options_.log) options_.log = StderrLog("run_executor");
    progress_.run_id = run_id_;
    progress_.iterations = spec_.warmup + spec_.iterations;
    if (spec_.side_by_side()) {
      plan_ = PlanSideBySide(spec_.iterations, spec_.block, spec_.warmup);
      progress_.iterations = static_cast<int64_t>(plan_.size());
      side_by_side_.emplace();
      side_by_side_->baseline_build = *spec_.baseline_build;
      side_by_side_->candidate_build = *spec_.build;
      side_by_side_->block = spec_.block;
    }
  }

  asio::awaitable<RunOutcome> Run();

 private:
  void Log(const std::string& what) {
    options_.log("run " + std::to_string(run_id_) + " on " + spec_.serial + ": " + what);
  }
  void Phase(std::string phase) {
    progress_.phase = std::move(phase);
    {
      std::lock_guard lock(stored_->mutex);
      progress_.iterations_done = stored_->iterations_done;
      progress_.valid_launches = stored_->valid;
    }
    if (options_.on_progress) options_.on_progress(progress_);
  }
  adb::Deadline CommandDeadline() const { return adb::DeadlineAfter(options_.command_timeout); }

  asio::awaitable<store::Status> UpdateStatus(store::RunStatusUpdate update) {
    update.run_id = run_id_;
    auto updating = store_.UpdateRunStatus(std::move(update));
    co_return co_await std::move(updating);
  }
  // The completion of a batch handed to the writer: a loss is logged and kept for the run's end.
  store::Completion Committed(std::string what) {
    return [log = options_.log, what = std::move(what), id = run_id_,
            lost = lost_](const store::Status& s) {
      if (s) return;
      std::string why = what + " not stored: " + s.error().message;
      log("run " + std::to_string(id) + ": " + why);
      lost->Record(std::move(why));
    };
  }
  // A launch's completion: once committed it counts in the progress, which is announced then
  // (posted to the run's executor; a no-op once the run is over); a loss as Committed's.
  // Faults of earlier iterations that came during this one (launch_iteration.h): each stored
  // under its iteration, whose launch they make invalid, and the run's counts corrected.
  // False (state->error set) when the writer would not take them.
  asio::awaitable<bool> StoreLateFaults(std::vector<LateFaults> late,
                                        std::shared_ptr<LoopState> state, std::string where);
  store::Completion LaunchCommitted(int64_t iteration, bool valid, std::string what) {
    store::Completion on_lost = Committed(std::move(what));
    std::weak_ptr<std::function<void()>> announce = announce_;
    return [on_lost = std::move(on_lost), stored = stored_, iteration, valid,
            executor = executor_, announce](const store::Status& s) mutable {
      if (!s) {
        on_lost(s);
        return;
      }
      {
        std::lock_guard lock(stored->mutex);
        stored->iterations_done = std::max(stored->iterations_done, iteration);
        ++stored->count;
        if (valid) ++stored->valid;
      }
      asio::post(executor, [announce] {
        if (auto a = announce.lock()) (*a)();
      });
    };
  }
  // The proc samples taken so far, to the writer: stored while the run goes, not at its end.
  asio::awaitable<std::optional<std::string>> StoreSamplesSoFar(ProcSamplerState& sampler);
  // The sampler's hand-off every N samples or every second (proc_sampler.h); a batch the writer
  // would not take fails the run as a lost one does.
  asio::awaitable<void> FlushSamples(std::shared_ptr<ProcSamplerState> sampler);
  // Waits until the writer committed (or lost) all this run handed it; what it lost, if any.
  asio::awaitable<std::optional<std::string>> WritesLost();

  asio::awaitable<void> LaunchLoop(DeviceShell& shell, std::shared_ptr<LogcatFeed> feed,
                                   std::shared_ptr<ProcSamplerState> sampler,
                                   std::shared_ptr<LoopState> state);
  asio::awaitable<void> SampleOrIdle(DeviceShell& shell, std::shared_ptr<ProcSamplerState> state);
  asio::awaitable<std::optional<std::string>> CollectLooperStats(DeviceShell& shell);
  asio::awaitable<std::optional<std::string>> Restore(DeviceShell& shell);
  // Installs build `build_id` (of the run's package, kept by this daemon); the error in words
  // when it is not installed (InstallAttempt).
  asio::awaitable<InstallAttempt> InstallBuild(DeviceShell& shell, int64_t build_id);
  // The run's build before the preflight — a side-by-side run's baseline; false: the run ended.
  asio::awaitable<bool> InstallFirstBuild(DeviceShell& shell);
  // A side-by-side run's switch to the other build (side_by_side.h): installed, the compilation
  // state forced again and checked; the reason the run ends, if it must.
  asio::awaitable<std::optional<std::string>> SwitchBuild(DeviceShell& shell, Arm arm,
                                                          int64_t next_iteration);
  int64_t BuildOf(Arm arm) const {
    return arm == Arm::kBaseline ? *spec_.baseline_build : *spec_.build;
  }
  // Forces and checks the compilation state; false: the run ended (End was called).
  asio::awaitable<bool> SetCompilation(DeviceShell& shell);
  // Reads the state again after the last iteration; a change is a warning of the run.
  asio::awaitable<void> RereadCompilation(DeviceShell& shell);
  // The run row's preflight_json as known now (status running).
  asio::awaitable<store::Status> StoreRunningPreflight();
  // installed_ (an install under way) stored with the run, before the install is sent.
  asio::awaitable<store::Status> StoreInstallIntention();
  // The slow-message property set for the run (slow_message_session.h); false: the run ends
  // (state says why).
  asio::awaitable<bool> StartSlowMessages(DeviceShell& shell, std::shared_ptr<LoopState> state);
  // Commits what undoes a change of the device before the change (looper_session.h).
  asio::awaitable<CommandResult<bool>> RecordUndo(store::DeviceRestore restore);
  // The daemon's OwedRestores, or the run's own over the same store.
  OwedRestores& Owed() {
    if (options_.owed_restores) return *options_.owed_restores;
    if (!own_restores_) own_restores_ = std::make_unique<OwedRestores>(store_ref_, options_.now_ms);
    return *own_restores_;
  }
  // End records how the run ends, Finish stores and reports it: two steps, so that no
  // temporary is part of a co_await full-expression (g++ 12 destroys those twice).
  void End(store::RunStatus status, std::optional<std::string> error) {
    outcome_.status = status;
    outcome_.error = std::move(error);
  }
  void EndAfterError(const CommandError& e, const std::string& what, bool run_cancelled) {
    if (e.cancelled() || run_cancelled) {
      End(store::RunStatus::kCancelled, "cancelled during " + what);
    } else {
      End(store::RunStatus::kFailed, what + ": " + e.message);
      outcome_.device_fault = e.device_lost() || e.timed_out();
    }
  }
  asio::awaitable<RunOutcome> Finish();

  adb::Client& client_;
  store::AsyncStore store_;
  int64_t run_id_;
  RunSpec spec_;
  RunExecutorOptions options_;
  RunProgress progress_;
  RunOutcome outcome_;
  int64_t started_ms_ = 0;
  std::optional<PreflightReport> preflight_;
  std::optional<DeviceClock> clock_;
  std::optional<CompilationRecord> compilation_;
  std::optional<InstalledBuild> installed_;
  bool intention_stored_ = false;  // an install was recorded as under way (StoreInstallIntention)
  // A side-by-side run: its launches in order, the build on the phone, its installs.
  std::vector<PlannedLaunch> plan_;
  Arm on_phone_ = Arm::kBaseline;
  std::optional<SideBySideRecord> side_by_side_;
  LooperSession looper_;
  bool looper_started_ = false;
  bool changed_device_ = false;  // a restore was recorded: the run's end pays
  int64_t samples_stored_ = 0;
  std::shared_ptr<LostWrites> lost_ = std::make_shared<LostWrites>();
  bool frames_missing_logged_ = false;
  bool memory_missing_logged_ = false;
  std::shared_ptr<StoredLaunches> stored_ = std::make_shared<StoredLaunches>();
  asio::any_io_executor executor_;  // the run's: committed launches are announced there
  std::shared_ptr<std::function<void()>> announce_;
  store::Store& store_ref_;
  std::unique_ptr<OwedRestores> own_restores_;
  std::optional<OwedRestores::RunHold> run_hold_;  // after own_restores_: released first
};

asio::awaitable<std::optional<std::string>> Execution::StoreSamplesSoFar(
    ProcSamplerState& sampler) {
  if (sampler.samples.empty()) co_return std::nullopt;
  samples_stored_ += static_cast<int64_t>(sampler.samples.size());
  std::vector<store::ProcSample> samples = std::move(sampler.samples);
  sampler.samples.clear();
  store::Completion committed = Committed("proc samples");
  auto storing = store_.AddProcSamples(std::move(samples), std::move(committed));
  store::Status s = co_await std::move(storing);
  if (!s) co_return "proc samples not stored: " + s.error().message;
  co_return std::nullopt;
}

namespace {

// "iteration 3 invalid, found during iteration 4: anr: …" (built outside the coroutine).
std::string LateFaultLogLine(int64_t iteration, const std::string& where,
                             const std::string& reason) {
  return "iteration " + std::to_string(iteration) + " invalid, found during " + where + ": " +
         reason;
}

}  // namespace

asio::awaitable<bool> Execution::StoreLateFaults(std::vector<LateFaults> late,
                                                 std::shared_ptr<LoopState> state,
                                                 std::string where) {
  for (LateFaults& l : late) {
    LoopState::Counted& counted = state->counted[l.iteration];
    const bool was_valid = counted.valid;
    if (!counted.warmup && !counted.faulted) {
      counted.faulted = true;
      ++state->faulted;
      if (!state->first_fault) state->first_fault = l.faults.front();
      if (l.faults.front().kind != state->first_fault->kind) state->one_fault_kind = false;
    }
    if (was_valid) {
      counted.valid = false;
      --state->valid_launches;
    }
    Log(LateFaultLogLine(l.iteration, where, l.invalid_reason));
    // Once committed, the launch counts as invalid in the progress too.
    store::Completion on_lost = Committed(where + "'s late faults");
    store::Completion committed = [on_lost = std::move(on_lost), stored = stored_,
                                   was_valid](const store::Status& s) mutable {
      if (!s) {
        on_lost(s);
        return;
      }
      if (!was_valid) return;
      std::lock_guard lock(stored->mutex);
      --stored->valid;
    };
    auto storing = store_.AddLateIterationFaults(run_id_, l.iteration, std::move(l.faults),
                                                 std::move(l.invalid_reason), std::move(committed));
    store::Status s = co_await std::move(storing);
    if (!s) {
      state->error = where + ": faults of an earlier iteration not stored: " + s.error().message;
      co_return false;
    }
  }
  co_return true;
}

asio::awaitable<void> Execution::FlushSamples(std::shared_ptr<ProcSamplerState> sampler) {
  auto storing = StoreSamplesSoFar(*sampler);
  std::optional<std::string> error = co_await std::move(storing);
  if (error) lost_->Record(std::move(*error));
}

asio::awaitable<std::optional<std::string>> Execution::WritesLost() {
  auto flushing = store_.Flush();
  store::Status flushed = co_await std::move(flushing);
  std::optional<std::string> lost = lost_->Summary();
  if (!lost && !flushed) lost = "the store did not commit the run's data: " + flushed.error().message;
  co_return lost;
}

asio::awaitable<RunOutcome> Execution::Finish() {
  Phase("restoring");
  const store::RunStatus status = outcome_.status;
  const std::optional<std::string> error = outcome_.error;
  store::RunStatusUpdate update;
  update.status = status;
  update.error = error;
  update.finished_at = options_.now_ms();
  if (preflight_) {
    update.preflight_json =
        PreflightJson(*preflight_, clock_ ? &*clock_ : nullptr,
                      looper_started_ ? &looper_ : nullptr, compilation_ ? &*compilation_ : nullptr,
                      installed_ ? &*installed_ : nullptr, side_by_side_ ? &*side_by_side_ : nullptr);
  } else if (installed_) {
    update.preflight_json = InstalledBuildOnlyJson(*installed_);
  } else if (intention_stored_) {
    update.preflight_json = "{}";  // an install refused: the intention recorded is void
  }
  auto updating = UpdateStatus(std::move(update));
  store::Status s = co_await std::move(updating);
  if (!s) {
    Log("final status not stored: " + s.error().message);
    outcome_.status_stored = false;
  }
  Log(std::string("finished ") + store::RunStatusName(status) + IfAny(": ", error.value_or("")));
  co_return outcome_;
}

// The device put back as it was — every restore it owes, the run's own included — on a fresh
// coroutine: the run's cancellation must not cut the restore short; its own deadline bounds it.
// What is not paid stays owed in the store (owed_restores.h).
asio::awaitable<std::optional<std::string>> Execution::Restore(DeviceShell& shell) {
  if (!changed_device_) co_return std::nullopt;
  const adb::Deadline deadline = adb::DeadlineAfter(options_.restore_timeout);
  auto body =
      [](OwedRestores& owed, adb::Client& client, std::string serial, adb::Deadline until,
         std::function<void(std::string_view)> log) -> asio::awaitable<std::optional<std::string>> {
    try {
      auto paying = owed.Pay(client, serial, until, log);
      co_return co_await std::move(paying);
    } catch (const std::exception& e) {
      log(std::string("restore threw: ") + e.what());
      co_return std::string("restore threw: ") + e.what();
    }
  };
  auto executor = co_await asio::this_coro::executor;
  auto restoring =
      asio::co_spawn(executor, body(Owed(), shell.client(), spec_.serial, deadline, options_.log),
                     asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable));
  std::optional<std::string> error = co_await std::move(restoring);
  if (error) {
    Log("device NOT restored: " + *error + " (owed: put back when the device is online again)");
  } else {
    // OwedRestores::Pay logged each one ("put back as it was: …").
    Log("device restored: every change the run recorded is put back");
  }
  co_return error;
}

asio::awaitable<bool> Execution::StartSlowMessages(DeviceShell& shell,
                                                  std::shared_ptr<LoopState> state) {
  if (!preflight_ || !preflight_->app_id) {
    state->error =
        "slow_message_ms: the app's uid is unknown (dumpsys package printed no userId= or appId=)";
    co_return false;
  }
  if (preflight_->sdk && *preflight_->sdk < kFirstSdkWithSlowMessages) {
    Log("slow_message_ms: Android " + std::to_string(*preflight_->sdk) +
        " (SDK) has no slow-message log (Looper logs them from Android 9, SDK 28): none will come");
  }
  const RecordRestore record = [this](store::DeviceRestore restore) {
    return RecordUndo(std::move(restore));
  };
  auto starting = StartSlowMessageSession(shell, spec_.package, *preflight_->app_id,
                                          *spec_.slow_message_ms, options_.command_timeout, record);
  auto started = co_await std::move(starting);
  if (!started) {
    if (started.error().cancelled() || co_await Cancelled()) {
      state->cancelled = true;
    } else {
      state->error = "slow messages: " + started.error().message;
    }
    co_return false;
  }
  Log("the app's main thread logs its messages over " + std::to_string(*spec_.slow_message_ms) +
      " ms (" + started->property + ")");
  co_return true;
}

asio::awaitable<CommandResult<bool>> Execution::RecordUndo(store::DeviceRestore restore) {
  restore.serial = spec_.serial;
  restore.run_id = run_id_;
  restore.created_at = options_.now_ms();
  // From the first record on, the run's end pays what the device owes.
  changed_device_ = true;
  auto recording = Owed().Record(std::move(restore));
  store::StoreResult<int64_t> recorded = co_await std::move(recording);
  if (!recorded) {
    co_return CommandError{
        std::nullopt,
        "what undoes the change not stored (the change is not made): " + recorded.error().message};
  }
  co_return true;
}

asio::awaitable<std::optional<std::string>> Execution::CollectLooperStats(DeviceShell& shell) {
  Phase("collecting");
  auto text = co_await DumpLooperStats(shell, CommandDeadline());
  if (!text) co_return "looper stats not collected: " + text.error().message;
  auto dump = parsers::ParseLooperStats(*text);
  if (!dump) co_return "looper stats not collected: " + dump.error().message;
  if (dump->entries.empty()) {
    co_return std::string(
        "looper stats: the dump after the launches has no rows (collection was off: the "
        "charging gate closed again, or the setting was changed during the run)");
  }
  std::vector<store::LooperStatsRow> rows = LooperStatsRowsFromDump(run_id_, spec_.package, *dump);
  int64_t app_rows = 0;
  for (const auto& row : rows) app_rows += row.is_app ? 1 : 0;
  const int64_t n = static_cast<int64_t>(rows.size());
  store::Completion committed = Committed("looper rows");
  auto storing = store_.AddLooperStats(std::move(rows), std::move(committed));
  store::Status s = co_await std::move(storing);
  if (!s) co_return "looper stats not stored: " + s.error().message;
  outcome_.looper_rows = n;
  std::string skipped;
  if (dump->skipped_lines)
    skipped = std::to_string(dump->skipped_lines) + " unreadable lines skipped";
  Log("looper stats: " + std::to_string(n) + " rows, " + std::to_string(app_rows) + " of " +
      spec_.package + IfAny(", ", skipped));
  co_return std::nullopt;
}

asio::awaitable<void> Execution::SampleOrIdle(DeviceShell& shell,
                                              std::shared_ptr<ProcSamplerState> state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  if (spec_.proc_sample_interval_ms && clock_) {
    ProcSamplerConfig config;
    config.run_id = run_id_;
    config.package = spec_.package;
    config.interval = std::chrono::milliseconds(*spec_.proc_sample_interval_ms);
    config.command_timeout = options_.command_timeout;
    config.clock = *clock_;
    const int64_t started = started_ms_;
    auto now_ms = options_.now_ms;
    config.run_ms = [now_ms, started] { return now_ms() - started; };
    config.flush = [this, state] { return FlushSamples(state); };
    if (options_.proc_sampling == RunExecutorOptions::ProcSampling::kCommandPerSample) {
      auto sampling = RunProcSampler(shell, std::move(config), state);
      co_await std::move(sampling);
      co_return;
    }
    auto streaming = RunProcStreamSampler(shell, std::move(config), state);
    co_await std::move(streaming);
    // Only a command that could not be built ends it early; stay in the race like the rest.
    if (state->last_error) Log("proc sampler: " + *state->last_error);
  }
  const asio::any_io_executor forever_executor = co_await asio::this_coro::executor;
  asio::steady_timer forever(forever_executor, adb::kNoDeadline);
  while (!co_await Cancelled()) {
    boost::system::error_code ec;
    co_await forever.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> Execution::LaunchLoop(DeviceShell& shell, std::shared_ptr<LogcatFeed> feed,
                                            std::shared_ptr<ProcSamplerState> sampler,
                                            std::shared_ptr<LoopState> state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  IterationContext ctx{shell,
                       *feed,
                       spec_,
                       *preflight_,
                       *clock_,
                       YearOf(options_.now_ms()),
                       options_.command_timeout,
                       spec_.proc_sample_interval_ms ? sampler : nullptr};

  // The stream is attached once its first line (-T 1) has come: launches before that could
  // be missed.
  const std::function<bool()> attached = [&] { return feed->lines > 0; };
  const WaitResult ready = co_await WaitForLog(*feed, attached, CommandDeadline());
  if (ready == WaitResult::kCancelled) {
    state->cancelled = true;
    co_return;
  }
  if (ready != WaitResult::kDone) {
    if (ready == WaitResult::kTimeout) {
      state->error = "the logcat stream printed nothing within " +
                     std::to_string(options_.command_timeout.count()) + " ms";
    } else {
      state->error = feed->end_reason;
    }
    co_return;
  }
  if (spec_.slow_message_ms) {
    auto starting_slow = StartSlowMessages(shell, state);
    const bool slow_started = co_await std::move(starting_slow);
    if (!slow_started) co_return;
  }
  if (spec_.looper_sampling_interval) {
    // From here on the device must be restored whatever happens.
    looper_started_ = true;
    const LooperWorkload workload = [&ctx]() -> asio::awaitable<CommandResult<bool>> {
      // HOME first, so the launch is a real one (not "delivered to the top-most instance").
      auto press_home =
          ctx.shell.Run(KeyEvent("KEYCODE_HOME"), adb::DeadlineAfter(ctx.command_timeout));
      auto home = co_await std::move(press_home);
      if (!home) co_return home.error();
      co_return co_await PrimingLaunch(ctx);
    };
    const orchestrator::RecordRestore record = [this](store::DeviceRestore restore) {
      return RecordUndo(std::move(restore));
    };
    auto starting = StartLooperSession(shell, *spec_.looper_sampling_interval, workload,
                                       options_.command_timeout, record, looper_);
    auto started = co_await std::move(starting);
    if (!started) {
      if (started.error().cancelled() || co_await Cancelled()) {
        state->cancelled = true;
      } else {
        state->error = "looper stats: " + started.error().message;
      }
      co_return;
    }
    Log("looper stats on (" + looper_.gate + ")");
  }
  {
    auto priming = PrimeForMode(ctx, state, "priming launch");
    const bool primed = co_await std::move(priming);
    if (!primed) co_return;
  }
  Phase("launching");
  const int64_t total = spec_.side_by_side() ? static_cast<int64_t>(plan_.size())
                                             : spec_.warmup + spec_.iterations;
  const CoolEnough cool{spec_.max_thermal_status, spec_.max_battery_temp_tenths_c};
  for (int64_t i = 1; i <= total; ++i) {
    if (co_await Cancelled()) {
      state->cancelled = true;
      co_return;
    }
    // A batch the writer lost (a full disk) already fails the run: measure no more.
    if (std::optional<std::string> lost = lost_->Summary()) {
      state->error = std::move(lost);
      co_return;
    }
    const std::string where = "iteration " + std::to_string(i) + " of " + std::to_string(total);
    std::optional<PlannedLaunch> planned;
    if (spec_.side_by_side()) planned = plan_[static_cast<size_t>(i - 1)];
    if (planned && planned->arm != on_phone_) {
      auto switching = SwitchBuild(shell, planned->arm, i);
      std::optional<std::string> failed = co_await std::move(switching);
      if (failed || co_await Cancelled()) {
        if (co_await Cancelled()) {
          state->cancelled = true;
        } else {
          state->error = where + ": " + *failed;
        }
        co_return;
      }
      // The install killed the process a warm or hot launch comes back to.
      auto priming = PrimeForMode(ctx, state, where + ": priming launch after the install");
      const bool primed = co_await std::move(priming);
      if (!primed) co_return;
      Phase("launching");
    }
    // A hot phone slows every launch: wait until it is cool enough (cooldown.h). The launch's
    // preparation goes with the first reading: one command for both when the phone is cool.
    const size_t faults_before = ctx.feed.faults.size();
    std::vector<ShellPart> preparation = PreparationParts(ctx);
    auto cooling =
        WaitUntilCool(shell, cool, std::chrono::seconds(spec_.cooldown_timeout_s),
                      options_.cooldown_poll, options_.command_timeout, std::move(preparation));
    CommandResult<CooldownResult> cooled = co_await std::move(cooling);
    if (!cooled) {
      if (cooled.error().cancelled() || co_await Cancelled()) {
        state->cancelled = true;
      } else {
        state->error = where + ": reading the phone's temperature: " + cooled.error().message;
      }
      co_return;
    }
    if (!cooled->still_hot.empty()) {
      const std::string hot = "the phone stayed too hot for " +
                              std::to_string(spec_.cooldown_timeout_s) + " s (" +
                              cooled->still_hot + ")";
      if (spec_.cooldown_fail) {
        state->error = where + ": " + hot;
        co_return;
      }
      Log(where + ": " + hot + "; measured anyway (\"cooldown\": \"wait\")");
    } else if (cooled->waited_ms > 0) {
      Log(where + ": waited " + std::to_string(cooled->waited_ms) + " ms for the phone to cool");
    }
    std::optional<PreparedLaunch> prepared;
    if (cooled->first_read_answers) {
      prepared = PreparedLaunch{std::move(*cooled->first_read_answers), faults_before};
    }
    auto measuring = MeasureLaunch(ctx, run_id_, i, std::move(prepared));
    IterationResult it = co_await std::move(measuring);
    it.launch.warmup = planned ? planned->warmup : i <= spec_.warmup;
    if (planned) {
      it.launch.build_id = BuildOf(planned->arm);
    } else {
      it.launch.build_id = spec_.build;
    }
    if (cooled->conditions.thermal_status) {
      it.launch.thermal_status =
          std::string(ThermalStatusLowerName(*cooled->conditions.thermal_status));
    }
    it.launch.battery_temp_tenths_c = cooled->conditions.battery_temp_tenths_c;
    it.launch.cooldown_wait_ms = cooled->waited_ms;
    if (it.fatal) {
      if (it.fatal->cancelled() || co_await Cancelled()) {
        state->cancelled = true;
      } else if (it.fatal->device_lost()) {
        // "connection lost" alone does not say what to do: ask adb and the phone why.
        auto describing = DescribeDeviceLoss(shell, clock_->realtime_at_boot_ms);
        const std::string why = co_await std::move(describing);
        state->error = where + ": " + why + " (" + it.fatal->message + ")";
        state->device_fault = true;
      } else {
        state->error = where + ": " + it.fatal->message;
        state->device_fault = it.fatal->timed_out();
      }
      co_return;
    }
    const bool valid = it.launch.counted();  // a warm-up counts in no statistic
    const std::optional<std::string> reason = it.launch.invalid_reason;
    if (options_.on_launch) options_.on_launch(it.launch);
    // The frames go to the writer before the launch: once the launch is announced as stored,
    // its frames are in the same batch or an earlier one.
    if (it.frames) {
      std::vector<store::IterationFrames> frames{std::move(*it.frames)};
      auto storing_frames =
          store_.AddIterationFrames(std::move(frames), Committed(where + "'s frames"));
      store::Status stored_frames = co_await std::move(storing_frames);
      if (!stored_frames) {
        state->error = where + ": frames not stored: " + stored_frames.error().message;
        co_return;
      }
    } else if (it.frames_missing && !frames_missing_logged_) {
      frames_missing_logged_ = true;  // once a run: the same reason every iteration
      Log(where + ": no frames (" + *it.frames_missing + "); the launches are measured");
    }
    if (!it.launch.warmup) {
      ++state->measured;
      bool faulted = false;
      for (const store::IterationFault& f : it.faults) {
        if (!MakesIterationInvalid(f)) continue;  // a slow message
        faulted = true;
        if (!state->first_fault) state->first_fault = f;
        if (f.kind != state->first_fault->kind) state->one_fault_kind = false;
      }
      if (faulted) ++state->faulted;
      state->counted[i].faulted = faulted;
    }
    state->counted[i].warmup = it.launch.warmup;
    state->counted[i].valid = valid;
    auto storing_late = StoreLateFaults(std::move(it.late), state, where);
    const bool late_stored = co_await std::move(storing_late);
    if (!late_stored) co_return;
    if (!it.faults.empty()) {
      auto storing_faults =
          store_.AddIterationFaults(std::move(it.faults), Committed(where + "'s faults"));
      store::Status stored_faults = co_await std::move(storing_faults);
      if (!stored_faults) {
        state->error = where + ": faults not stored: " + stored_faults.error().message;
        co_return;
      }
    }
    if (it.memory) {
      std::vector<store::IterationMemory> memory{std::move(*it.memory)};
      auto storing_memory =
          store_.AddIterationMemory(std::move(memory), Committed(where + "'s memory"));
      store::Status stored_memory = co_await std::move(storing_memory);
      if (!stored_memory) {
        state->error = where + ": memory not stored: " + stored_memory.error().message;
        co_return;
      }
    } else if (it.memory_missing && !memory_missing_logged_) {
      memory_missing_logged_ = true;  // once a run, as the frames
      Log(where + ": no memory (" + *it.memory_missing + "); the launches are measured");
    }
    std::vector<store::Launch> one{std::move(it.launch)};
    store::Completion committed = LaunchCommitted(i, valid, where + "'s launch");
    auto storing = store_.AddLaunches(std::move(one), std::move(committed));
    store::Status s = co_await std::move(storing);
    if (!s) {
      state->error = where + ": launch not stored: " + s.error().message;
      co_return;
    }
    auto storing_samples = StoreSamplesSoFar(*sampler);
    std::optional<std::string> samples_error = co_await std::move(storing_samples);
    if (samples_error) {
      state->error = where + ": " + *samples_error;
      co_return;
    }
    ++state->launches_recorded;
    if (valid) ++state->valid_launches;
    state->iterations_done = i;
    // No progress here: it is announced once the writer committed the launch (LaunchCommitted).
    if (!valid) Log(where + " invalid: " + reason.value_or("?"));
    if (it.launch_failed && spec_.on_launch_failure == OnLaunchFailure::kFail) {
      state->error = where + ": " + reason.value_or("launch failed");
      co_return;
    }
  }
}

namespace {

// "installing build 3: INSTALL_FAILED_VERSION_DOWNGRADE: … (advice)", built outside coroutines.
std::string InstallFailureText(int64_t build_id, const adb::InstallResult& r) {
  std::string text = "installing build " + std::to_string(build_id) + " failed: ";
  if (!r.code.empty()) text += r.code + (r.reason.empty() ? "" : ": ");
  text += r.reason.empty() && r.code.empty() ? r.output : r.reason;
  if (!r.advice.empty()) text += " (" + r.advice + ")";
  return text;
}

// "switched to the candidate, build 4, compiled speed-profile" (outside coroutines, as below).
std::string ArmLogLine(const SideBySideInstall& install) {
  return "switched to the " + std::string(ArmName(install.arm)) + ", build " +
         std::to_string(install.build.id) + ", compilation reached " +
         install.compilation_reached.value_or("unknown");
}

// Built outside the coroutine (no conditional between strings there: device_shell.h, IfAny).
std::string CompilationLogLine(const CompilationRecord& c) {
  std::string line = std::string("compilation ") + CompilationName(c.requested) + ": reached " +
                     c.reached.value_or("unknown");
  if (!c.command.empty()) line += " by `" + c.command + "`";
  return line;
}

}  // namespace

asio::awaitable<store::Status> Execution::StoreInstallIntention() {
  intention_stored_ = true;
  if (preflight_) {
    auto storing = StoreRunningPreflight();
    co_return co_await std::move(storing);
  }
  store::RunStatusUpdate running;
  running.status = store::RunStatus::kRunning;
  running.preflight_json = InstalledBuildOnlyJson(*installed_);
  auto updating = UpdateStatus(std::move(running));
  store::Status s = co_await std::move(updating);
  co_return s;
}

asio::awaitable<store::Status> Execution::StoreRunningPreflight() {
  store::RunStatusUpdate running;
  running.status = store::RunStatus::kRunning;
  running.preflight_json =
      PreflightJson(*preflight_, clock_ ? &*clock_ : nullptr, nullptr,
                    compilation_ ? &*compilation_ : nullptr, installed_ ? &*installed_ : nullptr,
                    side_by_side_ ? &*side_by_side_ : nullptr);
  auto updating = UpdateStatus(std::move(running));
  store::Status s = co_await std::move(updating);
  co_return s;
}

asio::awaitable<InstallAttempt> Execution::InstallBuild(DeviceShell& shell, int64_t build_id) {
  Phase("installing");
  InstallAttempt attempt;
  auto reading = store_.GetBuild(build_id);
  auto build = co_await std::move(reading);
  if (!build) {
    attempt.error = "build " + std::to_string(build_id) +
                    " is not kept (deleted?): " + build.error().message;
    co_return attempt;
  }
  if (build->package != spec_.package) {
    attempt.error = "build " + std::to_string(build_id) + " is " + build->package +
                    ", not the run's package " + spec_.package;
    co_return attempt;
  }
  if (options_.builds_dir.empty()) {
    attempt.error =
        "this daemon keeps no builds: build " + std::to_string(build_id) + " cannot be installed";
    co_return attempt;
  }
  auto checking = WhyInstallOnDevice(shell, store_, *build, CommandDeadline());
  std::optional<std::string> why_install = co_await std::move(checking);
  if (!why_install) {
    attempt.installed = AlreadyInstalled(*build);
    Log("build " + std::to_string(build_id) + " is already installed (same versionCode, signature "
        "and bytes as droidlab's last install there): not installed again");
    co_return attempt;
  }
  Log("installing build " + std::to_string(build_id) + " (" + build->package + " versionCode " +
      std::to_string(build->version_code) + ", " + std::to_string(build->size) + " bytes): " +
      *why_install);
  // Recorded before it is made: from here until the install is seen to end, what the phone has is
  // unknown (installed_build.h, kInstalling), so a crash mid-install makes the next run install
  // again rather than trust the record of what was there before.
  std::optional<InstalledBuild> before = installed_;
  installed_ = InstallIntention(*build);
  auto recording = StoreInstallIntention();
  store::Status recorded = co_await std::move(recording);
  if (!recorded) {
    installed_ = std::move(before);
    attempt.error = "the install of build " + std::to_string(build_id) +
                    " not recorded (the phone is not changed): " + recorded.error().message;
    co_return attempt;
  }
  const int64_t started = options_.now_ms();
  auto log = options_.log;
  adb::ProgressCallback progress = [log, next_percent = 25](uint64_t sent, uint64_t total) mutable {
    if (!log || total == 0) return;
    const int percent = static_cast<int>(sent * 100 / total);
    if (percent >= next_percent && sent < total) {
      log("install " + std::to_string(percent) + " % (" + std::to_string(sent) + " of " +
          std::to_string(total) + " bytes)");
      while (next_percent <= percent) next_percent += 25;
    }
  };
  adb::InstallOptions install_options;
  install_options.replace = true;
  // The build under test may be older than what the phone has (tonight's against the release).
  install_options.allow_downgrade = true;
  // One APK, or a base with its splits and .dm in one install session (builds/build_install.h).
  auto sending = InstallKeptBuild(shell.client(), shell.serial(), options_.builds_dir, *build,
                                  install_options, std::move(progress),
                                  adb::DeadlineAfter(options_.install_timeout));
  auto sent = co_await std::move(sending);
  if (!sent) {
    attempt.cancelled = sent.error().code == adb::AdbErrc::kCancelled || co_await Cancelled();
    attempt.error = "installing build " + std::to_string(build_id) + ": " + sent.error().message;
    co_return attempt;
  }
  if (!sent->success) {
    // The package manager refused it: the phone keeps what it had (installs are atomic).
    installed_ = std::move(before);
    attempt.error = InstallFailureText(build_id, *sent);
    co_return attempt;
  }
  InstalledBuild installed;
  installed.id = build_id;
  installed.sha256 = build->sha256;
  installed.version_code = build->version_code;
  installed.method = std::string(adb::InstallMethodName(sent->method));
  installed.bytes = static_cast<int64_t>(sent->bytes);
  installed.install_ms = options_.now_ms() - started;
  Log("build " + std::to_string(build_id) + " installed in " +
      std::to_string(installed.install_ms) + " ms over " + installed.method);
  attempt.installed = std::move(installed);
  co_return attempt;
}

asio::awaitable<bool> Execution::InstallFirstBuild(DeviceShell& shell) {
  const int64_t build_id = spec_.side_by_side() ? *spec_.baseline_build : *spec_.build;
  auto installing = InstallBuild(shell, build_id);
  InstallAttempt attempt = co_await std::move(installing);
  if (!attempt.installed) {
    if (attempt.cancelled) {
      End(store::RunStatus::kCancelled, "cancelled during installing build " +
                                            std::to_string(build_id));
    } else {
      End(store::RunStatus::kFailed, std::move(attempt.error));
    }
    co_return false;
  }
  if (side_by_side_) {
    // Its installs are recorded together (preflight.side_by_side), the first one too.
    SideBySideInstall first;
    first.arm = Arm::kBaseline;
    first.build = *attempt.installed;
    side_by_side_->installs.push_back(std::move(first));
    on_phone_ = Arm::kBaseline;
  }
  // preflight.build: the build this run last installed — what the phone has now, which the next
  // run's check reads (installed_build.h).
  installed_ = std::move(attempt.installed);
  co_return true;
}

asio::awaitable<std::optional<std::string>> Execution::SwitchBuild(DeviceShell& shell, Arm arm,
                                                                   int64_t next_iteration) {
  const int64_t build_id = BuildOf(arm);
  auto installing = InstallBuild(shell, build_id);
  InstallAttempt attempt = co_await std::move(installing);
  if (!attempt.installed) co_return std::move(attempt.error);
  on_phone_ = arm;
  installed_ = attempt.installed;  // what the phone has now (InstallFirstBuild)
  SideBySideInstall install;
  install.arm = arm;
  install.build = std::move(*attempt.installed);
  install.before_iteration = next_iteration;
  // An install resets the compilation state (to what the install's dexopt gives): force it
  // again, so that both builds are measured in the state asked for.
  Phase("compiling");
  CompilationRecord record;
  record.requested = spec_.compilation;
  auto forcing = ForceCompilation(shell, spec_.package, std::move(record), preflight_->sdk,
                                  options_.compile_timeout, options_.command_timeout);
  auto forced = co_await std::move(forcing);
  if (!forced) co_return "setting the compilation state of build " + std::to_string(build_id) +
                         ": " + forced.error().message;
  install.compilation_reached = forced->reached;
  if (auto mismatch = CompilationMismatch(*forced, preflight_->sdk)) {
    co_return "build " + std::to_string(build_id) + ": " + *mismatch;
  }
  Log(ArmLogLine(install));
  side_by_side_->installs.push_back(std::move(install));
  auto storing = StoreRunningPreflight();
  store::Status s = co_await std::move(storing);
  if (!s) co_return "the switch of build not stored: " + s.error().message;
  co_return std::nullopt;
}

asio::awaitable<bool> Execution::SetCompilation(DeviceShell& shell) {
  Phase("compiling");
  CompilationRecord record;
  record.requested = spec_.compilation;
  record.before = preflight_->compiler_filter;
  compilation_ = record;
  if (!CompileCommand(spec_.package, spec_.compilation, preflight_->sdk).empty()) {
    // The change is the user's to make and is not undone, but it is recorded before it is made.
    auto storing = StoreRunningPreflight();
    store::Status s = co_await std::move(storing);
    if (!s) {
      End(store::RunStatus::kFailed,
          "the compilation asked for not stored (the phone is not changed): " + s.error().message);
      co_return false;
    }
  }
  auto forcing = ForceCompilation(shell, spec_.package, std::move(record), preflight_->sdk,
                                  options_.compile_timeout, options_.command_timeout);
  auto forced = co_await std::move(forcing);
  if (!forced) {
    const bool run_cancelled = co_await Cancelled();
    EndAfterError(forced.error(), "setting the compilation state", run_cancelled);
    co_return false;
  }
  compilation_ = std::move(forced).value();
  for (const auto& w : compilation_->warnings) {
    Log("compilation: " + w);
    preflight_->warnings.push_back(w);
  }
  if (auto mismatch = CompilationMismatch(*compilation_, preflight_->sdk)) {
    End(store::RunStatus::kFailed, std::move(mismatch));
    co_return false;
  }
  Log(CompilationLogLine(*compilation_));
  auto storing = StoreRunningPreflight();
  store::Status s = co_await std::move(storing);
  if (!s) {
    End(store::RunStatus::kFailed, "the compilation reached not stored: " + s.error().message);
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> Execution::RereadCompilation(DeviceShell& shell) {
  if (!compilation_) co_return;
  auto reading = ReadCompilerFilter(shell, spec_.package, options_.command_timeout);
  auto after = co_await std::move(reading);
  if (!after) {
    Log("compilation state not read after the run: " + after.error().message);
    co_return;
  }
  compilation_->after = *after;
  if (compilation_->ChangedDuringRun()) {
    const std::string why = "the compilation state changed during the run: " +
                            compilation_->reached.value_or("?") + " → " +
                            compilation_->after.value_or("?") + " (background dexopt?)";
    Log(why);
    preflight_->warnings.push_back(why);
  }
}

asio::awaitable<RunOutcome> Execution::Run() {
  co_await asio::this_coro::throw_if_cancelled(false);
  executor_ = co_await asio::this_coro::executor;
  announce_ = std::make_shared<std::function<void()>>([this] { Phase(progress_.phase); });
  started_ms_ = options_.now_ms();
  Phase("preflight");
  if (auto e = ValidateRunSpec(spec_)) {
    {
      End(store::RunStatus::kFailed, "invalid run: " + e->field + " " + e->message);
      co_return co_await Finish();
    }
  }
  auto serial = adb::Serial::Parse(spec_.serial);
  if (!serial) {
    End(store::RunStatus::kFailed, serial.error().message);
    co_return co_await Finish();
  }
  DeviceShell shell(client_, *serial);
  // From here to the run's end the registry pays nothing this device owes: what this run
  // records as owed is its own to put back (owed_restores.h).
  run_hold_.emplace(Owed(), spec_.serial);

  // 0. What an earlier run (of this daemon or of one that died) left changed on the device and
  // could not put back, before anything reads it.
  {
    const adb::Deadline until = adb::DeadlineAfter(options_.restore_timeout);
    auto paying = Owed().Pay(client_, spec_.serial, until, options_.log);
    std::optional<std::string> unpaid = co_await std::move(paying);
    if (unpaid) {
      End(store::RunStatus::kFailed,
          "what an earlier run changed on the device (looper_stats setting, battery) is not "
          "restored: " +
              *unpaid);
      co_return co_await Finish();
    }
  }

  // 0b. The build under test, installed before anything reads the package.
  if (spec_.build) {
    auto installing = InstallFirstBuild(shell);
    const bool installed = co_await std::move(installing);
    if (!installed) co_return co_await Finish();
  }

  // 1-3. Resolve, preflight, clock; then the run is running.
  auto preflight = co_await RunPreflight(shell, spec_, CommandDeadline());
  if (!preflight) {
    const bool run_cancelled = co_await Cancelled();
    EndAfterError(preflight.error(), "preflight", run_cancelled);
    co_return co_await Finish();
  }
  preflight_ = std::move(preflight).value();
  if (spec_.preflight_enforce && !preflight_->warnings.empty()) {
    std::string why;
    for (const auto& w : preflight_->warnings) why += (why.empty() ? "" : "; ") + w;
    {
      End(store::RunStatus::kFailed, "preflight refused the device: " + why);
      co_return co_await Finish();
    }
  }
  auto clock = co_await ReadDeviceClock(shell, CommandDeadline());
  if (!clock) {
    const bool run_cancelled = co_await Cancelled();
    EndAfterError(clock.error(), "reading the device clock", run_cancelled);
    co_return co_await Finish();
  }
  clock_ = *clock;
  {
    store::RunStatusUpdate running;
    running.status = store::RunStatus::kRunning;
    running.started_at = started_ms_;
    running.fingerprint = preflight_->fingerprint;
    running.preflight_json =
        PreflightJson(*preflight_, &*clock_, nullptr, nullptr, installed_ ? &*installed_ : nullptr,
                      side_by_side_ ? &*side_by_side_ : nullptr);
    auto updating = UpdateStatus(std::move(running));
    store::Status s = co_await std::move(updating);
    if (!s) {
      {
        End(store::RunStatus::kFailed, "status `running` not stored: " + s.error().message);
        co_return co_await Finish();
      }
    }
    progress_.running = true;
  }
  for (const auto& w : preflight_->warnings) Log("preflight warning: " + w);

  // 3b. The compilation state asked for: what is about to change is on disk first, then it is
  // forced and read back (compilation.h).
  {
    auto compiling = SetCompilation(shell);
    const bool compiled = co_await std::move(compiling);
    if (!compiled) co_return co_await Finish();
    if (side_by_side_) side_by_side_->installs.front().compilation_reached = compilation_->reached;
  }

  std::optional<std::string> error;
  bool cancelled = false;

  // 4-6. One logcat stream, the sampler, and the looper session and launches — raced so that
  // the end of the launches (or a cancel) ends the other two.
  auto loop = std::make_shared<LoopState>();
  auto sampler = std::make_shared<ProcSamplerState>();
  {
    auto feed = std::make_shared<LogcatFeed>();
    try {
      auto race = FollowLogcat(shell, feed) || SampleOrIdle(shell, sampler) ||
                  LaunchLoop(shell, feed, sampler, loop);
      co_await std::move(race);
    } catch (const std::exception& e) {
      Log(std::string("launch loop threw: ") + e.what());
      loop->error = std::string("internal error: ") + e.what();
    }
    outcome_.launches_recorded = loop->launches_recorded;
    outcome_.valid_launches = loop->valid_launches;
    if (loop->cancelled || co_await Cancelled()) {
      cancelled = true;
    } else if (loop->error) {
      error = loop->error;
      outcome_.device_fault = loop->device_fault;
    } else if (loop->valid_launches == 0 && loop->measured > 0 && loop->faulted == loop->measured &&
               loop->first_fault) {
      error = EveryIterationFaultedReason(*loop->first_fault, loop->one_fault_kind);
    } else if (loop->valid_launches == 0) {
      // No conditional between std::string arms here: g++ 12 miscompiles it in a coroutine
      // (device_shell.h, IfAny).
      std::string why = "no valid launch in " + std::to_string(spec_.iterations) + " iterations";
      if (spec_.warmup > 0) why += " (after " + std::to_string(spec_.warmup) + " warm-ups)";
      error = std::move(why);
    }
  }
  {
    auto storing_samples = StoreSamplesSoFar(*sampler);
    std::optional<std::string> samples_error = co_await std::move(storing_samples);
    if (samples_error && !error) error = samples_error;
    outcome_.proc_samples = samples_stored_;
    // The stream sampler's troubles, said once at the end rather than per line.
    if (sampler->streams_opened > 1 || sampler->bad_frames + sampler->stray_lines > 0) {
      Log("proc sampler: " + std::to_string(sampler->streams_opened) + " streams, " +
          std::to_string(sampler->bad_frames) + " frames dropped, " +
          std::to_string(sampler->stray_lines) + " stray lines; last: " +
          sampler->last_error.value_or("-"));
    }
  }

  // 6b. Did the compilation state hold (background dexopt)?
  if (!cancelled) {
    auto rereading = RereadCompilation(shell);
    co_await std::move(rereading);
  }

  // 7. The looper dump, only for a run that got through its launches.
  if (looper_started_ && !error && !cancelled) {
    if (auto e = co_await CollectLooperStats(shell)) {
      if (co_await Cancelled()) {
        cancelled = true;
      } else {
        error = *e;
      }
    }
  }

  // 8. Always: the device as it was.
  co_await asio::this_coro::reset_cancellation_state();
  auto restore_error = co_await Restore(shell);
  run_hold_.reset();  // the run changes nothing more: what is still owed is the registry's to pay
  // 9. Nothing is reported that the store does not have: wait for the writer — a cancelled run
  // too, so that no launch's completion comes after the run (and its executor) is gone.
  auto checking_writes = WritesLost();
  const std::optional<std::string> lost = co_await std::move(checking_writes);
  {
    std::lock_guard lock(stored_->mutex);
    outcome_.launches_recorded = stored_->count;
    outcome_.valid_launches = stored_->valid;
  }
  if (cancelled) {
    std::string why = "cancelled" + IfAny("; restore failed: ", restore_error.value_or(""));
    {
      End(store::RunStatus::kCancelled, std::move(why));
      co_return co_await Finish();
    }
  }
  if (!error && restore_error) error = "the device not restored: " + *restore_error;
  if (lost && !error) error = lost;
  if (error) {
    End(store::RunStatus::kFailed, error);
    co_return co_await Finish();
  }
  {
    End(store::RunStatus::kSucceeded, std::nullopt);
    co_return co_await Finish();
  }
}

}  // namespace

asio::awaitable<RunOutcome> ExecuteRun(adb::Client& client, store::Store& store, int64_t run_id,
                                       RunSpec spec, RunExecutorOptions options) {
  auto log = options.log;
  std::function<int64_t()> now_ms = options.now_ms;
  if (!now_ms) now_ms = WallNowMs;
  Execution execution(client, store, run_id, std::move(spec), std::move(options));
  std::string what;
  try {
    co_return co_await execution.Run();
  } catch (const std::exception& e) {
    // Errors never throw out of here (run_executor.h); a bug must still end as a failed run.
    what = std::string("run ") + std::to_string(run_id) + ": internal error: " + e.what();
    if (log) {
      log(what);
    } else {
      std::cerr << "run_executor: " << what << '\n';
    }
  }
  // Recorded here (no co_await in a handler), and announced only if it is on disk.
  RunOutcome outcome;
  outcome.error = what;
  store::RunStatusUpdate update;
  update.run_id = run_id;
  update.status = store::RunStatus::kFailed;
  update.error = what;
  update.finished_at = now_ms();
  store::AsyncStore door(store);
  auto updating = door.UpdateRunStatus(std::move(update));
  const store::Status stored = co_await std::move(updating);
  outcome.status_stored = stored.ok();
  co_return outcome;
}

}  // namespace droidlab::orchestrator
