// Whether two runs may be compared at all (issue 14 §4): a launch time moves with more than the
// build — the device's Android build (an OTA changes the fingerprint), the app's compilation
// state (an app that is only verified launches far slower than one compiled with its profile),
// the device model and launch mode — and a verdict across such a difference would blame the
// app for the phone. Read from what each run stored: its package, model, mode and fingerprint,
// the preflight's `dumpsys package` reading (versionCode), the compilation state the run forced
// and read back (else the preflight's compiler filter) and whether it held to the run's end,
// and the conditions of each launch against the limits of its run's spec.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "store/records.h"

namespace droidlab::orchestrator {

struct Comparability {
  // false: a difference that moves launch times (package, model, mode, fingerprint, compilation
  // state, or a compilation state that changed during either run); the comparison is then no verdict unless the caller allows different conditions.
  bool comparable = true;
  std::vector<std::string> differences;  // each, in words; also those that do not block
  std::optional<bool> same_build;        // by the preflight's versionCode; unknown: absent
  std::optional<std::string> candidate_compilation, baseline_compilation;  // compiler filters
  // Counted launches measured hotter than their run allowed ("cooldown": "wait" ran out).
  int64_t candidate_launches_too_hot = 0;
  int64_t baseline_launches_too_hot = 0;
};

// What a run measured under, as a series point states it (issue 15: what a change point is
// explained by).
struct MeasuredConditions {
  std::optional<int64_t> build_id;      // the spec's "build" (a side-by-side run's candidate)
  std::optional<int64_t> version_code;  // installed: the candidate's install of a side-by-side
                                        // run, else preflight.package.version_code
  std::optional<std::string> fingerprint;  // ro.build.fingerprint at preflight
  std::optional<std::string> compilation;  // the compiler filter reached (as JudgeComparability
                                           // reads it; the candidate's first install's for a
                                           // side-by-side run)
};

// Pure: read from the run's spec and preflight as stored.
MeasuredConditions MeasuredConditionsOf(const store::Run& run);

// Pure: how many of `launches` that count were measured hotter than `run`'s limits (its spec's
// max_thermal and max_battery_temp_c, the defaults where it says none) — what a comparison calls
// conditions out of range, and a run summary keeps (store::RunSummary::hot_launches).
int64_t LaunchesMeasuredTooHot(const store::Run& run, std::span<const store::Launch> launches);

// Pure. The builds of one side-by-side run (orchestrator/run/side_by_side.h): package, model,
// mode and fingerprint are one by construction; what may still differ is the compilation state
// reached after each install (preflight.side_by_side.installs), a change of it during the run,
// and launches hotter than the run allowed. "candidate" is the run's build, "baseline" its
// baseline_build.
Comparability JudgeSideBySide(const store::Run& run,
                              std::span<const store::Launch> candidate_launches,
                              std::span<const store::Launch> baseline_launches);

// Pure.
Comparability JudgeComparability(const store::Run& candidate,
                                 std::span<const store::Launch> candidate_launches,
                                 const store::Run& baseline,
                                 std::span<const store::Launch> baseline_launches);

}  // namespace droidlab::orchestrator
