// ParseRunSpec / ValidateRunSpec / RunSpecToJson (orchestrator/spec/run_spec.h): the request body
// of POST /api/v1/runs (API.md). Names follow adb/names.h; the activity is a Java class name
// (".Main" or "a.b.Main"), nothing a shell would read specially.
#include "orchestrator/spec/run_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace droidlab::orchestrator {
namespace {

struct BadCase {
  std::string name;
  std::string body;
  std::string field;    // the field the error must name
  std::string message;  // a part of the message
};

std::string Body(const std::string& members) {
  return R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold","iterations":5)" +
         members + "}";
}

class RunSpecRefusedTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(RunSpecRefusedTest, NamesTheFieldAndTheReason) {
  const BadCase& c = GetParam();
  auto parsed = ParseRunSpec(c.body);
  ASSERT_FALSE(parsed.ok()) << c.body;
  EXPECT_EQ(parsed.error().field, c.field);
  EXPECT_NE(parsed.error().message.find(c.message), std::string::npos) << parsed.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, RunSpecRefusedTest,
    ::testing::Values(
        BadCase{"NotJson", "{", "", "not valid JSON"},
        BadCase{"NotAnObject", "[1]", "", "must be a JSON object"},
        BadCase{"UnknownField", Body(R"(,"iteration":3)"), "iteration", "is not a field"},
        // Issue 13: parsed once with limits (json_body.h).
        BadCase{"TwoPackages", Body(R"(,"package":"com.other")"), "package",
                "is given more than once"},
        BadCase{"DuplicateInLooperStats",
                Body(R"(,"looper_stats":{"sampling_interval":1,"sampling_interval":2})"),
                "looper_stats.sampling_interval", "is given more than once"},
        BadCase{"SixtyFiveLevels",
                Body(R"(,"activity":)" + std::string(64, '[') + std::string(64, ']')), "",
                "is nested deeper than 64 levels"},
        BadCase{"BeyondADouble", Body(R"(,"launch_timeout_ms":1e400)"), "",
                "number overflow parsing '1e400'"},
        BadCase{"MissingSerial", R"({"package":"com.x.y","mode":"cold","iterations":1})", "serial",
                "is required"},
        BadCase{"MissingPackage", R"({"serial":"S1","mode":"cold","iterations":1})", "package",
                "is required"},
        BadCase{"MissingMode", R"({"serial":"S1","package":"com.x.y","iterations":1})", "mode",
                "is required"},
        BadCase{"MissingIterations", R"({"serial":"S1","package":"com.x.y","mode":"cold"})",
                "iterations", "is required"},
        BadCase{"SerialWithSlash",
                R"({"serial":"../x","package":"com.x.y","mode":"cold","iterations":1})", "serial",
                "bad byte"},
        BadCase{"SerialNotString",
                R"({"serial":5,"package":"com.x.y","mode":"cold","iterations":1})", "serial",
                "must be a string"},
        BadCase{"PackageSemicolon",
                R"({"serial":"S1","package":"com.x;reboot","mode":"cold","iterations":1})",
                "package", "bad byte"},
        BadCase{"PackageCommandSubstitution",
                R"j({"serial":"S1","package":"$(reboot)","mode":"cold","iterations":1})j",
                "package", ""},
        BadCase{"PackageUnicode",
                R"({"serial":"S1","package":"com.exämple.app","mode":"cold","iterations":1})",
                "package", ""},
        BadCase{"ActivitySemicolon", Body(R"(,"activity":".Main;reboot")"), "activity",
                "bad byte 0x3b"},
        BadCase{"ActivityCommandSubstitution", Body(R"j(,"activity":"$(reboot)")j"), "activity",
                "bad byte 0x24"},
        BadCase{"ActivityBacktick", Body(R"(,"activity":".Main`reboot`")"), "activity",
                "bad byte 0x60"},
        BadCase{"ActivityNewline", Body(R"(,"activity":".Main\nreboot")"), "activity",
                "bad byte 0x0a"},
        BadCase{"ActivityQuote", Body(R"(,"activity":".Main'x")"), "activity", "bad byte 0x27"},
        BadCase{"ActivityDoubleQuote", Body(R"(,"activity":".Main\"x")"), "activity",
                "bad byte 0x22"},
        BadCase{"ActivityUnicode", Body(R"(,"activity":".Mäin")"), "activity", "bad byte 0xc3"},
        BadCase{"ActivityDotDotSlash", Body(R"(,"activity":"../Main")"), "activity",
                "empty segment"},
        BadCase{"ActivitySlash", Body(R"(,"activity":"com.x/.Main")"), "activity", "bad byte 0x2f"},
        BadCase{"ActivityDollarNested", Body(R"(,"activity":".Outer$Inner")"), "activity",
                "bad byte 0x24"},
        BadCase{"ActivityTrailingDot", Body(R"(,"activity":"com.x.")"), "activity", "end with"},
        BadCase{"ActivityEmpty", Body(R"(,"activity":"")"), "activity", "must not be empty"},
        BadCase{"ActivityDigitFirst", Body(R"(,"activity":".1Main")"), "activity", "bad byte"},
        BadCase{"ActivityNumber", Body(R"(,"activity":7)"), "activity", "must be a string"},
        BadCase{"ModeUnknown",
                R"({"serial":"S1","package":"com.x.y","mode":"lukewarm","iterations":1})", "mode",
                "must be \"cold\", \"warm\" or \"hot\""},
        BadCase{"IterationsZero",
                R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":0})", "iterations",
                "must be between 1 and 1000, got 0"},
        BadCase{"IterationsBillion",
                R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":1000000000})",
                "iterations", "got 1000000000"},
        BadCase{
            "IterationsBeyondInt64",
            R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":18446744073709551615})",
            "iterations", "must be between"},
        BadCase{"IterationsFloat",
                R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":2.5})",
                "iterations", "must be an integer"},
        BadCase{"IterationsString",
                R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":"5"})",
                "iterations", "must be an integer"},
        BadCase{"IterationsBool",
                R"({"serial":"S1","package":"com.x.y","mode":"cold","iterations":true})",
                "iterations", "must be an integer"},
        BadCase{"LooperNotObject", Body(R"(,"looper_stats":10)"), "looper_stats",
                "must be an object"},
        BadCase{"LooperMissingInterval", Body(R"(,"looper_stats":{})"),
                "looper_stats.sampling_interval", "is required"},
        BadCase{"LooperUnknownKey", Body(R"(,"looper_stats":{"sampling_interval":1,"x":2})"),
                "looper_stats.x", "is not a field"},
        BadCase{"LooperIntervalZero", Body(R"(,"looper_stats":{"sampling_interval":0})"),
                "looper_stats.sampling_interval", "got 0"},
        BadCase{"ProcIntervalTooSmall", Body(R"(,"proc_sample_interval_ms":5)"),
                "proc_sample_interval_ms", "must be between 10 and 60000"},
        BadCase{"LaunchTimeoutZero", Body(R"(,"launch_timeout_ms":0)"), "launch_timeout_ms",
                "got 0"},
        BadCase{"OnLaunchFailureUnknown", Body(R"(,"on_launch_failure":"retry")"),
                "on_launch_failure", "must be"},
        BadCase{"PreflightUnknown", Body(R"(,"preflight":"strict")"), "preflight", "must be"},
        // Issue 14 §3: warm-up and heat.
        BadCase{"WarmupNegative", Body(R"(,"warmup":-1)"), "warmup", "must be between 0 and 100"},
        BadCase{"WarmupTooMany", Body(R"(,"warmup":101)"), "warmup", "got 101"},
        BadCase{"MaxThermalUnknown", Body(R"(,"max_thermal":"warm")"), "max_thermal",
                "must be one of none, light"},
        BadCase{"MaxThermalNumber", Body(R"(,"max_thermal":1)"), "max_thermal", "must be a string"},
        BadCase{"BatteryLimitTooLow", Body(R"(,"max_battery_temp_c":15)"), "max_battery_temp_c",
                "must be between 20 and 60"},
        BadCase{"BatteryLimitString", Body(R"(,"max_battery_temp_c":"38")"), "max_battery_temp_c",
                "must be a number of degrees Celsius"},
        BadCase{"CooldownTimeoutTooLong", Body(R"(,"cooldown_timeout_s":3601)"),
                "cooldown_timeout_s", "got 3601"},
        BadCase{"CooldownUnknown", Body(R"(,"cooldown":"skip")"), "cooldown", "must be"},
        BadCase{"CompilationUnknown", Body(R"(,"compilation":"quicken")"), "compilation",
                "must be \"as-is\", \"speed-profile\", \"speed\", \"verify\" or \"none\", got "
                "\"quicken\""},
        BadCase{"CompilationNotAString", Body(R"(,"compilation":1)"), "compilation", "must be"},
        // Issue 14 §4: builds side by side.
        BadCase{"BaselineBuildAlone", Body(R"(,"baseline_build":3)"), "baseline_build",
                "needs \"build\""},
        BadCase{"BaselineBuildZero", Body(R"(,"build":4,"baseline_build":0)"), "baseline_build",
                "must be"},
        BadCase{"BlockWithoutBaseline", Body(R"(,"build":4,"block":3)"), "block",
                "only for a side-by-side run"},
        BadCase{"BlockZero", Body(R"(,"build":4,"baseline_build":3,"block":0)"), "block",
                "must be between 1 and 1000"},
        // Issue 15 §3: a calibration run is an A/A of its build.
        BadCase{"CalibrationWithoutBuild", Body(R"(,"kind":"calibration")"), "kind",
                "needs \"build\""},
        BadCase{"KindUnknown", Body(R"(,"build":4,"kind":"aa")"), "kind",
                "must be \"launch\" or \"calibration\""},
        BadCase{"CalibrationAgainstAnotherBuild",
                Body(R"(,"build":4,"baseline_build":3,"kind":"calibration")"), "baseline_build",
                "against itself"}),
    [](const ::testing::TestParamInfo<BadCase>& param_info) { return param_info.param.name; });

TEST(RunSpecTest, ParsesTheApiExample) {
  auto parsed = ParseRunSpec(
      R"({"serial":"R58M123ABC","package":"com.example.app","activity":".MainActivity",
          "mode":"warm","iterations":20,"looper_stats":{"sampling_interval":10},
          "proc_sample_interval_ms":100})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().field << ": " << parsed.error().message;
  EXPECT_EQ(parsed->serial, "R58M123ABC");
  EXPECT_EQ(parsed->activity, ".MainActivity");
  EXPECT_EQ(parsed->mode, LaunchMode::kWarm);
  EXPECT_EQ(parsed->iterations, 20);
  EXPECT_EQ(parsed->looper_sampling_interval, 10);
  EXPECT_EQ(parsed->proc_sample_interval_ms, 100);
  EXPECT_EQ(parsed->launch_timeout_ms, 30'000);
  EXPECT_EQ(parsed->on_launch_failure, OnLaunchFailure::kContinue);
  EXPECT_FALSE(parsed->preflight_enforce);
}

// Defaults a lab would pick (README.md, "Warm-up and heat"), and each given value.
TEST(RunSpecTest, WarmupAndCooldownDefaultsAndValues) {
  auto defaults = ParseRunSpec(Body(""));
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->warmup, 0);
  EXPECT_EQ(defaults->max_thermal_status, 1);  // light
  EXPECT_EQ(defaults->max_battery_temp_tenths_c, 380);
  EXPECT_EQ(defaults->cooldown_timeout_s, 300);
  EXPECT_FALSE(defaults->cooldown_fail);
  auto given = ParseRunSpec(
      Body(R"(,"warmup":3,"max_thermal":"none","max_battery_temp_c":36.5,"cooldown_timeout_s":0,)"
           R"("cooldown":"fail")"));
  ASSERT_TRUE(given.ok()) << given.error().message;
  EXPECT_EQ(given->warmup, 3);
  EXPECT_EQ(given->max_thermal_status, 0);
  EXPECT_EQ(given->max_battery_temp_tenths_c, 365);
  EXPECT_EQ(given->cooldown_timeout_s, 0);
  EXPECT_TRUE(given->cooldown_fail);
  EXPECT_EQ(ThermalStatusLowerName(2), "moderate");
  EXPECT_EQ(ThermalStatusLowerName(7), "unknown");
}

// Issue 14 §2: speed-profile unless asked, each name as API.md spells it.
TEST(RunSpecTest, CompilationDefaultAndNames) {
  auto defaults = ParseRunSpec(Body(""));
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->compilation, Compilation::kSpeedProfile);
  for (const char* name : {"as-is", "speed-profile", "speed", "verify", "none"}) {
    auto given = ParseRunSpec(Body(std::string(R"(,"compilation":")") + name + "\""));
    ASSERT_TRUE(given.ok()) << name << ": " << given.error().message;
    EXPECT_STREQ(CompilationName(given->compilation), name);
  }
}

TEST(RunSpecTest, SideBySideBuildsAndBlock) {
  auto plain = ParseRunSpec(Body(R"(,"build":4)"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->side_by_side());
  EXPECT_EQ(plain->block, kDefaultBlock);
  auto ab = ParseRunSpec(Body(R"(,"build":4,"baseline_build":3,"block":2)"));
  ASSERT_TRUE(ab.ok()) << ab.error().message;
  EXPECT_TRUE(ab->side_by_side());
  EXPECT_EQ(ab->build, 4);
  EXPECT_EQ(ab->baseline_build, 3);
  EXPECT_EQ(ab->block, 2);
  // An A/A of one build is a side-by-side run too: the same APK reinstalled at each switch.
  auto aa = ParseRunSpec(Body(R"(,"build":4,"baseline_build":4)"));
  ASSERT_TRUE(aa.ok()) << aa.error().message;
  EXPECT_TRUE(aa->side_by_side());
}

// A calibration run: the build against itself, in two halves unless a block is given; stored
// and read back the same.
TEST(RunSpecTest, ACalibrationRunIsAnAaOfItsBuild) {
  auto halves = ParseRunSpec(Body(R"(,"build":4,"kind":"calibration")"));
  ASSERT_TRUE(halves.ok()) << halves.error().message;
  EXPECT_TRUE(halves->calibration);
  EXPECT_EQ(halves->baseline_build, 4);
  EXPECT_EQ(halves->block, 5);  // Body's iterations
  auto blocks = ParseRunSpec(Body(R"(,"build":4,"block":2,"kind":"calibration")"));
  ASSERT_TRUE(blocks.ok()) << blocks.error().message;
  EXPECT_EQ(blocks->block, 2);
  auto back = ParseRunSpec(RunSpecToJson(*halves));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == *halves);
  auto plain = ParseRunSpec(Body(R"(,"build":4)"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->calibration);
}

TEST(RunSpecTest, FullClassNameActivityAndBounds) {
  auto parsed =
      ParseRunSpec(R"({"serial":"emulator-5554","package":"com.example.app","mode":"cold",)"
                   R"("activity":"com.other.ui.Main_2","iterations":1000,)"
                   R"("preflight":"enforce","on_launch_failure":"fail"})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->activity, "com.other.ui.Main_2");
  EXPECT_EQ(parsed->iterations, 1000);
  EXPECT_TRUE(parsed->preflight_enforce);
  EXPECT_EQ(parsed->on_launch_failure, OnLaunchFailure::kFail);
}

TEST(RunSpecTest, RoundTripsThroughCanonicalJson) {
  RunSpec spec;
  spec.serial = "127.0.0.1:5555";
  spec.package = "com.example.app";
  spec.activity = ".MainActivity";
  spec.mode = LaunchMode::kHot;
  spec.iterations = 7;
  spec.looper_sampling_interval = 3;
  spec.proc_sample_interval_ms = 250;
  spec.launch_timeout_ms = 1234;
  spec.fully_drawn_timeout_ms = 99;
  spec.on_launch_failure = OnLaunchFailure::kFail;
  spec.preflight_enforce = true;
  spec.warmup = 2;
  spec.max_thermal_status = 3;
  spec.max_battery_temp_tenths_c = 415;
  spec.cooldown_timeout_s = 60;
  spec.cooldown_fail = true;
  spec.compilation = Compilation::kNone;
  spec.build = 9;
  spec.baseline_build = 8;
  spec.block = 3;
  auto back = ParseRunSpec(RunSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.error().field << ": " << back.error().message;
  EXPECT_TRUE(*back == spec);
  RunSpec minimal;
  minimal.serial = "S1";
  minimal.package = "com.x.y";
  minimal.iterations = 1;
  auto min_back = ParseRunSpec(RunSpecToJson(minimal));
  ASSERT_TRUE(min_back.ok()) << min_back.error().message;
  EXPECT_TRUE(*min_back == minimal);
  EXPECT_FALSE(*min_back == spec);
}

TEST(RunSpecTest, ValidateChecksSpecsBuiltInCode) {
  RunSpec spec;
  spec.serial = "S1";
  spec.package = "com.x.y";
  spec.iterations = 1;
  EXPECT_FALSE(ValidateRunSpec(spec));
  spec.activity = ".Main$(reboot)";
  auto e = ValidateRunSpec(spec);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->field, "activity");
  spec.activity.reset();
  spec.iterations = 0;
  ASSERT_TRUE(ValidateRunSpec(spec));
  EXPECT_EQ(ValidateRunSpec(spec)->field, "iterations");
}

TEST(RunSpecTest, ModeNames) {
  for (LaunchMode m : {LaunchMode::kCold, LaunchMode::kWarm, LaunchMode::kHot}) {
    EXPECT_EQ(LaunchModeFromName(LaunchModeName(m)), m);
  }
  EXPECT_FALSE(LaunchModeFromName("COLD"));
}

}  // namespace
}  // namespace droidlab::orchestrator
