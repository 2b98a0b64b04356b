// Exact outputs of the simulated system services per SDK. Each test names the AOSP source and
// version it follows (frameworks/base unless said otherwise).
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "parsers/screen_state.h"
#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class AndroidServicesTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk, Scenario scenario = DefaultScenario()) {
    scenario = OnSdk(sdk, std::move(scenario));
    scenario.noise_lines_per_s = 0;
    MakePhone(scenario);
  }
  // Rows of `dumpsys looper_stats` whose work_source_uid starts with `prefix`.
  std::vector<std::string> Rows(const std::string& prefix) {
    std::vector<std::string> rows;
    std::istringstream lines(Sh("dumpsys looper_stats").Stdout());
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(prefix)) rows.push_back(line);
    }
    return rows;
  }
  static long Field(const std::string& row, int index) {
    std::istringstream fields(row);
    std::string field;
    for (int i = 0; i <= index; ++i) std::getline(fields, field, ',');
    return std::stol(field);
  }
  void Launch() {
    Sh("am force-stop com.example.app");
    Sh("am start -W -n com.example.app/.MainActivity");
  }
};

constexpr char kLooperHeader[] =
    "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
    "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
    "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
    "exception_count\n";

// frameworks/native cmds/dumpsys/dumpsys.cpp (lineage-16.0, Android 9): no looper_stats
// service, "Can't find service" on stderr, exit 0. cmds/cmd/cmd.cpp: exit 20.
TEST_F(AndroidServicesTest, Android9HasNoLooperStatsService) {
  Make(28);
  const auto dump = Sh("dumpsys looper_stats");
  EXPECT_EQ(dump.Stdout(), "");
  EXPECT_EQ(dump.Stderr(), "Can't find service: looper_stats\n");
  EXPECT_EQ(dump.exit_code, 0);
  const auto cmd = Sh("cmd looper_stats reset");
  EXPECT_EQ(cmd.Stderr(), "cmd: Can't find service: looper_stats\n");
  EXPECT_EQ(cmd.exit_code, 20);
}

// LooperStatsService.dump (Android 10-14): Start time, On battery time, the 15-column header.
TEST_F(AndroidServicesTest, LooperStatsDumpWhileChargingIsHeaderOnly) {
  Make(33);
  Sh("settings put global looper_stats enabled=true,sampling_interval=1");
  Sh("cmd looper_stats reset");
  Pass(seconds(60));
  Launch();
  Pass(seconds(60));
  EXPECT_EQ(Sh("dumpsys looper_stats").Stdout(),
            std::string("Start time: 2026-03-14 00:00:00\nOn battery time (ms): 0\n") +
                kLooperHeader);
}

// LooperStats.deviceStateAllowsCollection: not while charging; `dumpsys battery unplug`
// (BatteryService.unplugBattery) makes CachedDeviceState report not charging; `reset` undoes it.
TEST_F(AndroidServicesTest, ChargingGateOpensOnUnplugAndClosesOnReset) {
  Make(33);
  Sh("settings put global looper_stats enabled=true,sampling_interval=1,track_screen_state=false");
  EXPECT_EQ(Sh("dumpsys battery unplug").Stdout(), "");
  Sh("cmd looper_stats reset");
  Pass(seconds(30));
  Launch();
  Pass(seconds(30));
  const auto app_rows = Rows("com.example.app/u0a123,");
  ASSERT_FALSE(app_rows.empty());
  EXPECT_NE(app_rows[0].find(",false,"), std::string::npos);
  EXPECT_FALSE(Rows("-1,ActivityManager,com.android.server.am.ActivityManagerService$MainHandler,")
                   .empty());
  const std::string dump = Sh("dumpsys looper_stats").Stdout();
  EXPECT_NE(dump.find("On battery time (ms): 60000\n"), std::string::npos) << dump;

  Sh("dumpsys battery reset");
  const long before = Field(Rows("-1,android.anim,")[0], 5);
  Pass(seconds(30));
  Launch();
  EXPECT_EQ(Field(Rows("-1,android.anim,")[0], 5), before);
}

// Counters are cumulative: time passing and launches add to message_count.
TEST_F(AndroidServicesTest, LooperCountersGrow) {
  Make(34);
  Sh("dumpsys battery unplug");
  Sh("settings put global looper_stats enabled=true,sampling_interval=1");
  Launch();
  Pass(seconds(10));
  const long first = Field(Rows("-1,android.anim,")[0], 5);
  const long app_first = Field(Rows("com.example.app/u0a123,android.anim,")[0], 5);
  Pass(seconds(10));
  Launch();
  EXPECT_GT(Field(Rows("-1,android.anim,")[0], 5), first);
  EXPECT_GT(Field(Rows("com.example.app/u0a123,android.anim,")[0], 5), app_first);
  // sampling_interval=1: every message recorded.
  const auto row = Rows("-1,android.anim,")[0];
  EXPECT_EQ(Field(row, 5), Field(row, 6));
}

// ignore_battery_status: read by the Android 14 LooperStatsService, not by Android 13's.
TEST_F(AndroidServicesTest, IgnoreBatteryStatusPerSdk) {
  for (const int sdk : {33, 34}) {
    Make(sdk);
    Sh("settings put global looper_stats "
       "enabled=true,sampling_interval=1,track_screen_state=false,ignore_battery_status=true");
    Pass(seconds(10));
    Launch();
    EXPECT_EQ(Rows("com.example.app/").empty(), sdk == 33) << sdk;
  }
}

// track_screen_state=true: is_interactive follows the (on) screen.
TEST_F(AndroidServicesTest, TrackScreenStateMarksRowsInteractive) {
  Make(34);
  Sh("dumpsys battery unplug");
  Sh("settings put global looper_stats enabled=true,sampling_interval=1,track_screen_state=true");
  Launch();
  const auto rows = Rows("com.example.app/u0a123,");
  ASSERT_FALSE(rows.empty());
  EXPECT_NE(rows[0].find(",true,"), std::string::npos) << rows[0];
}

// LooperStats.findEntry: past entriesSizeCap new kinds go to OVERFLOW (-1,,,OVERFLOW), sorted
// first; system uid 1000 maps to shared:android.uid.system (AppIdToPackageMap).
TEST_F(AndroidServicesTest, OverflowRowPastTheCap) {
  Scenario scenario = DefaultScenario();
  scenario.looper_entries_cap = 5;
  scenario.looper_new_entries_per_s = 5;
  Make(34, scenario);
  Sh("dumpsys battery unplug");
  Sh("settings put global looper_stats enabled=true,sampling_interval=1");
  Pass(seconds(20));
  const std::string dump = Sh("dumpsys looper_stats").Stdout();
  const std::size_t header = dump.find(kLooperHeader);
  ASSERT_NE(header, std::string::npos);
  EXPECT_EQ(dump.substr(header + std::string(kLooperHeader).size(), 18), "-1,,,OVERFLOW,fals")
      << dump;
}

// LooperStatsService.LooperShellCommand: enable/disable/reset/sampling_interval print nothing;
// ShellCommand.handleDefaultCommands: "Unknown command: X", -1.
TEST_F(AndroidServicesTest, LooperStatsShellCommands) {
  Make(33);
  for (const char* command : {"cmd looper_stats enable", "cmd looper_stats disable",
                              "cmd looper_stats reset", "cmd looper_stats sampling_interval 10"}) {
    const auto out = Sh(command);
    EXPECT_EQ(out.Stdout() + out.Stderr(), "") << command;
    EXPECT_EQ(out.exit_code, 0) << command;
  }
  const auto unknown = Sh("cmd looper_stats frob");
  EXPECT_EQ(unknown.Stdout(), "Unknown command: frob\n");
  EXPECT_EQ(unknown.exit_code, 255);
  const auto missing = Sh("cmd looper_stats sampling_interval");
  EXPECT_EQ(missing.exit_code, 255);
  EXPECT_NE(missing.Stderr().find("Argument expected after \"sampling_interval\""),
            std::string::npos);
}

// BatteryService.dumpInternal: Android 13 (ArrowOS-T tree) has no Dock line; Android 14
// (an Android 14 AOSP-based tree) adds "Dock powered"; UPDATES STOPPED after unplug/set.
TEST_F(AndroidServicesTest, BatteryDumpPerSdk) {
  Make(33);
  EXPECT_EQ(Sh("dumpsys battery").Stdout(),
            "Current Battery Service state:\n"
            "  AC powered: false\n"
            "  USB powered: true\n"
            "  Wireless powered: false\n"
            "  Max charging current: 500000\n"
            "  Max charging voltage: 5000000\n"
            "  Charge counter: 3685000\n"
            "  status: 2\n"
            "  health: 2\n"
            "  present: true\n"
            "  level: 85\n"
            "  scale: 100\n"
            "  voltage: 4210\n"
            "  temperature: 285\n"
            "  technology: Li-ion\n");
  Make(34);
  Sh("dumpsys battery unplug");
  Sh("dumpsys battery set level 42");
  EXPECT_EQ(Sh("dumpsys battery").Stdout(),
            "Current Battery Service state:\n"
            "  (UPDATES STOPPED -- use 'reset' to restart)\n"
            "  AC powered: false\n"
            "  USB powered: false\n"
            "  Wireless powered: false\n"
            "  Dock powered: false\n"
            "  Max charging current: 500000\n"
            "  Max charging voltage: 5000000\n"
            "  Charge counter: 3685000\n"
            "  status: 2\n"
            "  health: 2\n"
            "  present: true\n"
            "  level: 42\n"
            "  scale: 100\n"
            "  voltage: 4210\n"
            "  temperature: 285\n"
            "  technology: Li-ion\n");
  Sh("dumpsys battery reset");
  const std::string after = Sh("dumpsys battery").Stdout();
  EXPECT_NE(after.find("  USB powered: true\n"), std::string::npos);
  EXPECT_NE(after.find("  level: 85\n"), std::string::npos);
  EXPECT_EQ(after.find("UPDATES STOPPED"), std::string::npos);
  // -f: processValuesLocked prints the new broadcast sequence number.
  const std::string sequence = Sh("dumpsys battery set -f usb 0").Stdout();
  EXPECT_FALSE(sequence.empty());
  EXPECT_EQ(sequence.find_first_not_of("0123456789"), sequence.size() - 1) << sequence;
}

// ThermalManagerService.dump (Android 10+); Android 9's native thermalservice has no dump.
TEST_F(AndroidServicesTest, ThermalDumpPerSdk) {
  Make(28);
  EXPECT_EQ(Sh("dumpsys thermalservice").Stdout(), "");
  Make(33);
  const std::string dump = Sh("dumpsys thermalservice").Stdout();
  EXPECT_TRUE(dump.starts_with("IsStatusOverride: false\nThermalEventListeners:\n"
                               "\tcallbacks: 1\n\tkilled: false\n\tbroadcasts count: -1\n"
                               "ThermalStatusListeners:\n"))
      << dump;
  EXPECT_NE(dump.find("Thermal Status: 0\nCached temperatures:\n"
                      "\tTemperature{mValue=28.5, mType=2, mName=battery, mStatus=0}\n"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("HAL connection:\n\tThermalHAL AIDL 1  connected: yes\n"),
            std::string::npos);
  Make(29);
  const std::string q = Sh("dumpsys thermalservice").Stdout();
  EXPECT_NE(q.find("\tThermalHAL 2.0 connected: yes\n"), std::string::npos);
  EXPECT_EQ(q.find("Temperature static thresholds from HAL:"), std::string::npos);
}

// PackageManagerService dumpPackagesLPr + PackageDexOptimizer.dumpDexoptState (Android 9/10),
// ART Service DumpHelper (Android 14): [primary-abi] and [location is …] from Android 10.
TEST_F(AndroidServicesTest, PackageDumpPerSdk) {
  Make(28);
  std::string dump = Sh("dumpsys package com.example.app").Stdout();
  EXPECT_NE(dump.find("Packages:\n  Package [com.example.app] ("), std::string::npos);
  EXPECT_NE(dump.find("\n    versionCode=123 minSdk=24 targetSdk=33\n    versionName=1.2.3\n"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("Dexopt state:\n  [com.example.app]\n    path: /data/app/com.example.app-"),
            std::string::npos);
  EXPECT_NE(dump.find("/base.apk\n      arm64: [status=speed-profile] [reason=bg-dexopt]\n"),
            std::string::npos)
      << dump;
  Make(34);
  dump = Sh("dumpsys package com.example.app").Stdout();
  EXPECT_NE(dump.find("    path: /data/app/~~"), std::string::npos);
  EXPECT_NE(dump.find("      arm64: [status=speed-profile] [reason=bg-dexopt] [primary-abi]\n"
                      "        [location is /data/app/~~"),
            std::string::npos)
      << dump;
  EXPECT_EQ(Sh("dumpsys package no.such.app").Stdout(), "");
}

// PackageManagerShellCommand.printResolveInfo with --brief.
TEST_F(AndroidServicesTest, ResolveActivityBrief) {
  Make(33);
  EXPECT_EQ(Sh("cmd package resolve-activity --brief com.example.app").Stdout(),
            "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
            "com.example.app/.MainActivity\n");
  EXPECT_EQ(Sh("cmd package resolve-activity --brief no.such.app").Stdout(),
            "No activity found\n");
}

// toybox ps -A: "%-12s %5s %5s %7s %6s %-10s %10s S NAME", overflow borrowed from the next
// column's padding.
TEST_F(AndroidServicesTest, PsShowsTheAppWhenRunning) {
  Make(33);
  std::string ps = Sh("ps -A").Stdout();
  EXPECT_TRUE(ps.starts_with("USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"))
      << ps;
  EXPECT_NE(ps.find("root             1     0 "), std::string::npos) << ps;
  EXPECT_NE(ps.find(" do_epoll_wait      0 S zygote64\n"), std::string::npos) << ps;
  EXPECT_EQ(ps.find("com.example.app"), std::string::npos);
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string pid = Sh("pidof com.example.app").Stdout();
  ps = Sh("ps -A").Stdout();
  EXPECT_NE(ps.find("u0_a123       " + pid.substr(0, pid.size() - 1) + "   712 "), std::string::npos)
      << ps;
  EXPECT_NE(ps.find(" S com.example.app\n"), std::string::npos);
}

// logprint.cpp: epoch is "%19lld" seconds then ".%03ld".
TEST_F(AndroidServicesTest, LogcatEpochAndBuffers) {
  Make(33);
  Sh("logcat -c");
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string epoch = Sh("logcat -d -v epoch -b system ActivityTaskManager:I *:S").Stdout();
  EXPECT_TRUE(epoch.starts_with("--------- beginning of system\n         1773446400.001  1501 "))
      << epoch;
  EXPECT_EQ(Sh("logcat -d -b events").Stdout(), "");
  EXPECT_NE(Sh("logcat -d -b main,system").Stdout().find("Displayed"), std::string::npos);
  // -T with a time: nothing dated before it.
  EXPECT_EQ(Sh("logcat -d -t '2026-03-14 00:00:05.000'").Stdout(), "");
}

// ActivityMetricsLogger.logAppFullyDrawn for an app that calls reportFullyDrawn.
TEST_F(AndroidServicesTest, FullyDrawnAfterDisplayed) {
  Make(34);
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string log = Sh("logcat -d ActivityTaskManager:I *:S").Stdout();
  const std::size_t displayed = log.find("Displayed com.example.app/.MainActivity for user 0: +");
  const std::size_t fully = log.find("I ActivityTaskManager: Fully drawn com.example.app/.MainActivity: +");
  ASSERT_NE(displayed, std::string::npos) << log;
  ASSERT_NE(fully, std::string::npos) << log;
  EXPECT_LT(displayed, fully);
  // The settings app does not report it.
  Sh("am start -W -n com.android.settings/.Settings");
  EXPECT_EQ(Sh("logcat -d").Stdout().find("Fully drawn com.android.settings"), std::string::npos);
}

TEST_F(AndroidServicesTest, NoiseAtTheScenarioRate) {
  // Make() zeroes the rate; a device at 10 lines/s:
  Scenario scenario = DefaultScenario();
  scenario.noise_lines_per_s = 10;
  MakePhone(scenario);
  Sh("logcat -c");
  Pass(seconds(10));
  android_->Tick();
  const std::string log = Sh("logcat -d").Stdout();
  long lines = 0;
  for (const char c : log) lines += c == '\n';
  EXPECT_GE(lines, 100);
  EXPECT_LE(lines, 103);  // plus "beginning of" separators
}

// devsim-fault: hang, truncate, slow apply to the next commands starting with the prefix.
TEST_F(AndroidServicesTest, FaultsApplyToTheNextMatchingCommands) {
  Make(33);
  EXPECT_EQ(Sh("devsim-fault hang 'dumpsys looper_stats'").exit_code, 0);
  EXPECT_TRUE(Sh("dumpsys looper_stats").hang);
  EXPECT_FALSE(Sh("dumpsys looper_stats").hang);

  Sh("devsim-fault truncate 'dumpsys battery' 40");
  const auto cut = Sh("dumpsys battery");
  EXPECT_TRUE(cut.drop_stream);
  EXPECT_EQ(cut.Stdout(), "Current Battery Service state:\n  AC powe");

  Sh("devsim-fault slow 'dumpsys package' 50");
  const auto slow = Sh("dumpsys package com.example.app");
  ASSERT_GT(slow.chunks.size(), 1u);
  EXPECT_EQ(slow.chunks[0].delay, milliseconds(50));

  Sh("devsim-fault garbage 2");
  EXPECT_FALSE(Sh("logcat -d").Stdout().empty());
  EXPECT_EQ(Sh("devsim-fault unplug 10").exit_code, 1);  // no transport in a unit test
  EXPECT_EQ(Sh("devsim-fault bogus").exit_code, 2);
}

// Screen and keyguard, as the daemon's preflight reads them with the parsers of real output
// (parsers/screen_state.h): PowerManagerService.dumpInternal's mWakefulness and
// KeyguardController.dump's mKeyguardShowing (on the isHomeRecentsComponent line on Android 9).
TEST_F(AndroidServicesTest, ScreenAndKeyguardFollowKeyeventsAndTheirDumpsParse) {
  for (int sdk : {28, 29, 33, 34}) {
    SCOPED_TRACE(sdk);
    Scenario scenario = DefaultScenario();
    scenario.screen.locked = true;
    Make(sdk, scenario);
    EXPECT_EQ(parsers::ParseWakefulness(Sh("dumpsys power").Stdout()), "Awake");
    EXPECT_EQ(parsers::ParseKeyguardShowing(Sh("dumpsys activity activities").Stdout()), true);
    EXPECT_EQ(Sh("dumpsys activity activities").Stdout().find("isHomeRecentsComponent=true  "
                                                             "KeyguardController:") !=
                  std::string::npos,
              sdk == 28);
    Sh("wm dismiss-keyguard");
    EXPECT_EQ(parsers::ParseKeyguardShowing(Sh("dumpsys activity activities").Stdout()), false);
    Sh("input keyevent KEYCODE_SLEEP");
    EXPECT_EQ(parsers::ParseWakefulness(Sh("dumpsys power").Stdout()), "Asleep");
    EXPECT_EQ(parsers::ParseKeyguardShowing(Sh("dumpsys activity activities").Stdout()), true);
    Sh("input keyevent 82");  // MENU on a dark screen does nothing
    EXPECT_EQ(parsers::ParseKeyguardShowing(Sh("dumpsys activity activities").Stdout()), true);
    Sh("input keyevent 26");  // POWER wakes a sleeping device
    EXPECT_EQ(parsers::ParseWakefulness(Sh("dumpsys power").Stdout()), "Awake");
    Sh("input keyevent 82");
    EXPECT_EQ(parsers::ParseKeyguardShowing(Sh("dumpsys activity activities").Stdout()), false);
  }
}

}  // namespace
}  // namespace droidlab::devsim
