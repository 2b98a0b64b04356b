// A run's scenario (orchestrator/spec/scenario.h, issue 16 §1): the grammar every step is checked
// against before anything reaches a shell, and the argv each becomes. The argv follow the tools
// on the device: frameworks/base cmds/input (Input.java to Android 11, InputShellCommand.java
// from 12: `input tap X Y`, `input swipe X1 Y1 X2 Y2 [DURATION]`, `input keyevent KEYCODE`,
// `input text TEXT` with "%s" read as a space) and development/cmds/monkey (Monkey.java: -p, -s,
// --throttle, --pct-syskeys, --pct-rotation, the event count last).
#include "orchestrator/spec/scenario.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {
namespace {

using nlohmann::json;
using Argv = std::vector<std::string>;

std::string ScenarioBody(const std::string& scenario) {
  return R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold","iterations":5,)"
         R"("scenario":)" +
         scenario + "}";
}

TEST(ScenarioTest, EveryStepBecomesItsArgv) {
  auto spec = ParseRunSpec(ScenarioBody(
      R"([{"tap":[540,1200]},{"wait_ms":500},{"swipe":[540,1600,540,400,300]},{"key":"BACK"},)"
      R"x({"key":"KEYCODE_ENTER"},{"key":"66"},{"text":"hello world; $(reboot)"},)x"
      R"({"monkey":{"events":200,"seed":42,"throttle_ms":50}}])"));
  ASSERT_TRUE(spec.ok()) << spec.error().field << ": " << spec.error().message;
  ASSERT_EQ(spec->scenario.size(), 8u);
  const std::string pkg = spec->package;
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[0], pkg), (Argv{"input", "tap", "540", "1200"}));
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[1], pkg), Argv{});  // the host waits
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[2], pkg),
            (Argv{"input", "swipe", "540", "1600", "540", "400", "300"}));
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[3], pkg), (Argv{"input", "keyevent", "KEYCODE_BACK"}));
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[4], pkg), (Argv{"input", "keyevent", "KEYCODE_ENTER"}));
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[5], pkg), (Argv{"input", "keyevent", "66"}));
  // One argument, as given: the shell quoting (adb::BuildShellCommand) keeps `;` and `$(` text.
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[6], pkg),
            (Argv{"input", "text", "hello world; $(reboot)"}));
  EXPECT_EQ(ScenarioStepArgv(spec->scenario[7], pkg),
            (Argv{"monkey", "-p", "com.example.app", "-s", "42", "--throttle", "50",
                  "--pct-syskeys", "0", "--pct-rotation", "0", "200"}));

  EXPECT_EQ(ScenarioStepDeadline(spec->scenario[0]).count(), 10'000);
  EXPECT_EQ(ScenarioStepDeadline(spec->scenario[2]).count(), 10'300);
  EXPECT_EQ(ScenarioStepDeadline(spec->scenario[7]).count(), 10'000 + 200 * 50 + 200 * 10);
}  // namespace

TEST(ScenarioTest, RoundTripsThroughTheStoredSpecAndIsEmptyByDefault) {
  auto spec =
      ParseRunSpec(ScenarioBody(R"([{"tap":[1,2]},{"key":"4"},{"text":"a b"},{"wait_ms":0},)"
                                R"({"monkey":{"events":1,"seed":0}}])"));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->scenario[4].numbers, (std::vector<int64_t>{1, 0, 0}));  // throttle 0
  const std::string stored = RunSpecToJson(*spec);
  auto back = ParseRunSpec(stored);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, *spec);
  EXPECT_EQ(json::parse(stored)["scenario"][4]["monkey"],
            (json{{"events", 1}, {"seed", 0}, {"throttle_ms", 0}}));

  auto plain = ParseRunSpec(
      R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold","iterations":5})");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->scenario.empty());
  EXPECT_EQ(json::parse(RunSpecToJson(*plain))["scenario"], json::array());
  auto null_scenario = ParseRunSpec(ScenarioBody("null"));
  ASSERT_TRUE(null_scenario.ok());
  EXPECT_TRUE(null_scenario->scenario.empty());
}

struct BadScenario {
  std::string name;
  std::string scenario;
  std::string field;
  std::string message;
};

// [{"wait_ms":1}, ...] of `n` steps.
std::string Waits(int n) {
  std::string steps;
  for (int i = 0; i < n; ++i) steps += std::string(i ? "," : "") + R"({"wait_ms":1})";
  return "[" + steps + "]";
}

class ScenarioRefusedTest : public ::testing::TestWithParam<BadScenario> {};

TEST_P(ScenarioRefusedTest, NamesTheStepAndWhy) {
  auto parsed = ParseRunSpec(ScenarioBody(GetParam().scenario));
  ASSERT_FALSE(parsed.ok()) << GetParam().scenario;
  EXPECT_EQ(parsed.error().field, GetParam().field);
  EXPECT_NE(parsed.error().message.find(GetParam().message), std::string::npos)
      << parsed.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Steps, ScenarioRefusedTest,
    ::testing::Values(
        BadScenario{"NotAnArray", R"({"tap":[1,2]})", "scenario", "must be an array"},
        BadScenario{"UnknownStep", R"([{"tap":[1,2]},{"shell":"reboot"}])", "scenario[1].shell",
                    "is not a step"},
        BadScenario{"TwoKeysInAStep", R"([{"tap":[1,2],"wait_ms":3}])", "scenario[0]",
                    "one of tap"},
        BadScenario{"TapOfThree", R"([{"tap":[1,2,3]}])", "scenario[0].tap", "[x, y]"},
        BadScenario{"TapNegative", R"([{"tap":[-1,2]}])", "scenario[0].tap[0]", "between 0"},
        BadScenario{"TapFraction", R"([{"tap":[1.5,2]}])", "scenario[0].tap[0]", "integer"},
        BadScenario{"TapAsText", R"([{"tap":["1","2"]}])", "scenario[0].tap[0]", "integer"},
        BadScenario{"SwipeTooLong", R"([{"swipe":[1,2,3,4,60001]}])", "scenario[0].swipe[4]",
                    "between 0 and 60000"},
        BadScenario{"WaitTooLong", R"([{"wait_ms":600001}])", "scenario[0].wait_ms",
                    "between 0 and 600000"},
        BadScenario{"KeyLowerCase", R"([{"key":"back"}])", "scenario[0].key", "KeyEvent name"},
        BadScenario{"KeyWithSpace", R"([{"key":"BACK; reboot"}])", "scenario[0].key",
                    "KeyEvent name"},
        BadScenario{"KeyCodeTooLarge", R"([{"key":"1000"}])", "scenario[0].key", "0 and 999"},
        BadScenario{"TextWithPercent", R"([{"text":"50%s off"}])", "scenario[0].text",
                    "\"%s\" as a space"},
        BadScenario{"TextWithNewline", R"([{"text":"a\nb"}])", "scenario[0].text",
                    "character 2 is not printable ASCII"},
        BadScenario{"TextNotAscii", R"([{"text":"caf\u00e9"}])", "scenario[0].text",
                    "not printable ASCII"},
        BadScenario{"TextEmpty", R"([{"text":""}])", "scenario[0].text", "1 to 500"},
        BadScenario{"MonkeyWithoutSeed", R"([{"monkey":{"events":10}}])", "scenario[0].monkey.seed",
                    "is required"},
        BadScenario{"MonkeyUnknownField", R"([{"monkey":{"events":10,"seed":1,"pkg":"x"}}])",
                    "scenario[0].monkey.pkg", "is not a field of monkey"},
        BadScenario{"MonkeyNoEvents", R"([{"monkey":{"events":0,"seed":1}}])",
                    "scenario[0].monkey.events", "between 1"},
        BadScenario{"MonkeyForADay",
                    R"([{"monkey":{"events":100000,"seed":1,"throttle_ms":10000}}])", "scenario",
                    "at most 3600000"},
        BadScenario{"TooManySteps", Waits(101), "scenario", "at most 100"}),
    [](const ::testing::TestParamInfo<BadScenario>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace droidlab::orchestrator
