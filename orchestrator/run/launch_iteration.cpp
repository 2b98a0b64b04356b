#include "orchestrator/run/launch_iteration.h"

#include <algorithm>
#include <charconv>
#include <functional>

#include "orchestrator/run/device_commands.h"
#include "orchestrator/run/frames_collector.h"
#include "orchestrator/run/iteration_faults.h"
#include "orchestrator/run/launch_matcher.h"
#include "orchestrator/run/memory_collector.h"
#include "orchestrator/run/scenario_runner.h"
#include "parsers/am_start.h"
#include "parsers/pidof.h"
#include "parsers/proc_stat.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {


// Outside the coroutine: with the parse result in the coroutine frame g++ 12 warned
// -Wmismatched-new-delete on the frame, the same warning that flagged its miscompiled string
// conditionals (see IfAny in device_shell.h), so it is not trusted to be harmless.
std::optional<uint64_t> StartTimeTicks(std::string_view stat_line) {
  auto parsed = parsers::ParseProcPidStat(stat_line);
  if (!parsed) return std::nullopt;
  return parsed->starttime;
}

// am start -W's values into the launch; the reason when it did not launch.
std::optional<std::string> ApplyAmStart(const std::string& output, const std::string& command,
                                        store::Launch& launch) {
  auto parsed = parsers::ParseAmStart(output);
  if (!parsed) return "`" + command + "` printed nothing am prints: " + parsed.error().message;
  launch.launch_state = parsed->launch_state;
  launch.total_time_ms = parsed->total_time_ms;
  launch.wait_time_ms = parsed->wait_time_ms;
  if (parsed->error) return "am start: " + *parsed->error;
  if (parsed->status && *parsed->status != "ok") return "am start status: " + *parsed->status;
  return std::nullopt;
}

bool HasTotalTime(const std::string& am_output) {
  auto parsed = parsers::ParseAmStart(am_output);
  return parsed && parsed->total_time_ms.has_value();
}

// A failed command: fatal when the device is gone or the run cancelled, else the launch's.
bool IsFatal(const CommandError& e) { return e.device_lost() || e.cancelled(); }

// pidof's answer: the app's pid, none (pidof exits 1 when no process has the name), or the
// command's error.
CommandResult<std::optional<int64_t>> PidOfAnswer(const CommandResult<adb::ShellResult>& r) {
  if (!r) return r.error();
  if (r->exit_code.value_or(0) != 0) return std::optional<int64_t>();
  return parsers::FirstPid(r->out);
}

asio::awaitable<CommandResult<std::optional<int64_t>>> AppPid(IterationContext& ctx) {
  auto pidof =
      ctx.shell.Run(Pidof(ctx.spec.package), adb::DeadlineAfter(ctx.command_timeout), false);
  auto r = co_await std::move(pidof);
  co_return PidOfAnswer(r);
}

// The fork time in the answer of `cat /proc/PID/stat`, if it printed one.
std::optional<int64_t> ForkAtMs(const IterationContext& ctx,
                                const CommandResult<adb::ShellResult>& stat) {
  if (!stat || stat->exit_code.value_or(0) != 0) return std::nullopt;
  auto ticks = StartTimeTicks(stat->out);
  if (!ticks) return std::nullopt;
  return ctx.clock.TicksToMs(*ticks);
}

std::string StartArgvText(const IterationContext& ctx) {
  return "am start -W -n " + ctx.target.component;
}

// The earlier iteration whose launch started the fault's process, if it is not this launch's.
IterationContext::EarlierIteration* EarlierIterationOf(IterationContext& ctx,
                                                       const parsers::FaultEvent& fault,
                                                       const store::Launch& launch) {
  if (!fault.pid || fault.pid == launch.pid) return nullptr;
  const auto it = ctx.earlier.find(*fault.pid);
  if (it == ctx.earlier.end() || it->second.iteration == launch.iteration) return nullptr;
  return &it->second;
}

// True once a fault of the package's that is this iteration's came (not a late one).
bool HasPackageFault(IterationContext& ctx, size_t first_fault, const store::Launch& launch) {
  for (size_t i = first_fault; i < ctx.feed.faults.size(); ++i) {
    const parsers::FaultEvent& f = ctx.feed.faults[i];
    if (IsPackageFault(f, ctx.spec.package) && !EarlierIterationOf(ctx, f, launch)) return true;
  }
  return false;
}

// The package's faults since `first_fault` into the result, then its process's slow messages
// (they invalidate nothing); the first fault's reason becomes the launch's, whatever it was.
// A fault of an earlier iteration's process goes to result.late instead. Last, this launch's
// process is recorded as this iteration's.
void MarkFaults(IterationContext& ctx, size_t first_fault, IterationResult& result) {
  const std::span<const parsers::FaultEvent> since =
      std::span(ctx.feed.faults).subspan(first_fault);
  const auto faults = PackageFaults(since, ctx.spec.package);
  auto stored = [&](const parsers::FaultEvent& f, int64_t iteration, int64_t seq) {
    std::optional<int64_t> at_ms;
    if (auto t = parsers::LogTimeToEpochMs(f.log_time, ctx.year)) at_ms = ctx.clock.ToBootMs(*t);
    return StoredFault(f, result.launch.run_id, iteration, seq, at_ms);
  };
  auto store = [&](const parsers::FaultEvent& f) {
    result.faults.push_back(stored(f, result.launch.iteration,
                                   static_cast<int64_t>(result.faults.size())));
  };
  const parsers::FaultEvent* first_own = nullptr;
  for (const parsers::FaultEvent& f : faults) {
    IterationContext::EarlierIteration* earlier = EarlierIterationOf(ctx, f, result.launch);
    if (!earlier) {
      if (!first_own) first_own = &f;
      store(f);
      continue;
    }
    auto late = std::find_if(result.late.begin(), result.late.end(),
                             [&](const LateFaults& l) { return l.iteration == earlier->iteration; });
    if (late == result.late.end()) {
      late = result.late.insert(result.late.end(), LateFaults{earlier->iteration, {}, ""});
      late->invalid_reason = FaultInvalidReason(f);
    }
    late->faults.push_back(stored(f, earlier->iteration, earlier->faults++));
  }
  for (const parsers::FaultEvent& f : since) {
    if (IsAppSlowMessage(f, result.launch.pid)) store(f);
  }
  if (result.launch.pid) {
    ctx.earlier[*result.launch.pid] = IterationContext::EarlierIteration{
        result.launch.iteration, static_cast<int64_t>(result.faults.size())};
  }
  if (!first_own) return;
  result.launch.valid = false;
  result.launch.invalid_reason = FaultInvalidReason(*first_own);
}

}  // namespace

const char* ExpectedLaunchState(LaunchMode mode) {
  switch (mode) {
    case LaunchMode::kCold:
      return "COLD";
    case LaunchMode::kWarm:
      return "WARM";
    case LaunchMode::kHot:
      return "HOT";
  }
  return "COLD";
}

asio::awaitable<CommandResult<bool>> PrimingLaunch(IterationContext& ctx) {
  const size_t first_event = ctx.feed.events.size();
  const auto deadline = adb::DeadlineAfter(std::chrono::milliseconds(ctx.spec.launch_timeout_ms));
  auto am_start = ctx.shell.Run(AmStartW(ctx.target.component), deadline);
  auto r = co_await std::move(am_start);
  if (!r) co_return r.error();
  // Wait for its Displayed line too (on a phone `am start -W` already did): a launch still
  // drawing when the next one starts would lend it its lines. An activity already on top is
  // "delivered" without a launch (no TotalTime) and logs no Displayed line.
  const LaunchTarget target{ctx.spec.package, ctx.target.activity_class};
  MatchedLaunch matched;
  if (!HasTotalTime(r->out)) {
    // Still wait for its START line, so that it cannot come in the next launch's lines.
    const std::function<bool()> started = [&] {
      return MatchLaunch(std::span(ctx.feed.events).subspan(first_event), target).start.has_value();
    };
    const WaitResult waited =
        co_await WaitForLog(ctx.feed, started, adb::DeadlineAfter(ctx.command_timeout));
    if (waited == WaitResult::kCancelled) {
      co_return CommandError{adb::AdbErrc::kCancelled, "cancelled"};
    }
    co_return true;
  }
  const std::function<bool()> displayed = [&] {
    matched = MatchLaunch(std::span(ctx.feed.events).subspan(first_event), target);
    return matched.displayed.has_value();
  };
  const std::function<bool()> fully_drawn = [&] {
    matched = MatchLaunch(std::span(ctx.feed.events).subspan(first_event), target);
    return matched.fully_drawn.has_value();
  };
  WaitResult waited = co_await WaitForLog(ctx.feed, displayed, deadline);
  if (waited == WaitResult::kDone && ctx.spec.fully_drawn_timeout_ms > 0) {
    // Its Fully drawn too, or it would come during the next launch (none is no error here).
    waited = co_await WaitForLog(
        ctx.feed, fully_drawn,
        adb::DeadlineAfter(std::chrono::milliseconds(ctx.spec.fully_drawn_timeout_ms)));
    if (waited == WaitResult::kTimeout) waited = WaitResult::kDone;
  }
  if (waited == WaitResult::kCancelled) {
    co_return CommandError{adb::AdbErrc::kCancelled, "cancelled"};
  }
  if (waited == WaitResult::kStreamEnded) {
    co_return CommandError{adb::AdbErrc::kConnectionLost, ctx.feed.end_reason};
  }
  if (waited == WaitResult::kTimeout) {
    co_return CommandError{std::nullopt, "no Displayed line for " + ctx.target.component +
                                             " within " +
                                             std::to_string(ctx.spec.launch_timeout_ms) + " ms"};
  }
  co_return true;
}

std::vector<ShellPart> PreparationParts(const IterationContext& ctx) {
  std::vector<std::string> prepare;
  switch (ctx.spec.mode) {
    case LaunchMode::kCold:
      prepare = ForceStop(ctx.spec.package);
      break;
    case LaunchMode::kWarm:
      prepare = KeyEvent("KEYCODE_BACK");
      break;
    case LaunchMode::kHot:
      prepare = KeyEvent("KEYCODE_HOME");
      break;
  }
  return {{std::move(prepare), true},
          {DumpsysGfxinfoReset(ctx.spec.package), false},
          {Pidof(ctx.spec.package), false}};
}

asio::awaitable<IterationResult> MeasureLaunch(IterationContext& ctx, int64_t run_id,
                                               int64_t iteration,
                                               std::optional<PreparedLaunch> prepared_before) {
  IterationResult result;
  store::Launch& launch = result.launch;
  launch.run_id = run_id;
  launch.iteration = iteration;
  auto fail_launch = [&](std::string reason) {
    launch.valid = false;
    if (!launch.invalid_reason) launch.invalid_reason = std::move(reason);
    result.launch_failed = true;
  };

  // 1. Prepare the app for the mode, reset its frames and ask for its process: one command
  // (PreparationParts), each part's failure its own — sent here unless the executor sent it
  // with the cool-down's reading. The faults from before it are not the iteration's (the last
  // one's were completed at its end).
  std::vector<CommandResult<adb::ShellResult>> prepared;
  size_t first_fault = 0;
  if (prepared_before && prepared_before->answers.size() == 3) {
    prepared = std::move(prepared_before->answers);
    first_fault = prepared_before->first_fault;
  } else {
    first_fault = ctx.feed.faults.size();
    std::vector<ShellPart> preparation = PreparationParts(ctx);
    auto preparing =
        ctx.shell.RunJoined(std::move(preparation), adb::DeadlineAfter(3 * ctx.command_timeout));
    auto answers = co_await std::move(preparing);
    prepared = std::move(answers);
  }
  if (!prepared[0]) {
    if (IsFatal(prepared[0].error())) {
      result.fatal = prepared[0].error();
      co_return result;
    }
    fail_launch("preparing the " + std::string(LaunchModeName(ctx.spec.mode)) +
                " launch failed: " + prepared[0].error().message);
    co_return result;
  }
  // The frames are the iteration's own from here (a cold launch's new process has none yet).
  // A reset that did not happen would leave a warm or hot launch the frames of the iteration
  // before: then the iteration has none.
  std::optional<std::string> frames_not_reset;
  if (!prepared[1]) {
    if (IsFatal(prepared[1].error())) {
      result.fatal = prepared[1].error();
      co_return result;
    }
    frames_not_reset = "dumpsys gfxinfo reset: " + prepared[1].error().message;
  }
  const CommandResult<std::optional<int64_t>> pid_before = PidOfAnswer(prepared[2]);
  if (!pid_before && IsFatal(pid_before.error())) {
    result.fatal = pid_before.error();
    co_return result;
  }

  // 2. Launch; the iteration's lines are those after this point of the stream.
  const size_t first_event = ctx.feed.events.size();
  const auto launch_deadline =
      adb::DeadlineAfter(std::chrono::milliseconds(ctx.spec.launch_timeout_ms));
  auto am_start = ctx.shell.Run(AmStartW(ctx.target.component), launch_deadline, false);
  auto am = co_await std::move(am_start);
  if (!am) {
    if (IsFatal(am.error())) {
      result.fatal = am.error();
      co_return result;
    }
    if (am.error().timed_out()) {
      fail_launch("`" + StartArgvText(ctx) + "` did not answer within " +
                  std::to_string(ctx.spec.launch_timeout_ms) + " ms");
    } else {
      fail_launch(am.error().message);
    }
  } else if (auto failure = ApplyAmStart(am->out + am->err, StartArgvText(ctx), launch)) {
    fail_launch(*failure);
  }

  // 3. The iteration's lines: Displayed within the launch deadline, Fully drawn after it.
  const LaunchTarget target{ctx.spec.package, ctx.target.activity_class};
  MatchedLaunch matched;
  auto match = [&] {
    matched = MatchLaunch(std::span(ctx.feed.events).subspan(first_event), target);
    return matched;
  };
  if (!result.launch_failed) {
    const std::function<bool()> displayed = [&] { return match().displayed.has_value(); };
    const WaitResult waited = co_await WaitForLog(ctx.feed, displayed, launch_deadline);
    if (waited == WaitResult::kCancelled) {
      result.fatal = CommandError{adb::AdbErrc::kCancelled, "cancelled"};
      co_return result;
    }
    if (waited == WaitResult::kStreamEnded) {
      result.fatal = CommandError{adb::AdbErrc::kConnectionLost, ctx.feed.end_reason};
      co_return result;
    }
    if (waited == WaitResult::kTimeout) {
      fail_launch("no Displayed line for " + ctx.target.component + " within " +
                  std::to_string(ctx.spec.launch_timeout_ms) + " ms");
    }
    if (matched.displayed && ctx.spec.fully_drawn_timeout_ms > 0) {
      const std::function<bool()> fully_drawn = [&] { return match().fully_drawn.has_value(); };
      const WaitResult drawn = co_await WaitForLog(
          ctx.feed, fully_drawn,
          adb::DeadlineAfter(std::chrono::milliseconds(ctx.spec.fully_drawn_timeout_ms)));
      if (drawn == WaitResult::kCancelled) {
        result.fatal = CommandError{adb::AdbErrc::kCancelled, "cancelled"};
        co_return result;
      }
    }
  } else {
    match();
  }

  // 4. Values and phases.
  if (matched.displayed) launch.displayed_ms = matched.displayed->duration_ms;
  // Only when waited for: without the wait, a previous launch's late line could be taken.
  if (matched.fully_drawn && ctx.spec.fully_drawn_timeout_ms > 0) {
    launch.fully_drawn_ms = matched.fully_drawn->duration_ms;
  }
  if (matched.start) {
    if (auto t = parsers::LogTimeToEpochMs(matched.start->log_time, ctx.year)) {
      launch.intent_at_ms = ctx.clock.ToBootMs(*t);
    }
  }
  if (launch.intent_at_ms && launch.displayed_ms) {
    // ActivityMetricsLogger counts Displayed from the intent's arrival, the START line.
    launch.displayed_at_ms = *launch.intent_at_ms + *launch.displayed_ms;
  } else if (matched.displayed) {
    if (auto t = parsers::LogTimeToEpochMs(matched.displayed->log_time, ctx.year)) {
      launch.displayed_at_ms = ctx.clock.ToBootMs(*t);
    }
  }
  std::optional<int64_t> pid_after;
  if (matched.process_start && matched.process_start->process_pid) {
    pid_after = matched.process_start->process_pid;
  } else {
    auto p = co_await AppPid(ctx);
    if (!p && IsFatal(p.error())) {
      result.fatal = p.error();
      co_return result;
    }
    if (p) pid_after = *p;
  }
  launch.pid = pid_after;
  if (pid_after && ctx.sampler) ctx.sampler->pid = pid_after;
  // The fork time of a process this launch started (a warm/hot launch's process is older): read
  // with the frames and the memory at the end (step 7), unless a scenario comes first, which
  // may end the process.
  const bool read_fork = matched.process_start && pid_after;
  if (read_fork && !ctx.spec.scenario.empty()) {
    auto cat_stat =
        ctx.shell.Run(CatProcStat(*pid_after), adb::DeadlineAfter(ctx.command_timeout), false);
    auto stat = co_await std::move(cat_stat);
    if (!stat && IsFatal(stat.error())) {
      result.fatal = stat.error();
      co_return result;
    }
    launch.fork_at_ms = ForkAtMs(ctx, stat);
  }

  // 5. Is it the launch the mode asked for?
  const std::string expected = ExpectedLaunchState(ctx.spec.mode);
  const bool process_started =
      matched.process_start.has_value() ||
      (pid_before && *pid_before && pid_after && *pid_before != pid_after) ||
      (pid_before && !*pid_before && pid_after);
  if (launch.valid) {
    if (launch.launch_state) {
      if (*launch.launch_state != expected) {
        launch.valid = false;
        launch.invalid_reason = "LaunchState " + *launch.launch_state + ", expected " + expected;
      }
    } else if (ctx.spec.mode == LaunchMode::kCold && !process_started) {
      launch.valid = false;
      launch.invalid_reason = "no process was started: not a cold launch";
    } else if (ctx.spec.mode != LaunchMode::kCold && process_started) {
      launch.valid = false;
      launch.invalid_reason = "a process was started: a cold launch, expected " + expected;
    }
  }

  // 6. The scenario, once the app is up: what is measured after it (frames, memory) is of it.
  if (!result.launch_failed && !ctx.spec.scenario.empty()) {
    auto playing = RunScenario(ctx.shell, ctx.spec.scenario, ctx.spec.package);
    ScenarioOutcome played = co_await std::move(playing);
    if (played.fatal) {
      result.fatal = std::move(played.fatal);
      co_return result;
    }
    if (played.failure) {
      launch.valid = false;
      if (!launch.invalid_reason) launch.invalid_reason = std::move(played.failure);
    }
  }

  // 7. The fork time (above), the frames of the launch and the scenario, and the memory at the
  // iteration's end (memory_collector.h): one command, each part's failure its own.
  const bool read_frames = !frames_not_reset && !result.launch_failed;
  if (frames_not_reset) result.frames_missing = std::move(frames_not_reset);
  if (read_frames && !ctx.display_period_read) {
    auto asking = ReadDisplayPeriod(ctx.shell, ctx.command_timeout);
    auto period = co_await std::move(asking);
    if (!period) {
      result.fatal = period.error();
      co_return result;
    }
    ctx.display_period_read = true;
    ctx.display_period_ns = period->value_or(0);
  }
  std::vector<ShellPart> end_reads;
  const bool read_stat_now = read_fork && ctx.spec.scenario.empty();
  if (read_stat_now) end_reads.push_back({CatProcStat(*pid_after), false});
  if (read_frames) end_reads.push_back({DumpsysGfxinfoFramestats(ctx.spec.package), false});
  if (!result.launch_failed) end_reads.push_back({DumpsysMeminfo(ctx.spec.package), false});
  if (!end_reads.empty()) {
    const auto end_deadline =
        adb::DeadlineAfter(static_cast<int>(end_reads.size()) * ctx.command_timeout);
    auto reading = ctx.shell.RunJoined(std::move(end_reads), end_deadline);
    auto read = co_await std::move(reading);
    for (const CommandResult<adb::ShellResult>& r : read) {
      if (!r && IsFatal(r.error())) {
        result.fatal = r.error();
        co_return result;
      }
    }
    size_t next = 0;
    if (read_stat_now) launch.fork_at_ms = ForkAtMs(ctx, read[next++]);
    if (read_frames) {
      auto frames =
          FramesOfDump(read[next++], ctx.spec.package, run_id, iteration, ctx.display_period_ns);
      if (!*frames) {
        result.frames_missing = frames->error();
      } else {
        result.frames = std::move(**frames);
      }
    }
    if (!result.launch_failed) {
      auto memory = MemoryOfDump(read[next++], ctx.spec.package, run_id, iteration);
      if (!*memory) {
        result.memory_missing = memory->error();
      } else {
        result.memory = std::move(**memory);
      }
    }
  }

  // 8. The iteration's faults (last): after a failed launch first a while for the fault that may
  // be why, then the time lines take to arrive; then the crash still open is complete.
  if (result.launch_failed) {
    const std::function<bool()> faulted = [&] { return HasPackageFault(ctx, first_fault, result.launch); };
    auto waiting = WaitForLog(ctx.feed, faulted, adb::DeadlineAfter(ctx.fault_wait_after_failure));
    const WaitResult waited = co_await std::move(waiting);
    if (waited == WaitResult::kCancelled) {
      result.fatal = CommandError{adb::AdbErrc::kCancelled, "cancelled"};
      co_return result;
    }
  }
  const std::function<bool()> never = [] { return false; };
  auto settling = WaitForLog(ctx.feed, never, adb::DeadlineAfter(ctx.fault_settle));
  const WaitResult settled = co_await std::move(settling);
  if (settled == WaitResult::kCancelled) {
    result.fatal = CommandError{adb::AdbErrc::kCancelled, "cancelled"};
    co_return result;
  }
  ctx.feed.reader.FlushFaults(ctx.feed.faults);
  MarkFaults(ctx, first_fault, result);
  co_return result;
}

}  // namespace droidlab::orchestrator
