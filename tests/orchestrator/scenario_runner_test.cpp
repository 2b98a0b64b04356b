// What a scenario step's output says (orchestrator/run/scenario_runner.h): the answers of
// `input` (frameworks/base cmds/input Input.java to Android 11; InputShellCommand.java from 12,
// whose IllegalArgumentException ShellCommand prints as "Exception occurred while executing")
// and of monkey (development/cmds/monkey Monkey.java: "// CRASH:", "** Monkey aborted due to
// error.", "// Monkey finished").
#include "orchestrator/run/scenario_runner.h"

#include <gtest/gtest.h>

namespace droidlab::orchestrator {
namespace {

ScenarioStep Step(ScenarioStep::Kind kind) {
  ScenarioStep step;
  step.kind = kind;
  if (kind == ScenarioStep::Kind::kMonkey) step.numbers = {200, 42, 50};
  return step;
}

TEST(ScenarioRunnerTest, InputIsSilentOnSuccessAndSaysItsErrors) {
  const ScenarioStep tap = Step(ScenarioStep::Kind::kTap);
  EXPECT_EQ(ScenarioStepProblem(tap, "", 0), std::nullopt);
  EXPECT_EQ(ScenarioStepProblem(tap, "", std::nullopt), std::nullopt);  // shell v1: no status
  // Android 12+: the exception, exit 255.
  EXPECT_EQ(ScenarioStepProblem(tap,
                                "Exception occurred while executing 'tap':\n"
                                "java.lang.IllegalArgumentException: Error: Invalid arguments for "
                                "command: tap\n\tat com.android.server.input.InputShellCommand."
                                "onCommand(InputShellCommand.java:283)\n",
                                255),
            "java.lang.IllegalArgumentException: Error: Invalid arguments for command: tap");
  // Android 9–11's Input.java: the usage, exit 0.
  EXPECT_EQ(ScenarioStepProblem(tap, "Usage: input [<source>] <command> [<arg>...]\n\n", 0),
            "Usage: input [<source>] <command> [<arg>...]");
  EXPECT_EQ(ScenarioStepProblem(tap, "", 1), "input exited with 1");
}

TEST(ScenarioRunnerTest, MonkeySaysWhenTheAppCrashedUnderIt) {
  const ScenarioStep monkey = Step(ScenarioStep::Kind::kMonkey);
  EXPECT_EQ(ScenarioStepProblem(monkey,
                                "  bash arg: -p\n  bash arg: com.example.app\n"
                                ":Monkey: seed=42 count=200\n:AllowPackage: com.example.app\n"
                                ":IncludeCategory: android.intent.category.LAUNCHER\n"
                                "Events injected: 200\n"
                                ":Dropped: keys=0 pointers=0 trackballs=0 flips=0 rotations=0\n"
                                "## Network stats: elapsed time=10421ms (0ms mobile, 0ms wifi, "
                                "10421ms not connected)\n// Monkey finished\n",
                                0),
            std::nullopt);
  EXPECT_EQ(
      ScenarioStepProblem(monkey,
                          ":Monkey: seed=42 count=200\n"
                          "// CRASH: com.example.app (pid 4242)\n"
                          "// Short Msg: java.lang.IllegalStateException\n"
                          "** Monkey aborted due to error.\nEvents injected: 37\n"
                          "** System appears to have crashed at event 37 of 200 using seed 42\n",
                          251),
      "// CRASH: com.example.app (pid 4242)");
  EXPECT_EQ(ScenarioStepProblem(monkey, "** No activities found to run, monkey aborted.\n", 252),
            "** No activities found to run, monkey aborted.");
  EXPECT_EQ(ScenarioStepProblem(monkey, "Events injected: 3\n", 1), "monkey exited with 1");
}

}  // namespace
}  // namespace droidlab::orchestrator
