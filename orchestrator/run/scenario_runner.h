// A run's scenario played on the phone after a launch (issue 16 §1; the steps and their argv:
// orchestrator/spec/scenario.h). Each step runs in order, each within its own deadline; a wait
// is the host's timer, not a device sleep, so a cancelled run stops at once.
//
// A step that fails — a non-zero exit, an `input` that prints an error (older versions print
// their usage and exit 0), monkey's "** Monkey aborted" (it stops at the app's first crash or
// ANR), or its deadline — ends the scenario: what the iteration measured after it is not of the
// scenario asked for, so the caller marks the iteration invalid with `failure`. A lost device or
// a cancelled run is `fatal`, as everywhere in the run engine.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/run/device_shell.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

struct ScenarioOutcome {
  std::optional<std::string> failure;  // "scenario step 3 (tap): …"
  std::optional<CommandError> fatal;
};

// Pure: what a step's output says went wrong, or nullopt when it did what was asked. `exit_code`
// is the shell's (nullopt before Android 7's shell protocol).
std::optional<std::string> ScenarioStepProblem(const ScenarioStep& step, std::string_view output,
                                               std::optional<int> exit_code);

// Plays `steps` for `package` (the run spec's scenario and package).
boost::asio::awaitable<ScenarioOutcome> RunScenario(DeviceShell& shell,
                                                    std::vector<ScenarioStep> steps,
                                                    std::string package);

}  // namespace droidlab::orchestrator
