// One measured launch: prepare the app for the mode, `am start -W -n COMPONENT`, match the
// iteration's logcat lines (launch_matcher.h), read the new process's starttime, judge it.
//
// Modes (orchestrator/README.md says why):
//   cold: `am force-stop PKG` — the process is gone, the next start forks it;
//   warm: `input keyevent KEYCODE_BACK` — the activity is destroyed, the process stays;
//   hot:  `input keyevent KEYCODE_HOME` — the activity goes to the background.
// Validity: am's LaunchState (Android 10+) must be the mode's; on Android 9 (no LaunchState) a
// cold launch must have started a process (a Start proc line or a new pid) and a warm/hot one
// must not have. A launch without a Displayed line within launch_timeout_ms is kept, invalid.
// Then the run's scenario, if it has one (scenario_runner.h): a step that fails leaves the
// launch's own times but marks it invalid, since what followed it is not what was asked.
// Then the iteration's frames (frames_collector.h) and its memory (memory_collector.h).
// Last, faults: an ANR, crash or native crash of the package (iteration_faults.h) that the run's
// logcat stream carries from the iteration's start to its end marks the iteration invalid with the
// fault's reason, which wins over any other (a crash in onCreate leaves no Displayed line). Lines
// reach the host a little after they are logged, so the end waits fault_settle for them (after a
// failed launch first up to fault_wait_after_failure for a fault), then completes the crash
// still open (LogcatReader::FlushFaults). Faults logged between two iterations are no
// iteration's. A fault of a process an earlier iteration launched is that iteration's, not this
// one's: an ANR is logged 5 s after the input it waited for (10 s and more for a broadcast or a
// service), often after the iteration ended, so it comes in a later one (IterationResult::late).
// Only a cold run's iterations have a process each; in warm and hot runs, one process serves all,
// and its fault stays with the iteration during which it came. A fault that comes after the last
// iteration is no iteration's.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/run/device_clock.h"
#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/logcat_feed.h"
#include "orchestrator/run/preflight.h"
#include "orchestrator/run/proc_sampler.h"
#include "orchestrator/spec/run_spec.h"
#include "store/records.h"

namespace droidlab::orchestrator {

struct IterationContext {
  DeviceShell& shell;
  LogcatFeed& feed;
  const RunSpec& spec;
  const PreflightReport& target;
  const DeviceClock& clock;
  int year = 1970;  // for threadtime log times (epoch needs none)
  std::chrono::milliseconds command_timeout{10'000};
  std::shared_ptr<ProcSamplerState> sampler;  // may be null
  std::chrono::milliseconds fault_settle{200};
  std::chrono::milliseconds fault_wait_after_failure{1000};
  // The run's earlier iterations by the pid their launch started (MeasureLaunch fills it): whose
  // a late fault is, and how many faults that iteration has stored (the next one's seq).
  struct EarlierIteration {
    int64_t iteration = 0;
    int64_t faults = 0;
  };
  std::map<int64_t, EarlierIteration> earlier{};
  // The display's vsync period (frames_collector.h ReadDisplayPeriod), read before the first
  // iteration's frames; 0 when the phone did not say.
  bool display_period_read = false;
  int64_t display_period_ns = 0;
};

// Faults of an earlier iteration that came during this one: stored under that iteration (after
// its own, by seq), whose launch they make invalid with `invalid_reason`.
struct LateFaults {
  int64_t iteration = 0;
  std::vector<store::IterationFault> faults;
  std::string invalid_reason;
};

struct IterationResult {
  store::Launch launch;
  // The launch failed (no Displayed line, am start failed or timed out): what
  // spec.on_launch_failure decides about.
  bool launch_failed = false;
  // The run cannot go on: the device went away, or the run was cancelled (error.cancelled()).
  std::optional<CommandError> fatal;
  // The iteration's frames (frames_collector.h), or why there are none.
  std::optional<store::IterationFrames> frames;
  std::optional<std::string> frames_missing;
  // The package's faults in the iteration, in order, then its process's slow messages
  // (iteration_faults.h); a fault makes it invalid, a slow message does not.
  std::vector<store::IterationFault> faults;
  // Faults of earlier iterations' processes that came during this one, one entry per iteration.
  std::vector<LateFaults> late;
  // The iteration's memory at its end (memory_collector.h), or why there is none.
  std::optional<store::IterationMemory> memory;
  std::optional<std::string> memory_missing;
};

// An unmeasured launch: the process warm and hot launches come back to, and the looper-stats
// probe's workload. Returns once its Displayed line is in (or it was delivered to the top).
boost::asio::awaitable<CommandResult<bool>> PrimingLaunch(IterationContext& ctx);

// A launch's preparation for its mode (force-stop, or the key of a warm or hot launch), the reset
// of its frames and the pid before it: what MeasureLaunch sends first, as one joined command
// (DeviceShell::RunJoined). The run executor has it sent with the cool-down's reading
// (cooldown.h WaitUntilCool) — one command for both when the phone is cool at once.
std::vector<ShellPart> PreparationParts(const IterationContext& ctx);

// The answers of PreparationParts sent before MeasureLaunch, and the count of the feed's faults
// before they were sent (the iteration's faults are those after it).
struct PreparedLaunch {
  std::vector<CommandResult<adb::ShellResult>> answers;
  size_t first_fault = 0;
};

// One measured launch. Without `prepared` it sends PreparationParts itself first.
boost::asio::awaitable<IterationResult> MeasureLaunch(
    IterationContext& ctx, int64_t run_id, int64_t iteration,
    std::optional<PreparedLaunch> prepared = std::nullopt);

// "COLD", "WARM", "HOT": what am's LaunchState says for a launch of this mode.
const char* ExpectedLaunchState(LaunchMode mode);

}  // namespace droidlab::orchestrator
