#include "orchestrator/run/side_by_side.h"

#include <algorithm>

namespace droidlab::orchestrator {

std::string_view ArmName(Arm arm) { return arm == Arm::kBaseline ? "baseline" : "candidate"; }

Arm ArmOfBlock(int64_t index) {
  // (index + 1) / 2 counts the pairs of equal neighbours: 0, 1, 1, 2, 2, 3, 3, …
  return ((index + 1) / 2) % 2 == 0 ? Arm::kBaseline : Arm::kCandidate;
}

std::optional<Arm> ArmOfIteration(std::span<const PlannedLaunch> plan, int64_t iteration) {
  if (iteration < 1 || iteration > static_cast<int64_t>(plan.size())) return std::nullopt;
  return plan[static_cast<size_t>(iteration - 1)].arm;
}

std::vector<PlannedLaunch> PlanSideBySide(int64_t iterations, int64_t block, int64_t warmup) {
  std::vector<PlannedLaunch> plan;
  if (iterations < 1 || block < 1) return plan;
  const int64_t blocks_per_arm = (iterations + block - 1) / block;
  int64_t left[2] = {iterations, iterations};  // counted launches still to plan, per arm
  bool first = true;
  Arm on_phone = Arm::kBaseline;
  for (int64_t b = 0; b < 2 * blocks_per_arm; ++b) {
    const Arm arm = ArmOfBlock(b);
    int64_t& arm_left = left[arm == Arm::kBaseline ? 0 : 1];
    const int64_t counted = std::min(block, arm_left);
    arm_left -= counted;
    const bool install = first || arm != on_phone;
    const int64_t warmups = install ? warmup : 0;
    for (int64_t i = 0; i < warmups + counted; ++i) {
      PlannedLaunch launch;
      launch.arm = arm;
      launch.warmup = i < warmups;
      launch.install_before = install && i == 0;
      launch.block = b;
      plan.push_back(launch);
    }
    first = false;
    on_phone = arm;
  }
  return plan;
}

}  // namespace droidlab::orchestrator
