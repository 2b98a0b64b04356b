// The named device commands (orchestrator/run/device_commands.h): each is exactly the argv the
// run engine sent before they had names (devsim and a phone answer these words), and each
// quotes its argument as one shell word.
#include "orchestrator/run/device_commands.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::orchestrator {
namespace {

using Words = std::vector<std::string>;

TEST(DeviceCommandsTest, LaunchCommands) {
  EXPECT_EQ(AmStartW("com.example.app/.MainActivity"),
            (Words{"am", "start", "-W", "-n", "com.example.app/.MainActivity"}));
  EXPECT_EQ(ForceStop("com.example.app"), (Words{"am", "force-stop", "com.example.app"}));
  EXPECT_EQ(KeyEvent("KEYCODE_BACK"), (Words{"input", "keyevent", "KEYCODE_BACK"}));
  EXPECT_EQ(Pidof("com.example.app"), (Words{"pidof", "com.example.app"}));
  EXPECT_EQ(CatProcStat(4242), (Words{"cat", "/proc/4242/stat"}));
}

// The sampling loop is a constant script; the package and the interval are its $1 and $2, so
// whatever the package held it would stay one word after BuildShellCommand's quoting.
TEST(DeviceCommandsTest, ProcSamplingLoopTakesItsArgumentsAsParameters) {
  const Words argv = ProcSamplingLoop("com.example.app", 100);
  ASSERT_EQ(argv.size(), 6u);
  EXPECT_EQ(argv[0], "sh");
  EXPECT_EQ(argv[1], "-c");
  EXPECT_EQ(argv[2].find("com.example.app"), std::string::npos);
  EXPECT_NE(argv[2].find("pidof -s \"$1\""), std::string::npos);
  EXPECT_NE(argv[2].find("sleep \"$2\""), std::string::npos);
  EXPECT_NE(argv[2].find("@proc $u"), std::string::npos);
  EXPECT_EQ(argv[3], "droidlab-proc");
  EXPECT_EQ(argv[4], "com.example.app");
  EXPECT_EQ(argv[5], "0.100");
  EXPECT_EQ(ProcSamplingLoop("a", 1500)[5], "1.500");
  EXPECT_EQ(ProcSamplingLoop("a", 0)[5], "0.001");  // never a busy loop
  EXPECT_EQ(ProcSamplingLoop("com.x; reboot", 100)[2], argv[2]);
  auto command = adb::BuildShellCommand(ProcSamplingLoop("com.x; reboot", 100));
  ASSERT_TRUE(command);
  EXPECT_TRUE(command->str().ends_with(" droidlab-proc 'com.x; reboot' 0.100")) << command->str();
}

TEST(DeviceCommandsTest, PreflightCommands) {
  EXPECT_EQ(PmPath("com.example.app"), (Words{"pm", "path", "com.example.app"}));
  EXPECT_EQ(ResolveActivity("com.example.app"),
            (Words{"cmd", "package", "resolve-activity", "--brief", "com.example.app"}));
  EXPECT_EQ(Getprop(), (Words{"getprop"}));
  EXPECT_EQ(GetpropValue("sys.boot_completed"), (Words{"getprop", "sys.boot_completed"}));
  EXPECT_EQ(DumpsysBattery(), (Words{"dumpsys", "battery"}));
  EXPECT_EQ(DumpsysThermalservice(), (Words{"dumpsys", "thermalservice"}));
  EXPECT_EQ(DumpsysPackage("com.example.app"), (Words{"dumpsys", "package", "com.example.app"}));
  EXPECT_EQ(DumpsysPower(), (Words{"dumpsys", "power"}));
  EXPECT_EQ(DumpsysActivityActivities(), (Words{"dumpsys", "activity", "activities"}));
}

TEST(DeviceCommandsTest, IterationMemoryCommand) {
  EXPECT_EQ(DumpsysMeminfo("com.example.app"), (Words{"dumpsys", "meminfo", "com.example.app"}));
}

TEST(DeviceCommandsTest, ClockAndLooperCommands) {
  EXPECT_EQ(GetconfClkTck(), (Words{"getconf", "CLK_TCK"}));
  EXPECT_EQ(GetconfPageSize(), (Words{"getconf", "PAGESIZE"}));
  EXPECT_EQ(UptimeAndDate().text(), "cat /proc/uptime; date +%s.%N");
  EXPECT_EQ(SettingsGetGlobal("looper_stats"),
            (Words{"settings", "get", "global", "looper_stats"}));
  EXPECT_EQ(
      SettingsPutGlobal("looper_stats", "enabled=true,sampling_interval=1"),
      (Words{"settings", "put", "global", "looper_stats", "enabled=true,sampling_interval=1"}));
  EXPECT_EQ(SettingsDeleteGlobal("looper_stats"),
            (Words{"settings", "delete", "global", "looper_stats"}));
  EXPECT_EQ(LooperStatsReset(), (Words{"cmd", "looper_stats", "reset"}));
  EXPECT_EQ(DumpsysLooperStats(), (Words{"dumpsys", "looper_stats"}));
  EXPECT_EQ(DumpsysBatteryUnplug(), (Words{"dumpsys", "battery", "unplug"}));
  EXPECT_EQ(DumpsysBatteryReset(), (Words{"dumpsys", "battery", "reset"}));
  EXPECT_EQ(LogcatFromNow(),
            (Words{"logcat", "-v", "epoch", "-b", "main,system,crash,events", "-T", "1"}));
}

TEST(DeviceCommandsTest, AnArgumentStaysOneShellWord) {
  // A setting's previous value is whatever the device held: quoted, never pasted.
  auto command = adb::BuildShellCommand(SettingsPutGlobal("looper_stats", "a b;c'd"));
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(command->str(), "settings put global looper_stats 'a b;c'\\''d'");
}

}  // namespace
}  // namespace droidlab::orchestrator
