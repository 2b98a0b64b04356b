#include "orchestrator/lab/side_by_side_launches.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "orchestrator/run/side_by_side.h"

namespace droidlab::orchestrator {

std::optional<RunSpec> SideBySideSpec(const store::Run& run) {
  const nlohmann::json spec = nlohmann::json::parse(run.spec_json, nullptr, false);
  if (!spec.is_object()) return std::nullopt;
  auto parsed = ParseRunSpecValue(spec);
  if (!parsed || !parsed->side_by_side()) return std::nullopt;
  return std::move(*parsed);
}

SplitLaunches SplitByArm(const RunSpec& spec, std::vector<store::Launch> launches) {
  const std::vector<PlannedLaunch> plan = PlanSideBySide(spec.iterations, spec.block, spec.warmup);
  SplitLaunches split;
  for (store::Launch& l : launches) {
    const std::optional<Arm> arm = ArmOfIteration(plan, l.iteration);
    if (!arm) continue;
    (*arm == Arm::kBaseline ? split.baseline : split.candidate).push_back(std::move(l));
  }
  return split;
}

}  // namespace droidlab::orchestrator
