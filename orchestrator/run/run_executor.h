// ExecuteRun: one run on one device, from preflight to the restored device. The run queue calls
// it for a run it has taken off a device's queue; it owns every status change of the run from
// then on (running, then succeeded / failed / cancelled), each committed to the store before it
// is reported.
//
// What it does, in order (DESIGN.md says where each number comes from):
//   1. resolve: `pm path PKG` (installed?), the activity from the spec or from
//      `cmd package resolve-activity --brief PKG`;
//   2. preflight: getprop (fingerprint), `dumpsys battery`, `dumpsys thermalservice`,
//      `dumpsys package PKG` (versionCode, compilation filter); recorded with the run
//      (preflight_json), flagged or refused as the spec says; the run becomes `running`;
//   3. clock: CLK_TCK (`getconf CLK_TCK`, 100 if the device has no getconf) and the offset
//      between the device's log clock and its boot clock, for the launch phases;
//   0. whatever the device owes (owed_restores.h: a restore an earlier run, of this daemon or of
//      one that died, did not pay) put back before anything is read; the run fails if it cannot;
//   4. looper stats (when asked): the current `looper_stats` setting read and kept, enabled with
//      the run's sampling interval, the charging gate opened the way this device honours
//      (ignore_battery_status, else `dumpsys battery unplug`), `cmd looper_stats reset` — each
//      change preceded by the durable record of what undoes it, each command with its own
//      deadline;
//   5. one `logcat` stream opened before the loop; the proc sampler when asked;
//   6. each iteration: prepare for the mode, `am start -W -n COMPONENT`, the iteration's logcat
//      lines matched to it (START, Start proc, Displayed, Fully drawn), /proc/<pid>/stat for the
//      fork time; one store::Launch per iteration, kept even when invalid (with the reason);
//   7. `dumpsys looper_stats`, every row stored (the package's rows marked);
//   8. always, also when failing or cancelled: the recorded restores paid (the looper_stats
//      setting put back, `dumpsys battery reset` if the unplug was sent); what fails stays owed
//      in the store, paid when the device is online again.
//
// Cancellation: terminal cancellation of the awaiting coroutine stops the run within a second;
// the device is restored (under a short deadline of its own) and the outcome is kCancelled.
// Errors never throw: a device that goes away fails the run with a reason naming the iteration;
// launches already measured stay stored.
//
// Threading: runs on the adb::Client's executor (one thread or strand); store calls go through
// the store's awaitable door (store/async_store.h) and never block that thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "adb/client.h"
#include "orchestrator/run/owed_restores.h"
#include "orchestrator/spec/run_spec.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

// Progress of a running run, for the API's events and the client's progress bar.
struct RunProgress {
  int64_t run_id = 0;
  std::string phase;  // "preflight", "launching", "collecting", "restoring"
  int64_t iterations_done = 0;
  int64_t iterations = 0;
  int64_t valid_launches = 0;
  // The run's `running` status is committed: until then it is `queued` in the store, and the
  // run queue announces it so (a status is announced only once it is on disk).
  bool running = false;
};

struct RunOutcome {
  store::RunStatus status = store::RunStatus::kFailed;  // succeeded, failed or cancelled
  std::optional<std::string> error;
  int64_t launches_recorded = 0;
  int64_t valid_launches = 0;
  int64_t looper_rows = 0;
  int64_t proc_samples = 0;
  // False when the store could not record the end (a full disk): the run queue then announces
  // no end the store does not have; the run stays `running` there until the next start marks
  // it interrupted.
  bool status_stored = true;
  // A failure the phone caused: it went away (not found, offline, unauthorized, the connection
  // lost) or stopped answering a command within its deadline. Fleet health counts these per
  // phone (lab/device_health.h).
  bool device_fault = false;
};

struct RunExecutorOptions {
  // Wall clock in ms since the epoch (tests may pin it).
  std::function<int64_t()> now_ms;
  // Called on the client's executor after each iteration and phase change. May be empty.
  std::function<void(const RunProgress&)> on_progress;
  // Called on the client's executor with each launch measured (valid or not), before it is
  // stored. May be empty.
  std::function<void(const store::Launch&)> on_launch;
  // One line per event worth a log, with the serial and run id in it. Default: stderr.
  std::function<void(std::string_view)> log;
  // Deadline of each device command that is not a launch (getprop, dumpsys, settings, ...).
  std::chrono::milliseconds command_timeout{10'000};
  // The deadline the device's restore gets after a cancel or failure.
  std::chrono::milliseconds restore_timeout{5'000};
  // Deadline of forcing the compilation state (`cmd package compile -m speed` of a large app
  // takes a minute on a slow phone).
  std::chrono::milliseconds compile_timeout{300'000};
  // Where the daemon keeps builds (orchestrator/builds/build_library.h: <dir>/<sha256>.apk);
  // empty: a run that names a build fails.
  std::string builds_dir;
  // Deadline of installing a build (a 100 MB APK over USB 2 takes half a minute).
  std::chrono::milliseconds install_timeout{600'000};
  // How often a phone too hot to measure is read again (spec.cooldown_timeout_s bounds the wait).
  std::chrono::milliseconds cooldown_poll{5'000};
  // The daemon's restores ledger (shared with the device registry, so one payer per device at a
  // time). Null: the run uses one of its own over the same store — the records are durable
  // either way. Must outlive the run.
  OwedRestores* owed_restores = nullptr;
  // How /proc is sampled when the spec asks for it (proc_sampler.h): one long-lived shell per
  // run streaming frames (the daemon's way), or one `adb shell cat` per sample — kept as the
  // reference bench/run_scale_bench measures beside it.
  enum class ProcSampling { kStream, kCommandPerSample };
  ProcSampling proc_sampling = ProcSampling::kStream;
};

boost::asio::awaitable<RunOutcome> ExecuteRun(adb::Client& client, store::Store& store,
                                              int64_t run_id, RunSpec spec,
                                              RunExecutorOptions options);

}  // namespace droidlab::orchestrator
