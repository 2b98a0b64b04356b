// Two builds measured side by side on one phone (issue 14 §4): the baseline (A) and the build
// under test (B) in alternating blocks A B B A A B B A …, each switch a reinstall (and the
// compilation state forced again), so that a slow drift of the phone — heat building up, a
// battery charging, page cache filling — falls on both builds alike and cancels out of the
// comparison. A B A B would cancel only a drift that is flat within each pair; ABBA cancels a
// linear one over every four blocks (the classic counterbalanced order of psychophysics and of
// A/B benchmarking harnesses), and costs half the reinstalls.
//
// The plan is pure: the executor walks it (run_executor.cpp). Each build gets exactly
// `iterations` counted launches, in blocks of `block` (its last block shorter when `block` does
// not divide `iterations`); `warmup` uncounted launches open every block that follows an
// install, because the first launches after an install pay for work the others do not
// (installd's dex file checks, a cold page cache for the new APK).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace droidlab::orchestrator {

enum class Arm { kBaseline, kCandidate };

std::string_view ArmName(Arm arm);  // "baseline", "candidate"

struct PlannedLaunch {
  Arm arm = Arm::kBaseline;
  bool warmup = false;
  bool install_before = false;  // the other build is on the phone: install this one first
  int64_t block = 0;            // 0-based index of the block it is in
};

// The launches of a side-by-side run, in order. Empty when `iterations` or `block` is < 1.
std::vector<PlannedLaunch> PlanSideBySide(int64_t iterations, int64_t block, int64_t warmup);

// The arm of block `index` in the ABBA order: 0 A, 1 B, 2 B, 3 A, 4 A, …
Arm ArmOfBlock(int64_t index);

// Which build iteration `iteration` (1-based, as launches are stored) of a side-by-side run
// measured: its plan says, even when both arms are one build (an A/A). nullopt beyond the plan.
std::optional<Arm> ArmOfIteration(std::span<const PlannedLaunch> plan, int64_t iteration);

}  // namespace droidlab::orchestrator
