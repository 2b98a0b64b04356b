// The scenario's app faults (tools/devsim/android/app_faults.h): crash_on_launch and
// anr_on_launch, read back with `logcat -b crash|events|system` as on a phone.
#include <gtest/gtest.h>

#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::seconds;

class AppFaultsTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk, std::vector<int> crash, std::vector<int> anr) {
    Scenario scenario = OnSdk(sdk);
    scenario.noise_lines_per_s = 0;
    scenario.packages[0].crash_on_launch = std::move(crash);
    scenario.packages[0].anr_on_launch = std::move(anr);
    MakePhone(scenario);
  }
  bool Has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

// RuntimeInit.java LoggingHandler (FATAL EXCEPTION / Process: NAME, PID: N / the trace, crash
// buffer) and services/core …/am/EventLogTags.logtags 30039 am_crash (User, PID, Process Name,
// Flags, Exception, Message, File, Line; Recoverable appended on newer releases). Android 13.
TEST_F(AppFaultsTest, Android13CrashOnSecondLaunchKillsTheProcess) {
  ASSERT_NO_FATAL_FAILURE(Make(33, {2}, {}));
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string pid = Sh("pidof com.example.app").Stdout();
  ASSERT_FALSE(pid.empty());
  Sh("input keyevent KEYCODE_BACK");
  Sh("am start -W -n com.example.app/.MainActivity");  // the 2nd launch: warm, then the crash
  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 1);
  Pass(seconds(2));
  const std::string p = pid.substr(0, pid.size() - 1);
  const std::string crash = Sh("logcat -d -b crash").Stdout();
  EXPECT_TRUE(Has(crash, " E AndroidRuntime: FATAL EXCEPTION: main\n")) << crash;
  EXPECT_TRUE(Has(crash, " E AndroidRuntime: Process: com.example.app, PID: " + p + "\n"));
  EXPECT_TRUE(Has(crash,
                  " E AndroidRuntime: java.lang.IllegalStateException: devsim "
                  "crash_on_launch 2\n"));
  EXPECT_TRUE(Has(crash,
                  " E AndroidRuntime: \tat com.example.app.MainActivity.onResume("
                  "MainActivity.java:42)\n"));
  const std::string events = Sh("logcat -d -b events").Stdout();
  EXPECT_TRUE(Has(events, " I am_crash: [0," + p +
                              ",com.example.app,952745542,java.lang.IllegalStateException,devsim "
                              "crash_on_launch 2,MainActivity.java,42,0]\n"))
      << events;
  EXPECT_FALSE(Has(Sh("logcat -d -b main").Stdout(), "FATAL EXCEPTION"));
  // The 3rd launch starts a new process and does not crash.
  EXPECT_TRUE(
      Has(Sh("am start -W -n com.example.app/.MainActivity").Stdout(), "LaunchState: COLD"));
  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 0);
}

// Android 9's am_crash has no Recoverable field (EventLogTags.logtags of 9).
TEST_F(AppFaultsTest, Android9CrashEventHasEightFields) {
  ASSERT_NO_FATAL_FAILURE(Make(28, {1}, {}));
  Sh("am start -W -n com.example.app/.MainActivity");
  Pass(seconds(2));
  const std::string events = Sh("logcat -d -b events").Stdout();
  EXPECT_TRUE(Has(events, "crash_on_launch 1,MainActivity.java,42]\n")) << events;
}

// ProcessErrorStateRecord.appNotResponding (Android 12+; AppErrors before): "ANR in PROCESS
// (ACTIVITY)", "PID: N", "Reason: …" from ActivityManager, and 30008 am_anr (User, pid, Package
// Name, Flags, reason), 5 s (the input dispatch timeout) after the launch. Android 12.
TEST_F(AppFaultsTest, Android12AnrOnFirstLaunch) {
  ASSERT_NO_FATAL_FAILURE(Make(31, {}, {1}));
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string pid = Sh("pidof com.example.app").Stdout();
  const std::string p = pid.substr(0, pid.size() - 1);
  Pass(seconds(7));
  const std::string system = Sh("logcat -d -b system").Stdout();
  EXPECT_TRUE(Has(system,
                  " E ActivityManager: ANR in com.example.app (com.example.app/"
                  ".MainActivity)\n"))
      << system;
  EXPECT_TRUE(Has(system, " E ActivityManager: PID: " + p + "\n"));
  EXPECT_TRUE(Has(system, " E ActivityManager: Reason: Input dispatching timed out"));
  const std::string events = Sh("logcat -d -b events").Stdout();
  EXPECT_TRUE(Has(events, " I am_anr  : [0," + p + ",com.example.app,952745542,Input dispatching "
                          "timed out (Application does not have a focused window)]\n"))
      << events;
  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 0);  // the process lives on (the ANR dialog)
}

}  // namespace
}  // namespace droidlab::devsim
