// `devsim-fault reboot`: what a phone restarting mid-run looks like from the shell. Processes,
// the log and the battery override go (RAM); Settings.Global stays (/data); for a while after
// adbd is back, system_server has not published its services: `settings` (a script running
// `cmd settings`, frameworks/base/cmds/settings/settings) fails as frameworks/native
// cmds/cmd/cmd.cpp does when checkService finds nothing — "cmd: Can't find service: settings"
// on stderr, exit 20 (Android 8 to 14) — dumpsys prints "Can't find service: NAME" and exits 0
// (cmds/dumpsys/dumpsys.cpp), and `getprop sys.boot_completed` is empty until
// ActivityManagerService finishes booting (the property is not persistent).
#include <gtest/gtest.h>

#include <memory>

#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

class RebootFaultTest : public PinnedClockPhoneTest {
 protected:
  void SetUp() override { MakePhone(DefaultScenario()); }  // a Pixel 7 on Android 13
};

TEST_F(RebootFaultTest, ProcessesAndBatteryOverrideGoSettingsStay) {
  ASSERT_EQ(Sh("am start -W -n com.example.app/.MainActivity").exit_code, 0);
  const std::string pid = Sh("pidof com.example.app").Stdout();
  ASSERT_FALSE(pid.empty());
  ASSERT_EQ(Sh("settings put global looper_stats enabled=true,sampling_interval=1").exit_code, 0);
  Sh("dumpsys battery unplug");
  ASSERT_NE(Sh("dumpsys battery").Stdout().find("UPDATES STOPPED"), std::string::npos);
  const double uptime_before = android_->UptimeSeconds();

  const CommandOutput reboot = Sh("devsim-fault reboot 1000 2000");
  ASSERT_EQ(reboot.exit_code, 0) << reboot.Stderr();
  Pass(milliseconds(3500));  // off the wire 1 s, services 2 s later

  EXPECT_EQ(Sh("pidof com.example.app").exit_code, 1) << "the app survived the reboot";
  EXPECT_LT(android_->UptimeSeconds(), uptime_before);
  EXPECT_LT(android_->UptimeSeconds(), 5.0);
  const std::string battery = Sh("dumpsys battery").Stdout();
  EXPECT_EQ(battery.find("UPDATES STOPPED"), std::string::npos) << battery;
  EXPECT_NE(battery.find("USB powered: true"), std::string::npos) << battery;
  EXPECT_EQ(Sh("settings get global looper_stats").Stdout(), "enabled=true,sampling_interval=1\n");
  // The next cold launch forks a new process.
  ASSERT_EQ(Sh("am start -W -n com.example.app/.MainActivity").exit_code, 0);
  EXPECT_FALSE(Sh("pidof com.example.app").Stdout().empty());
}

TEST_F(RebootFaultTest, TheSettingsProviderAndBootCompletedComeBackLate) {
  ASSERT_EQ(Sh("getprop sys.boot_completed").Stdout(), "1\n");
  ASSERT_EQ(Sh("devsim-fault reboot 1000 2000").exit_code, 0);
  Pass(milliseconds(1500));  // adbd answers again; system_server is still starting

  EXPECT_EQ(Sh("getprop sys.boot_completed").Stdout(), "\n");
  const CommandOutput get = Sh("settings get global looper_stats");
  EXPECT_EQ(get.exit_code, 20);
  EXPECT_EQ(get.Stdout(), "");
  EXPECT_EQ(get.Stderr(), "cmd: Can't find service: settings\n");
  const CommandOutput put = Sh("settings put global looper_stats sampling_interval=3");
  EXPECT_EQ(put.exit_code, 20);
  EXPECT_EQ(Sh("cmd battery reset").Stderr(), "cmd: Can't find service: battery\n");
  const CommandOutput dump = Sh("dumpsys battery reset");
  EXPECT_EQ(dump.exit_code, 0);  // dumpsys exits 0 whatever happened: callers must look
  EXPECT_EQ(dump.Stderr(), "Can't find service: battery\n");
  EXPECT_EQ(Sh("am force-stop com.example.app").exit_code, 20);
  EXPECT_EQ(Sh("getprop ro.product.model").Stdout(), "Pixel 7\n");  // init's properties are up

  Pass(milliseconds(1600));
  EXPECT_EQ(Sh("getprop sys.boot_completed").Stdout(), "1\n");
  const CommandOutput later = Sh("settings get global looper_stats");
  EXPECT_EQ(later.exit_code, 0) << later.Stderr();
  EXPECT_EQ(later.Stdout(), "null\n");  // the put above never reached the provider
  EXPECT_NE(Sh("logcat -d -b system").Stdout().find("System now ready"), std::string::npos);
}

// The looper_stats setting survives and LooperStatsService reads it at boot: enabled again,
// with its counters empty.
TEST_F(RebootFaultTest, LooperStatsStartEmptyFromTheKeptSetting) {
  ASSERT_EQ(Sh("settings put global looper_stats enabled=true,sampling_interval=1").exit_code, 0);
  Sh("dumpsys battery unplug");
  Pass(milliseconds(2000));
  ASSERT_EQ(Sh("devsim-fault reboot 0 0").exit_code, 0);
  const std::string dump = Sh("dumpsys looper_stats").Stdout();
  EXPECT_NE(dump.find("Start time: "), std::string::npos) << dump;
  EXPECT_EQ(dump.find("android.anim"), std::string::npos) << "counters survived the reboot";
  // Charging again (the unplug is gone): nothing is recorded.
  Pass(milliseconds(2000));
  EXPECT_EQ(Sh("dumpsys looper_stats").Stdout().find("android.anim"), std::string::npos);
  Sh("dumpsys battery unplug");
  Pass(milliseconds(2000));
  EXPECT_NE(Sh("dumpsys looper_stats").Stdout().find("android.anim"), std::string::npos);
}

TEST_F(RebootFaultTest, UsageErrors) {
  EXPECT_EQ(Sh("devsim-fault reboot x").exit_code, 2);
  EXPECT_EQ(Sh("devsim-fault reboot 10 -1").exit_code, 2);
  // Without a transport (this test's device) there is nothing to refuse AUTH on.
  EXPECT_EQ(Sh("devsim-fault unauthorized 1000").exit_code, 1);
  EXPECT_EQ(Sh("devsim-fault unauthorized").exit_code, 2);
}

}  // namespace
}  // namespace droidlab::devsim
