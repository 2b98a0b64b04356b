// Before a run: is the package there, which activity to launch, and is the device in a state
// whose numbers mean something (DESIGN.md; API.md's "preflight": "warn" | "enforce").
//   resolve: `pm path PKG`, the activity from the spec or `cmd package resolve-activity --brief`;
//   state:   getprop (fingerprint, model, SDK: parsers::DeviceProperties, as the registry reads
//            them), `dumpsys battery` (level, temperature, powered),
//            `dumpsys thermalservice` (status; Android 9 prints nothing: unknown, no warning),
//            `dumpsys package PKG` (versionCode, compiler filter: launch speed depends on it),
//            `dumpsys power` (mWakefulness) and `dumpsys activity activities` (mKeyguardShowing).
// Warnings: battery below 25 %, thermal status severe or worse. "enforce" refuses the run on any.
// Refused always: a screen that is not on (Asleep, Dozing, Dreaming) or a showing keyguard — an
// app launched there draws behind the lock or not at all, so no number would mean anything.
// When a dump lacks the field (old or OEM format) the state is unknown: recorded as null, no
// refusal.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adb/names.h"
#include "orchestrator/run/compilation.h"
#include "orchestrator/run/device_clock.h"
#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/looper_session.h"
#include "orchestrator/run/side_by_side.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

inline constexpr int kMinBatteryLevel = 25;
inline constexpr int kMaxThermalStatus = 2;  // moderate; severe (3) and worse are flagged

struct PreflightReport {
  std::string component;       // "com.pkg/.Main", checked against adb::ComponentName
  std::string activity_class;  // full class name
  std::optional<std::string> fingerprint;
  std::optional<std::string> model;
  std::optional<int64_t> sdk;
  std::optional<int> battery_level;
  std::optional<bool> powered;
  std::optional<int> battery_temperature_tenths_c;
  std::optional<int> thermal_status;
  std::optional<int64_t> version_code;
  std::optional<int64_t> app_id;  // dumpsys package's userId= / appId=: the app's uid in user 0
  std::optional<std::string> compiler_filter;
  std::optional<std::string> wakefulness;  // "Awake", "Asleep", "Dozing", "Dreaming"
  std::optional<bool> keyguard_showing;
  std::vector<std::string> warnings;
};

// Errors: a failed command, a package that is not installed, an activity that does not resolve,
// a screen that is off or locked.
boost::asio::awaitable<CommandResult<PreflightReport>> RunPreflight(DeviceShell& shell,
                                                                    const RunSpec& spec,
                                                                    adb::Deadline deadline);

// The build a run installed before its preflight (spec.build): what it measured.
struct InstalledBuild {
  int64_t id = 0;
  std::string sha256;
  int64_t version_code = 0;
  std::string method;  // adb::InstallMethodName ("abb_exec", "exec:cmd", "push+pm"), or
                       // kAlreadyInstalled (installed_build.h): the phone had it, 0 bytes sent
  int64_t bytes = 0;
  int64_t install_ms = 0;
};

// A side-by-side run's installs (side_by_side.h): each switch of build, in order, with the
// compilation state reached after it — the two builds are comparable only if that is the same.
struct SideBySideInstall {
  Arm arm = Arm::kBaseline;
  InstalledBuild build;
  std::optional<std::string> compilation_reached;
  int64_t before_iteration = 1;  // the first launch measured on it
};
struct SideBySideRecord {
  int64_t baseline_build = 0;
  int64_t candidate_build = 0;
  int64_t block = 0;
  std::vector<SideBySideInstall> installs;
};

// What is stored with the run (runs.preflight_json): the report, and once known the clock, the
// compilation state asked and reached, the looper-stats session (which charging gate worked),
// the build installed, and a side-by-side run's installs.
std::string PreflightJson(const PreflightReport& report, const DeviceClock* clock,
                          const LooperSession* looper,
                          const CompilationRecord* compilation = nullptr,
                          const InstalledBuild* build = nullptr,
                          const SideBySideRecord* side_by_side = nullptr);

// What is stored for a run that installed its build but ended before its preflight report (a
// screen found off, a device gone): {"build": …} alone, so the store still knows what the phone
// has (orchestrator/run/installed_build.h trusts droidlab's last recorded install).
std::string InstalledBuildOnlyJson(const InstalledBuild& build);

}  // namespace droidlab::orchestrator
