#include "tools/devsim/android/simulated_android.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "tests/devsim/pinned_clock_phone.h"
#include "tools/devsim/shell_interpreter.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

class SimulatedAndroidTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk) { MakePhone(OnSdk(sdk)); }
  static std::string Field(const std::string& text, const std::string& key) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(key + ": ")) return line.substr(key.size() + 2);
    }
    return "";
  }
};

TEST_F(SimulatedAndroidTest, GetpropFormats) {
  Make(33);
  EXPECT_EQ(Sh("getprop ro.product.model").Stdout(), "Pixel 7\n");
  EXPECT_EQ(Sh("getprop no.such.prop").Stdout(), "\n");
  const std::string all = Sh("getprop").Stdout();
  EXPECT_NE(all.find("[ro.build.version.sdk]: [33]\n"), std::string::npos);
  EXPECT_NE(all.find("[ro.build.version.release]: [13]\n"), std::string::npos);
}

TEST_F(SimulatedAndroidTest, BannerHasModelAndShellV2ButNoDelayedAck) {
  Make(33);
  const std::string banner = android_->ConnectBanner();
  EXPECT_TRUE(banner.starts_with("device::ro.product.name=panther;ro.product.model=Pixel 7;"));
  EXPECT_NE(banner.find("features=shell_v2,cmd"), std::string::npos);
  EXPECT_EQ(banner.find("delayed_ack"), std::string::npos);
}

TEST_F(SimulatedAndroidTest, UnknownCommandIs127) {
  Make(33);
  const auto output = Sh("frobnicate --now");
  EXPECT_EQ(output.exit_code, 127);
  EXPECT_EQ(output.Stderr(), "/system/bin/sh: frobnicate: inaccessible or not found\n");
}

TEST_F(SimulatedAndroidTest, SettingsRoundTrip) {
  Make(33);
  EXPECT_EQ(Sh("settings get global looper_stats").Stdout(), "null\n");
  Sh("settings put global looper_stats enabled=true,sampling_interval=1");
  EXPECT_EQ(Sh("settings get global looper_stats").Stdout(), "enabled=true,sampling_interval=1\n");
}

TEST_F(SimulatedAndroidTest, ColdThenForegroundThenHotLaunch) {
  Make(33);
  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 1);
  const std::string cold = Sh("am start -W -n com.example.app/.MainActivity").Stdout();
  EXPECT_TRUE(
      cold.starts_with("Starting: Intent { cmp=com.example.app/.MainActivity }\n"
                       "Status: ok\nLaunchState: COLD\n"));
  const std::string pid = Sh("pidof com.example.app").Stdout();
  EXPECT_FALSE(pid.empty());

  const std::string again = Sh("am start -W -n com.example.app/.MainActivity").Stdout();
  EXPECT_NE(again.find("LaunchState: UNKNOWN (0)"), std::string::npos);
  EXPECT_EQ(again.find("TotalTime"), std::string::npos);

  Sh("input keyevent KEYCODE_HOME");
  EXPECT_NE(Sh("am start -W -n com.example.app/.MainActivity").Stdout().find("LaunchState: HOT"),
            std::string::npos);
  Sh("input keyevent 4");
  EXPECT_NE(Sh("am start -W -n com.example.app/.MainActivity").Stdout().find("LaunchState: WARM"),
            std::string::npos);
  Sh("am force-stop com.example.app");
  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 1);
}

// toybox date and getconf (what run_executor reads for its clock): date's realtime is the clock
// of the log lines, /proc/uptime the boot clock of /proc/PID/stat's starttime, so the START line
// mapped to the boot clock comes 11..21 ms (devsim's fork delay) before the process's starttime,
// give or take one 10 ms tick and /proc/uptime's centiseconds.
TEST_F(SimulatedAndroidTest, DateAndGetconfAgreeWithUptimeLogAndStarttime) {
  Make(33);
  *now_ += milliseconds(1234567);
  EXPECT_EQ(Sh("getconf CLK_TCK").Stdout(), "100\n");
  EXPECT_EQ(Sh("getconf PAGESIZE").Stdout(), "4096\n");
  EXPECT_EQ(Sh("getconf NOPE").exit_code, 1);
  EXPECT_EQ(Sh("date -u").Stdout(), "Sat Mar 14 00:20:34 UTC 2026\n");
  EXPECT_EQ(Sh("date -u +%Y-%m-%d_%e_%%").Stdout(), "2026-03-14_14_%\n");
  EXPECT_EQ(Sh("date -u +%q").exit_code, 1);
  const std::string clocks = Sh("cat /proc/uptime; date +%s.%N").Stdout();
  double uptime = 0, idle = 0, real = 0;
  ASSERT_EQ(std::sscanf(clocks.c_str(), "%lf %lf\n%lf", &uptime, &idle, &real), 3) << clocks;
  const std::string nanos = clocks.substr(clocks.find('.', clocks.find('\n')) + 1);
  EXPECT_EQ(nanos, "567000000\n");
  const double offset_s = real - uptime;  // realtime at boot

  Sh("logcat -c");
  *now_ += milliseconds(5);
  ASSERT_NE(Sh("am start -W -n com.example.app/.MainActivity").Stdout().find("COLD"),
            std::string::npos);
  const std::string log = Sh("logcat -d -v epoch").Stdout();
  const size_t start = log.find("START u0");
  ASSERT_NE(start, std::string::npos) << log;
  const size_t line_begin = log.rfind('\n', start) + 1;
  const double start_real = std::stod(log.substr(line_begin, start - line_begin));
  const std::string pid = Sh("pidof com.example.app").Stdout();
  const std::string stat = Sh("cat /proc/" + pid.substr(0, pid.size() - 1) + "/stat").Stdout();
  const std::string after_comm = stat.substr(stat.rfind(')') + 2);
  std::istringstream fields(after_comm);
  std::string field;
  long starttime = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) starttime = std::stol(field);
  }
  const double intent_to_fork_ms = starttime * 10.0 - (start_real - offset_s) * 1000.0;
  EXPECT_GE(intent_to_fork_ms, 11 - 20);
  EXPECT_LE(intent_to_fork_ms, 21 + 20);
}

TEST_F(SimulatedAndroidTest, DisplayedEqualsTotalTimeAndLinesAreThreadtime) {
  Make(33);
  Sh("logcat -c");
  const std::string am = Sh("am start -W -n com.example.app/.MainActivity").Stdout();
  const std::string total = Field(am, "TotalTime");
  ASSERT_FALSE(total.empty());
  const std::string log = Sh("logcat -d").Stdout();
  EXPECT_TRUE(log.starts_with("--------- beginning of system\n03-14 00:00:00.001  1501 "));
  EXPECT_NE(log.find(" I ActivityTaskManager: START u0 {flg=0x10000000 "
                     "cmp=com.example.app/.MainActivity} from uid 2000\n"),
            std::string::npos);
  EXPECT_NE(log.find(" I ActivityManager: Start proc "), std::string::npos);
  EXPECT_NE(log.find(" I ActivityTaskManager: Displayed com.example.app/.MainActivity for user 0: " +
                     FormatLogDuration(std::stol(total)) + "\n"),
            std::string::npos)
      << log;
}

TEST_F(SimulatedAndroidTest, Android9UsesActivityManagerTagAndThisTime) {
  Make(28);
  const std::string am = Sh("am start -W -n com.example.app/.MainActivity").Stdout();
  EXPECT_EQ(am.find("LaunchState"), std::string::npos);
  EXPECT_NE(am.find("ThisTime: "), std::string::npos);
  const std::string log = Sh("logcat -d ActivityManager:I *:S").Stdout();
  EXPECT_NE(log.find("I ActivityManager: Displayed com.example.app/.MainActivity: +"),
            std::string::npos);
  EXPECT_EQ(log.find("ActivityTaskManager"), std::string::npos);
}

TEST_F(SimulatedAndroidTest, ProcStatStarttimeAgreesWithUptime) {
  Make(33);
  Sh("am start -n com.example.app/.MainActivity");
  std::string pid = Sh("pidof com.example.app").Stdout();
  pid.pop_back();
  *now_ += std::chrono::seconds(10);
  const std::string stat = Sh("cat /proc/" + pid + "/stat").Stdout();
  const std::string uptime = Sh("cat /proc/uptime").Stdout();
  // Fields after the comm: field 3 is state, so starttime (22) is the 20th after ')'.
  std::istringstream after(stat.substr(stat.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string f; after >> f;) fields.push_back(f);
  ASSERT_EQ(fields.size() + 2, 52u);
  const double start_s = std::stod(fields[22 - 3]) / 100.0;
  const double up_s = std::stod(uptime.substr(0, uptime.find(' ')));
  EXPECT_NEAR(up_s - start_s, 10.0, 0.05);
  EXPECT_TRUE(stat.starts_with(pid + " (com.example.app) S "));
}

TEST_F(SimulatedAndroidTest, LongPackageNamesKeepTheirLast15CharsAsComm) {
  Make(33);
  Sh("am start -n com.android.settings/.Settings");
  std::string pid = Sh("pidof com.android.settings").Stdout();
  pid.pop_back();
  EXPECT_NE(Sh("cat /proc/" + pid + "/stat").Stdout().find(" (ndroid.settings) "),
            std::string::npos);
}

TEST_F(SimulatedAndroidTest, UnknownActivityIsErrorType3) {
  Make(33);
  const auto output = Sh("am start -W -n com.nope/.Main");
  EXPECT_NE(output.Stdout().find("Error type 3"), std::string::npos);
  EXPECT_EQ(output.Stderr(), "Error: Activity class {com.nope/com.nope.Main} does not exist.\n");
}

TEST_F(SimulatedAndroidTest, PmPathFormatsBySdk) {
  Make(33);
  EXPECT_TRUE(Sh("pm path com.example.app").Stdout().starts_with("package:/data/app/~~"));
  EXPECT_EQ(Sh("pm path com.nope").exit_code, 1);
  Make(29);
  EXPECT_TRUE(
      Sh("pm path com.example.app").Stdout().starts_with("package:/data/app/com.example.app-"));
}

TEST(ScenarioTest, ParsesFileAndFillsRelease) {
  const auto parsed = ParseScenario(R"({"seed": 7,
      "device": {"serial": "S1", "model": "Galaxy S21", "sdk": 31},
      "packages": [{"name": "com.a", "activity": ".Main", "uid": 10200,
                    "cold": {"mean": 900, "stddev": 0}}]})");
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed)) << std::get<std::string>(parsed);
  const Scenario& s = std::get<Scenario>(parsed);
  EXPECT_EQ(s.device.release, "12");
  EXPECT_EQ(s.packages.at(0).cold.mean_ms, 900);
}

TEST(ScenarioTest, ColonInModelIsRefused) {
  const auto parsed = ParseScenario(R"({"device": {"model": "a:b"}})");
  ASSERT_TRUE(std::holds_alternative<std::string>(parsed));
}

}  // namespace
}  // namespace droidlab::devsim
