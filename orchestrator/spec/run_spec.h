// RunSpec: what a run measures, as POST /api/v1/runs and a schedule's `run` give it (API.md),
// checked before anything is queued: names against their grammar (adb/names.h), numbers against
// bounds. Both the API and the scheduler parse the same JSON through ParseRunSpec, so a
// schedule's stored spec is judged exactly as a request's.
//
//   {"serial":"R58M123ABC","package":"com.example.app","activity":".MainActivity",
//    "mode":"cold","iterations":20,"looper_stats":{"sampling_interval":10},
//    "proc_sample_interval_ms":100}
//
// Errors name the field (JSON path: "looper_stats.sampling_interval") and the reason, one at a
// time, the first in the order of the fields above.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "orchestrator/spec/device_labels.h"
#include "orchestrator/spec/field_error.h"
#include "orchestrator/spec/scenario.h"

namespace droidlab::orchestrator {

enum class LaunchMode { kCold, kWarm, kHot };
const char* LaunchModeName(LaunchMode mode);  // "cold", "warm", "hot"
std::optional<LaunchMode> LaunchModeFromName(std::string_view name);

// The compilation state a run asks for (issue 14 §2): "as-is" leaves the app as the phone has it;
// the others are forced before the first iteration and checked (orchestrator/run/compilation.h).
// "none" is no compiled code at all ("extract" before Android 14, deleted artifacts from 14).
enum class Compilation { kAsIs, kSpeedProfile, kSpeed, kVerify, kNone };
const char* CompilationName(Compilation c);  // "as-is", "speed-profile", "speed", "verify", "none"
std::optional<Compilation> CompilationFromName(std::string_view name);

// What becomes of a run when an iteration's Displayed line never comes (or am start fails).
enum class OnLaunchFailure { kContinue, kFail };

inline constexpr int64_t kMaxIterations = 1000;
inline constexpr int64_t kMaxSamplingInterval = 1'000'000;
// The slowest threshold asked of the app's Looper: an ANR is 5 s; a minute says nothing more.
inline constexpr int64_t kMaxSlowMessageMs = 60'000;
inline constexpr int64_t kMinProcSampleIntervalMs = 10;
inline constexpr int64_t kMaxProcSampleIntervalMs = 60'000;
inline constexpr int64_t kMaxTimeoutMs = 600'000;
inline constexpr int64_t kMaxWarmup = 100;
inline constexpr int64_t kMaxCooldownTimeoutS = 3600;
inline constexpr int64_t kDefaultBlock = 5;
// "max_battery_temp_c" between these, in tenths of °C.
inline constexpr int64_t kMinBatteryTempLimit = 200;
inline constexpr int64_t kMaxBatteryTempLimit = 600;

struct RunSpec {
  // adb's serial (adb::Serial grammar); empty for a run of a pool until a host claims it for one
  // of its phones (then the phone's, the pool kept).
  std::string serial;
  // "pool" instead of "serial" (issue 17 §2): any idle phone of the lab that matches.
  std::optional<DevicePool> pool;
  std::string package;   // adb::PackageName grammar
  // As given: ".MainActivity" or "com.example.app.MainActivity" (the class, without the
  // package/); absent: resolved on the device with `cmd package resolve-activity --brief`.
  std::optional<std::string> activity;
  LaunchMode mode = LaunchMode::kCold;
  int64_t iterations = 0;  // 1..kMaxIterations
  // looper_stats.sampling_interval, 1..kMaxSamplingInterval; absent: no looper-stats session.
  std::optional<int64_t> looper_sampling_interval;
  // kMinProcSampleIntervalMs..kMaxProcSampleIntervalMs; absent: no process sampling.
  std::optional<int64_t> proc_sample_interval_ms;
  // "slow_message_ms", 1..kMaxSlowMessageMs: the app's main Looper logs every message slower
  // than this (slow_message_session.h); absent: the property is not touched.
  std::optional<int64_t> slow_message_ms;
  // Extensions (defaults when absent):
  int64_t launch_timeout_ms = 30'000;   // "launch_timeout_ms": am start -W and its Displayed line
  int64_t fully_drawn_timeout_ms = 0;   // "fully_drawn_timeout_ms": wait this long for Fully drawn
  OnLaunchFailure on_launch_failure = OnLaunchFailure::kContinue;  // "on_launch_failure"
  // "preflight": "enforce" refuses a run on a device in a state that makes numbers worthless
  // (battery < 25 %, thermal status >= severe); "warn" (default) records and flags it.
  bool preflight_enforce = false;
  // Warm-up and heat (issue 14 §3): "warmup" iterations first, measured and stored with
  // warmup: true, left out of every statistic; before each iteration the phone must be at most
  // "max_thermal" (a ThermalStatus name, lower case; default "light") and its battery at most
  // "max_battery_temp_c" (default 38), waited for up to "cooldown_timeout_s" (default 300);
  // then "cooldown": "wait" measures anyway (the launch keeps its conditions), "fail" ends the run.
  int64_t warmup = 0;                       // 0..kMaxWarmup
  int max_thermal_status = 1;               // 0 (none) .. 6 (shutdown)
  int64_t max_battery_temp_tenths_c = 380;  // kMinBatteryTempLimit..kMaxBatteryTempLimit
  int64_t cooldown_timeout_s = 300;         // 0..kMaxCooldownTimeoutS
  bool cooldown_fail = false;               // "cooldown": "fail"; default "wait"
  // "compilation": default "speed-profile", what a user's phone reaches after background dexopt.
  Compilation compilation = Compilation::kSpeedProfile;
  // "build": a build the daemon keeps (POST /api/v1/builds), installed before the preflight.
  std::optional<int64_t> build;
  // Side by side (issue 14 §4): "baseline_build" (needs "build") measures the baseline and
  // "build" on the same phone in alternating blocks of "block" iterations — baseline, build,
  // build, baseline, … (ABBA) — reinstalling and recompiling at each switch, "iterations"
  // counted launches per build, "warmup" launches after each install. Its verdict compares the
  // two builds' launches (orchestrator/run/side_by_side.h).
  std::optional<int64_t> baseline_build;
  int64_t block = kDefaultBlock;  // 1..kMaxIterations; only with baseline_build
  bool side_by_side() const { return baseline_build.has_value(); }
  // "kind": "calibration" (issue 15 §3, needs "build"; the default kind is "launch"): an A/A — the build measured against
  // itself as a side-by-side run (baseline_build = build; "block" defaults to "iterations": two
  // halves, like two runs back to back, compiled again between them). Its two halves are one
  // pair of the noise floor learnt per package × model × mode (RunReports::Calibration); it is
  // no point of the package's history.
  bool calibration = false;
  // "scenario" (issue 16 §1, scenario.h): what is done in the app after each launch; empty:
  // nothing, the run measures the launch and what follows it at once.
  std::vector<ScenarioStep> scenario;
};

// The JSON body → a checked spec. Unknown top-level fields are refused (a typo would silently
// measure something else). The text is parsed by ParseJsonBody (json_body.h): depth-limited,
// duplicate keys refused. `field` "" names the value as a whole ("must be a JSON object").
BasicResult<RunSpec, FieldError> ParseRunSpec(std::string_view json);
// The same on a value already parsed (a schedule body's "run"): no body is parsed twice.
BasicResult<RunSpec, FieldError> ParseRunSpecValue(const nlohmann::json& value);
// The same checks on a spec built in code.
std::optional<FieldError> ValidateRunSpec(const RunSpec& spec);
// Canonical JSON (every field, defaults included); ParseRunSpec(RunSpecToJson(s)) == s.
std::string RunSpecToJson(const RunSpec& spec);

bool operator==(const RunSpec& a, const RunSpec& b);

// A thermal status as a run spec and a stored launch name it: "none", "light", … "shutdown"
// (PowerManager.THERMAL_STATUS_* 0–6); "unknown" outside.
std::string_view ThermalStatusLowerName(int status);

}  // namespace droidlab::orchestrator
