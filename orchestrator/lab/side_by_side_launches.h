// A stored side-by-side run read back (issue 14 §4): its spec, and its launches split by the build
// each measured — by the run's plan (orchestrator/run/side_by_side.h), never by build id, so an
// A/A of one build (a calibration run, issue 15 §3) splits too. Used by the run reports and the
// noise-floor calibration.
#pragma once

#include <optional>
#include <vector>

#include "orchestrator/spec/run_spec.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// The spec of a side-by-side run as it was stored; nullopt for any other run.
std::optional<RunSpec> SideBySideSpec(const store::Run& run);

struct SplitLaunches {
  std::vector<store::Launch> baseline;
  std::vector<store::Launch> candidate;
};

// A side-by-side run's launches by arm; a launch beyond the plan belongs to neither. Pure.
SplitLaunches SplitByArm(const RunSpec& spec, std::vector<store::Launch> launches);

}  // namespace droidlab::orchestrator
