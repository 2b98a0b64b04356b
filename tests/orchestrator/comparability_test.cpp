// JudgeComparability (orchestrator/lab/comparability.h), issue 14 §4: what makes two runs not
// comparable (an OTA's new fingerprint, another compilation state, another model, mode or
// package), what is only said (another build, launches measured too hot), and what is unknown.
#include "orchestrator/lab/comparability.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::orchestrator {
namespace {

// A run as the executor leaves it: the preflight's `dumpsys package` reading in preflight_json
// (orchestrator/run/preflight.cpp's "package" object).
store::Run MakeRun(std::string fingerprint, std::string compiler_filter, int64_t version_code,
                   std::string spec_json = "{}") {
  store::Run run;
  run.package = "com.example.app";
  run.device_model = "Pixel 7";
  run.mode = "cold";
  run.fingerprint = std::move(fingerprint);
  run.spec_json = std::move(spec_json);
  run.preflight_json = R"({"package":{"version_code":)" + std::to_string(version_code) +
                       R"(,"compiler_filter":")" + compiler_filter + R"("}})";
  return run;
}

constexpr char kFp13[] = "google/panther/panther:13/TQ3A.230901.001/10750268:user/release-keys";
constexpr char kFp14[] = "google/panther/panther:14/AP2A.240805.005/12025142:user/release-keys";

TEST(ComparabilityTest, TheSameConditionsAreComparable) {
  const auto c = JudgeComparability(MakeRun(kFp13, "speed-profile", 42), {},
                                    MakeRun(kFp13, "speed-profile", 41), {});
  EXPECT_TRUE(c.comparable);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_EQ(c.same_build, std::optional<bool>(false));  // another build: what is compared
}

TEST(ComparabilityTest, AnOtaIsNotComparable) {
  const auto c = JudgeComparability(MakeRun(kFp14, "speed-profile", 42), {},
                                    MakeRun(kFp13, "speed-profile", 42), {});
  EXPECT_FALSE(c.comparable);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0],
            std::string("the device's Android build changed (an OTA?): ") + kFp13 + " → " + kFp14);
  EXPECT_EQ(c.same_build, std::optional<bool>(true));
}

TEST(ComparabilityTest, AnotherCompilationStateIsNotComparable) {
  const auto c =
      JudgeComparability(MakeRun(kFp13, "verify", 42), {}, MakeRun(kFp13, "speed-profile", 42), {});
  EXPECT_FALSE(c.comparable);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0], "another compilation state: speed-profile → verify");
  EXPECT_EQ(c.candidate_compilation, std::optional<std::string>("verify"));
}

// A run that forced its compilation state is judged by the state it reached (preflight
// "compilation", orchestrator/run/compilation.h), not by the state the phone was left in before.
TEST(ComparabilityTest, TheCompilationReachedIsWhatIsCompared) {
  store::Run forced = MakeRun(kFp13, "verify", 42);
  forced.preflight_json =
      R"({"package":{"version_code":42,"compiler_filter":"verify"},
          "compilation":{"requested":"speed-profile","before":"verify",
                         "reached":"speed-profile","after":"speed-profile",
                         "changed_during_run":false}})";
  const auto c = JudgeComparability(forced, {}, MakeRun(kFp13, "speed-profile", 41), {});
  EXPECT_TRUE(c.comparable) << (c.differences.empty() ? "" : c.differences[0]);
  EXPECT_EQ(c.candidate_compilation, std::optional<std::string>("speed-profile"));
}

// Background dexopt changed the state mid-run: its launches are of two states, no verdict.
TEST(ComparabilityTest, ARunWhoseCompilationChangedIsNotComparable) {
  store::Run changed = MakeRun(kFp13, "verify", 42);
  changed.preflight_json =
      R"({"package":{"version_code":42,"compiler_filter":"verify"},
          "compilation":{"requested":"verify","before":"speed-profile","reached":"verify",
                         "after":"speed-profile","changed_during_run":true}})";
  const auto c = JudgeComparability(MakeRun(kFp13, "verify", 42), {}, changed, {});
  EXPECT_FALSE(c.comparable);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0],
            "the compilation state changed during the baseline run (background dexopt?)");
}

TEST(ComparabilityTest, ModelModeAndPackageMustMatch) {
  store::Run other = MakeRun(kFp13, "speed-profile", 42);
  other.device_model = "Pixel 8";
  other.mode = "warm";
  const auto c = JudgeComparability(other, {}, MakeRun(kFp13, "speed-profile", 42), {});
  EXPECT_FALSE(c.comparable);
  EXPECT_EQ(c.differences, (std::vector<std::string>{"another device model: Pixel 7 → Pixel 8",
                                                     "another launch mode: cold → warm"}));
}

// Older runs (or a preflight that could not read the package) know no filter or fingerprint:
// unknown is not a difference.
TEST(ComparabilityTest, UnknownIsNotADifference) {
  store::Run bare;
  bare.package = "com.example.app";
  bare.device_model = "Pixel 7";
  bare.mode = "cold";
  const auto c = JudgeComparability(bare, {}, MakeRun(kFp13, "speed-profile", 42), {});
  EXPECT_TRUE(c.comparable);
  EXPECT_FALSE(c.same_build);
}

// Launches measured hotter than their run's limits ("cooldown": "wait" ran out) are said, not
// blocking; warm-ups and invalid launches are not counted.
TEST(ComparabilityTest, HotLaunchesAreSaidAgainstEachRunsOwnLimits) {
  std::vector<store::Launch> hot(4);
  hot[0].battery_temp_tenths_c = 395;  // over the default 38.0
  hot[1].thermal_status = "moderate";  // over the default light
  hot[2].battery_temp_tenths_c = 420;
  hot[2].warmup = true;  // a warm-up: not counted
  hot[3].battery_temp_tenths_c = 300;
  const store::Run lenient = MakeRun(kFp13, "speed-profile", 42,
                                     R"({"serial":"S","package":"com.example.app",)"
                                     R"("mode":"cold","iterations":3,"max_battery_temp_c":40,)"
                                     R"("max_thermal":"moderate"})");
  const auto c = JudgeComparability(MakeRun(kFp13, "speed-profile", 42), hot, lenient, hot);
  EXPECT_TRUE(c.comparable);
  EXPECT_EQ(c.candidate_launches_too_hot, 2);
  EXPECT_EQ(c.baseline_launches_too_hot, 0);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0],
            "launches measured hotter than their run allowed: 0 in the baseline, 2 in this run");
}

// A side-by-side run (JudgeSideBySide): its builds are comparable when every install reached
// one compilation state (preflight.side_by_side.installs, as run_executor.cpp stores them).
store::Run SideBySideRun(const std::vector<std::pair<std::string, std::string>>& installs) {
  store::Run run = MakeRun(kFp13, "speed-profile", 42);
  std::string list;
  for (const auto& [arm, reached] : installs) {
    list += std::string(list.empty() ? "" : ",") + R"({"arm":")" + arm + R"(","version_code":)" +
            (arm == "baseline" ? "42" : "43") + R"(,"compilation_reached":")" + reached + R"("})";
  }
  run.preflight_json = R"({"side_by_side":{"installs":[)" + list + "]}}";
  return run;
}

TEST(ComparabilityTest, SideBySideBuildsInOneStateAreComparable) {
  const auto c = JudgeSideBySide(SideBySideRun({{"baseline", "speed-profile"},
                                                {"candidate", "speed-profile"},
                                                {"baseline", "speed-profile"}}),
                                 {}, {});
  EXPECT_TRUE(c.comparable);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_EQ(c.same_build, std::optional<bool>(false));
  EXPECT_EQ(c.baseline_compilation, std::optional<std::string>("speed-profile"));
}

TEST(ComparabilityTest, SideBySideBuildsInTwoStatesAreNot) {
  const auto c = JudgeSideBySide(SideBySideRun({{"baseline", "speed-profile"},
                                                {"candidate", "verify"},
                                                {"baseline", "speed-profile"}}),
                                 {}, {});
  EXPECT_FALSE(c.comparable);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0],
            "the builds were measured in different compilation states: baseline speed-profile, "
            "speed-profile; candidate verify");
}

}  // namespace
}  // namespace droidlab::orchestrator
