// devsim's compilation state (issue 14 §5): `cmd package compile` and `delete-dexopt` answer
// as each Android version does (PackageManagerShellCommand.runCompile for Android 7–13, ART
// Service's ArtShellCommand from 14), `dumpsys package` shows the state they leave (read here
// with droidlab's own parser), background dexopt changes it later, and it moves cold launches.
#include <gtest/gtest.h>

#include <string>

#include "parsers/am_start.h"
#include "parsers/dumpsys_package.h"
#include "parsers/pm_compile.h"
#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

class CompilationTest : public PinnedClockPhoneTest {
 protected:
  void Start(int sdk, std::string filter = "speed-profile", bool has_profile = true,
             double bg_dexopt_after_s = 0) {
    Scenario scenario = DefaultScenario();
    scenario.device.sdk = sdk;
    scenario.device.release.clear();
    scenario.device.fingerprint.clear();
    scenario.packages[0].compiler_filter = std::move(filter);
    scenario.packages[0].has_profile = has_profile;
    scenario.packages[0].bg_dexopt_after_s = bg_dexopt_after_s;
    scenario.packages[0].cold = {200, 0};
    MakePhone(scenario);
  }
  // The primary status dumpsys package shows: "filter/reason".
  std::string State() {
    auto d = parsers::ParseDumpsysPackage(Sh(std::string("dumpsys package ") + kApp).Stdout(), kApp);
    EXPECT_TRUE(d.ok());
    if (!d.ok() || d->PrimaryDexopt() == nullptr) return "?";
    return d->PrimaryDexopt()->compiler_filter + "/" + d->PrimaryDexopt()->reason;
  }
  int64_t ColdLaunchMs() {
    Sh(std::string("am force-stop ") + kApp);
    auto r = parsers::ParseAmStart(Sh("am start -W -n com.example.app/.MainActivity").Stdout());
    EXPECT_TRUE(r.ok() && r->total_time_ms);
    return r.ok() && r->total_time_ms ? *r->total_time_ms : -1;
  }
};

TEST_F(CompilationTest, Android13CompilesToTheFilterAsked) {
  Start(33, "verify");
  EXPECT_EQ(State(), "verify/bg-dexopt");
  const auto out = Sh("cmd package compile -m speed -f com.example.app");
  EXPECT_EQ(out.Stdout(), "Success\n");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(State(), "speed/cmdline");
  // The obsolete names of Android 8–13 map to today's (CompilerFilter::ParseCompilerFilter).
  EXPECT_EQ(Sh("pm compile -m verify-profile -f com.example.app").Stdout(), "Success\n");
  EXPECT_EQ(State(), "verify/cmdline");
}

TEST_F(CompilationTest, Android13RefusesWhatItDoesNotKnow) {
  Start(33);
  const auto filter = Sh("cmd package compile -m quicken -f com.example.app");
  EXPECT_EQ(filter.Stdout(), "Error: \"quicken\" is not a valid compilation filter.\n");
  EXPECT_EQ(filter.exit_code, 1);
  const auto package = Sh("cmd package compile -m speed -f no.such.app");
  auto parsed = parsers::ParsePmCompileOutput(package.Stdout());
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->reason, "Failure: package no.such.app could not be compiled");
  EXPECT_EQ(package.exit_code, 1);
  EXPECT_EQ(State(), "speed-profile/bg-dexopt");
}

// ART Service: speed-profile without a profile is verify; "extract" is not taken; no artifacts
// after delete-dexopt.
TEST_F(CompilationTest, Android14ArtServiceAnswers) {
  Start(34, "speed-profile", /*has_profile=*/false);
  EXPECT_EQ(Sh("cmd package compile -m speed-profile -f com.example.app").Stdout(), "Success\n");
  EXPECT_EQ(State(), "verify/cmdline");
  const auto extract = Sh("cmd package compile -m extract -f com.example.app");
  EXPECT_EQ(extract.exit_code, 255);
  auto parsed = parsers::ParsePmCompileOutput(extract.Stderr());
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->success);
  EXPECT_EQ(parsed->reason, "java.lang.IllegalArgumentException: Invalid compiler filter 'extract'");
  auto freed = parsers::ParsePmCompileOutput(Sh("cmd package delete-dexopt com.example.app").Stdout());
  ASSERT_TRUE(freed.ok());
  EXPECT_GT(freed->freed_bytes.value_or(0), 0);
  EXPECT_EQ(State(), "run-from-apk/unknown");
}

TEST_F(CompilationTest, DeleteDexoptIsUnknownBeforeAndroid14) {
  Start(33);
  const auto out = Sh("cmd package delete-dexopt com.example.app");
  EXPECT_NE(out.exit_code, 0);
  EXPECT_EQ(State(), "speed-profile/bg-dexopt");
}

TEST_F(CompilationTest, BackgroundDexoptComesAfterItsDelay) {
  Start(33, "speed-profile", true, /*bg_dexopt_after_s=*/10);
  EXPECT_EQ(Sh("cmd package compile -m verify -f com.example.app").Stdout(), "Success\n");
  Pass(milliseconds(9'000));
  EXPECT_EQ(State(), "verify/cmdline");
  Pass(milliseconds(1'000));
  EXPECT_EQ(State(), "speed-profile/bg-dexopt");
  // It does not make a better state worse.
  EXPECT_EQ(Sh("cmd package compile -m speed -f com.example.app").Stdout(), "Success\n");
  Pass(milliseconds(20'000));
  EXPECT_EQ(State(), "speed/cmdline");
}

TEST_F(CompilationTest, TheStateMovesColdLaunches) {
  Start(33, "speed-profile");
  EXPECT_EQ(ColdLaunchMs(), 200);
  Sh("cmd package compile -m verify -f com.example.app");
  EXPECT_EQ(ColdLaunchMs(), 270);  // 35 % slower: startup code interpreted
  Sh("cmd package compile -m speed -f com.example.app");
  EXPECT_EQ(ColdLaunchMs(), 190);
}

}  // namespace
}  // namespace droidlab::devsim
