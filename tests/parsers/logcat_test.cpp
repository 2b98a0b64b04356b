// Logcat launch events. Every case names the Android version and the AOSP code that prints it:
// the header layouts are system/logging/liblog/logprint.cpp android_log_formatLogLine (same
// layouts in system/core/liblog/logprint.c since Android 4), the messages come from
// ActivityMetricsLogger (logAppDisplayed, logAppFullyDrawn), ActivityRecord
// (reportLaunchTimeLocked, reportFullyDrawnLocked; Android <= 9), ActivityStarter.execute
// ("START u"), ProcessList / ActivityManagerService.startProcessLocked ("Start proc") and
// android.util.TimeUtils.formatDuration. Files under tests/data/logcat are real device output.
#include "parsers/logcat.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "parsers/line_splitter.h"
#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

using Kind = LaunchEventKind;

// Every field compared, so a wrong value anywhere fails.
void ExpectEventEq(const LaunchEvent& got, const LaunchEvent& want) {
  EXPECT_EQ(LaunchEventKindName(got.kind), LaunchEventKindName(want.kind));
  EXPECT_EQ(got.time, want.time);
  EXPECT_EQ(got.log_time, ParseLogTime(want.time));  // the number is the text's, read once
  EXPECT_EQ(got.pid, want.pid);
  EXPECT_EQ(got.tid, want.tid);
  EXPECT_EQ(got.tag, want.tag);
  EXPECT_EQ(got.component, want.component);
  EXPECT_EQ(got.package, want.package);
  EXPECT_EQ(got.activity, want.activity);
  EXPECT_EQ(got.duration_ms, want.duration_ms);
  EXPECT_EQ(got.total_ms, want.total_ms);
  EXPECT_EQ(got.process_pid, want.process_pid);
  EXPECT_EQ(got.uid, want.uid);
  EXPECT_EQ(got.user_id, want.user_id);
  EXPECT_EQ(got.reason, want.reason);
  EXPECT_EQ(got.process_name, want.process_name);
  EXPECT_EQ(got.caller_pid, want.caller_pid);
}

LaunchEvent Displayed(std::string time, std::optional<int64_t> pid, std::optional<int64_t> tid,
                      std::string tag, std::string component, std::string package,
                      std::string activity, int64_t duration_ms,
                      std::optional<int64_t> user_id = std::nullopt,
                      std::optional<int64_t> total_ms = std::nullopt) {
  LaunchEvent ev;
  ev.kind = Kind::kDisplayed;
  ev.time = std::move(time);
  ev.pid = pid;
  ev.tid = tid;
  ev.tag = std::move(tag);
  ev.component = std::move(component);
  ev.package = std::move(package);
  ev.activity = std::move(activity);
  ev.duration_ms = duration_ms;
  ev.user_id = user_id;
  ev.total_ms = total_ms;
  return ev;
}

// The Android 13 Displayed line of the Wear OS log (tests/data/logcat/android10plus_threadtime.txt)
// with a header per format; the expected event differs only in the header fields.
LaunchEvent WearDisplayed(std::string time, std::optional<int64_t> pid, std::optional<int64_t> tid,
                          std::string tag = "ActivityTaskManager") {
  return Displayed(std::move(time), pid, tid, std::move(tag), "com.minimalapp/.wear.MainActivity",
                   "com.minimalapp", "com.minimalapp.wear.MainActivity", 1071, 0);
}

struct LineCase {
  std::string name;
  std::string line;
  std::optional<LaunchEvent> want;  // nullopt: a well-formed line, no event
};

std::ostream& operator<<(std::ostream& os, const LineCase& c) { return os << c.name; }

class LogcatLineTest : public testing::TestWithParam<LineCase> {};

TEST_P(LogcatLineTest, ParsesExactly) {
  const LineCase& c = GetParam();
  auto r = ParseLogcatLine(c.line);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->has_value(), c.want.has_value());
  if (c.want) ExpectEventEq(**r, *c.want);
  // The reader agrees with the single-line parser, and never skips a well-formed line.
  LogcatReader reader;
  std::vector<LaunchEvent> events;
  reader.AddLine(c.line, events);
  reader.Finish(events);
  EXPECT_EQ(reader.skipped_lines(), 0u);
  ASSERT_EQ(events.size(), c.want ? 1u : 0u);
  if (c.want) ExpectEventEq(events[0], *c.want);
}

constexpr char kWearMsg[] = "Displayed com.minimalapp/.wear.MainActivity for user 0: +1s71ms";

std::string With(std::string header) { return header + kWearMsg; }

// Format × modifier: logprint's printf layouts around the real Android 13 message.
INSTANTIATE_TEST_SUITE_P(
    LogcatFormats, LogcatLineTest,
    testing::Values(
        // threadtime "%s %5d %5d %c %-8s: " (real line, Android 13 Wear OS)
        LineCase{"Threadtime", With("07-23 20:02:55.763   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763", 654, 717)},
        // brief "%c/%-8s(%5d): "
        LineCase{"Brief", With("I/ActivityTaskManager(  654): "),
                 WearDisplayed("", 654, std::nullopt)},
        // tag "%c/%-8s: "
        LineCase{"Tag", With("I/ActivityTaskManager: "),
                 WearDisplayed("", std::nullopt, std::nullopt)},
        // process "%c(%5d) " + msg + "  (%s)"
        LineCase{"Process", std::string("I(  654) ") + kWearMsg + "  (ActivityTaskManager)",
                 WearDisplayed("", 654, std::nullopt)},
        // time "%s %c/%-8s(%5d): "
        LineCase{"Time", With("07-23 20:02:55.763 I/ActivityTaskManager(  654): "),
                 WearDisplayed("07-23 20:02:55.763", 654, std::nullopt)},
        // thread "%c(%5d:%5d) " has no tag: like raw, a launch message is taken as printed
        LineCase{"Thread", With("I(  654:  717) "), WearDisplayed("", 654, 717, "")},
        // raw: the message alone
        LineCase{"Raw", kWearMsg, WearDisplayed("", std::nullopt, std::nullopt, "")},
        // year: strftime "%Y-%m-%d %H:%M:%S"
        LineCase{"ThreadtimeYear",
                 With("2026-07-23 20:02:55.763   654   717 I ActivityTaskManager: "),
                 WearDisplayed("2026-07-23 20:02:55.763", 654, 717)},
        // usec ".%06ld", nsec ".%09ld"
        LineCase{"ThreadtimeUsec",
                 With("07-23 20:02:55.763412   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763412", 654, 717)},
        LineCase{"ThreadtimeNsec",
                 With("07-23 20:02:55.763412001   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763412001", 654, 717)},
        // zone: strftime " %z" after the time
        LineCase{"ThreadtimeZone",
                 With("07-23 20:02:55.763 +0200   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763 +0200", 654, 717)},
        LineCase{"ThreadtimeYearUsecUtcZone",
                 With("2026-07-23 18:02:55.763412 +0000   654   717 I ActivityTaskManager: "),
                 WearDisplayed("2026-07-23 18:02:55.763412 +0000", 654, 717)},
        // epoch "%19lld" right-aligned; monotonic "%6lld"
        LineCase{"ThreadtimeEpoch",
                 With("         1784836975.763   654   717 I ActivityTaskManager: "),
                 WearDisplayed("1784836975.763", 654, 717)},
        LineCase{"ThreadtimeMonotonic", With("  4711.763   654   717 I ActivityTaskManager: "),
                 WearDisplayed("4711.763", 654, 717)},
        LineCase{"ThreadtimeMonotonicUsec",
                 With("123456.763412   654   717 I ActivityTaskManager: "),
                 WearDisplayed("123456.763412", 654, 717)},
        LineCase{"TimeEpoch", With("         1784836975.763 I/ActivityTaskManager(  654): "),
                 WearDisplayed("1784836975.763", 654, std::nullopt)},
        // uid: "%5s:" (name <= 5 chars) or "%5d:"; threadtime turns the ':' into ' '
        LineCase{"ThreadtimeUidNumber",
                 With("07-23 20:02:55.763  1000   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763", 654, 717)},
        LineCase{"ThreadtimeUidName",
                 With("07-23 20:02:55.763  root   654   717 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763", 654, 717)},
        LineCase{"BriefUid", With("I/ActivityTaskManager( 1000:  654): "),
                 WearDisplayed("", 654, std::nullopt)},
        LineCase{"TimeUid", With("07-23 20:02:55.763 I/ActivityTaskManager( 1000:  654): "),
                 WearDisplayed("07-23 20:02:55.763", 654, std::nullopt)},
        LineCase{"ProcessUid",
                 std::string("I( 1000:  654) ") + kWearMsg + "  (ActivityTaskManager)",
                 WearDisplayed("", 654, std::nullopt)},
        LineCase{"ThreadUid", With("I( 1000:  654:  717) "), WearDisplayed("", 654, 717, "")},
        // color: "\x1B[%dm" before, "\x1B[0m" after
        LineCase{
            "ThreadtimeColor",
            "\x1B[32m" + With("07-23 20:02:55.763   654   717 I ActivityTaskManager: ") + "\x1B[0m",
            WearDisplayed("07-23 20:02:55.763", 654, 717)},
        // pid_max is 4194304 on 64-bit Android: 7-digit ids overflow the %5d padding
        LineCase{"ThreadtimeWidePids",
                 With("07-23 20:02:55.763 4194303 4194304 I ActivityTaskManager: "),
                 WearDisplayed("07-23 20:02:55.763", 4194303, 4194304)},
        // Separators (logcat.cpp printNextEntry / "switch to") are logcat, not events
        LineCase{"SeparatorMain", "--------- beginning of main", std::nullopt},
        LineCase{"SeparatorOldDevLog", "--------- beginning of /dev/log/system", std::nullopt},
        LineCase{"SeparatorSwitch", "--------- switch to main", std::nullopt},
        LineCase{"Blank", "", std::nullopt},
        LineCase{"LongHeaderAlone", "[ 07-23 20:02:55.763   654:  717 I/ActivityTaskManager ]",
                 std::nullopt}),
    [](const testing::TestParamInfo<LineCase>& param_info) { return param_info.param.name; });

LaunchEvent Event(Kind kind) {
  LaunchEvent ev;
  ev.kind = kind;
  return ev;
}

std::vector<LineCase> MessageCases() {
  std::vector<LineCase> cases;
  // Android 14, ActivityMetricsLogger.logAppDisplayed ("for user N" since 12); real line.
  cases.push_back({"Displayed14ForUser",
                   With("07-23 20:02:55.763   654   717 I ActivityTaskManager: "),
                   WearDisplayed("07-23 20:02:55.763", 654, 717)});
  // Android 9, ActivityMetricsLogger.logAppDisplayed (tag ActivityManager, no "for user"); real.
  cases.push_back(
      {"Displayed9FullClass",
       "04-05 15:50:00.421  1201  1239 I ActivityManager: Displayed "
       "com.google.android.deskclock/com.android.deskclock.alarms.AlarmActivity: +136ms",
       Displayed("04-05 15:50:00.421", 1201, 1239, "ActivityManager",
                 "com.google.android.deskclock/com.android.deskclock.alarms.AlarmActivity",
                 "com.google.android.deskclock", "com.android.deskclock.alarms.AlarmActivity",
                 136)});
  cases.push_back({"Displayed9Seconds",
                   "04-05 16:36:23.803  1201  1239 I ActivityManager: Displayed "
                   "Xamarin.Forms_Performance_Integration/"
                   "xamarin.forms.performance.integration.MainActivity: +1s255ms",
                   Displayed("04-05 16:36:23.803", 1201, 1239, "ActivityManager",
                             "Xamarin.Forms_Performance_Integration/"
                             "xamarin.forms.performance.integration.MainActivity",
                             "Xamarin.Forms_Performance_Integration",
                             "xamarin.forms.performance.integration.MainActivity", 1255)});
  // Android 4.4, ActivityRecord.reportLaunchTimeLocked: " (total +…)" when thisTime != totalTime.
  cases.push_back({"Displayed4Total",
                   "I/ActivityManager(  512): Displayed com.android.settings/.Settings: +1s23ms "
                   "(total +1s100ms)",
                   Displayed("", 512, std::nullopt, "ActivityManager",
                             "com.android.settings/.Settings", "com.android.settings",
                             "com.android.settings.Settings", 1023, std::nullopt, 1100)});
  // TimeUtils.formatDuration: minutes before seconds, millis not zero-padded, zero is "0".
  cases.push_back({"DisplayedMinutes",
                   "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main "
                   "for user 0: +1m2s3ms",
                   Displayed("11-22 10:01:02.345", 1234, 1260, "ActivityTaskManager",
                             "com.pkg/.Main", "com.pkg", "com.pkg.Main", 62003, 0)});
  cases.push_back({"DisplayedZero",
                   "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main "
                   "for user 10: 0",
                   Displayed("11-22 10:01:02.345", 1234, 1260, "ActivityTaskManager",
                             "com.pkg/.Main", "com.pkg", "com.pkg.Main", 0, 10)});
  // Android 13, ActivityMetricsLogger.logAppFullyDrawn; message from a public test report.
  {
    LaunchEvent ev = Event(Kind::kFullyDrawn);
    ev.time = "09-15 11:01:45.504";
    ev.pid = 1482;
    ev.tid = 1533;
    ev.tag = "ActivityTaskManager";
    ev.component = "com.pandora.notes/.MainActivity";
    ev.package = "com.pandora.notes";
    ev.activity = "com.pandora.notes.MainActivity";
    ev.duration_ms = 4528;
    cases.push_back({"FullyDrawn13",
                     "09-15 11:01:45.504  1482  1533 I ActivityTaskManager: Fully drawn "
                     "com.pandora.notes/.MainActivity: +4s528ms",
                     ev});
  }
  // Android 4.4, ActivityRecord.reportFullyDrawnLocked with "(total …)".
  {
    LaunchEvent ev = Event(Kind::kFullyDrawn);
    ev.pid = 512;
    ev.tag = "ActivityManager";
    ev.component = "com.pkg/com.other.Main";
    ev.package = "com.pkg";
    ev.activity = "com.other.Main";
    ev.duration_ms = 2000;
    ev.total_ms = 2300;
    cases.push_back(
        {"FullyDrawn4Total",
         "I/ActivityManager(  512): Fully drawn com.pkg/com.other.Main: +2s0ms (total +2s300ms)",
         ev});
  }
  // Android 9, ActivityStarter.startActivity "START u0 {…} from uid N"; real line.
  {
    LaunchEvent ev = Event(Kind::kActivityStart);
    ev.time = "01-24 10:49:16.491";
    ev.pid = 1053;
    ev.tid = 1795;
    ev.tag = "ActivityManager";
    ev.component = "com.nextcloud.talk2/com.nextcloud.talk.activities.MainActivity";
    ev.package = "com.nextcloud.talk2";
    ev.activity = "com.nextcloud.talk.activities.MainActivity";
    ev.uid = 10074;
    ev.user_id = 0;
    cases.push_back({"Start9",
                     "01-24 10:49:16.491  1053  1795 I ActivityManager: START u0 "
                     "{act=android.intent.action.MAIN "
                     "cat=[android.intent.category.LAUNCHER] flg=0x10200000 "
                     "cmp=com.nextcloud.talk2/com.nextcloud.talk.activities.MainActivity "
                     "bnds=[142,977][407,1251] (has extras)} from uid 10074",
                     ev});
  }
  // Android 5, ActivityStackSupervisor.startActivityLocked: "… on display N"; real line.
  {
    LaunchEvent ev = Event(Kind::kActivityStart);
    ev.pid = 977;
    ev.tag = "ActivityManager";
    ev.component = "com.android.dialer/com.android.incallui.InCallActivity";
    ev.package = "com.android.dialer";
    ev.activity = "com.android.incallui.InCallActivity";
    ev.uid = 10014;
    ev.user_id = 0;
    cases.push_back(
        {"Start5OnDisplay",
         "I/ActivityManager(  977): START u0 {act=android.intent.action.MAIN flg=0x10840000 "
         "cmp=com.android.dialer/com.android.incallui.InCallActivity (has extras)} from uid 10014 "
         "on display 0",
         ev});
  }
  // Android 14, ActivityStarter.execute with a short component and a nested selector.
  {
    LaunchEvent ev = Event(Kind::kActivityStart);
    ev.time = "11-22 10:01:02.345";
    ev.pid = 1234;
    ev.tid = 1260;
    ev.tag = "ActivityTaskManager";
    ev.component = "com.pkg/.Main";
    ev.package = "com.pkg";
    ev.activity = "com.pkg.Main";
    ev.uid = 2000;
    ev.user_id = 10;
    cases.push_back({"Start14Selector",
                     "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: START u10 "
                     "{act=android.intent.action.MAIN "
                     "flg=0x10000000 cmp=com.pkg/.Main sel={act=android.intent.action.VIEW}} with "
                     "LAUNCH_MULTIPLE "
                     "from uid 2000 (BAL_ALLOW_PERMISSION) result code=0",
                     ev});
  }
  // Android 4.2-4.4, ActivityStackSupervisor.startActivityLocked: "from pid N".
  {
    LaunchEvent ev = Event(Kind::kActivityStart);
    ev.time = "06-08 06:10:16.900";
    ev.pid = 3035;
    ev.tag = "ActivityManager";
    ev.component = "com.xxx/.GuideActivity";
    ev.package = "com.xxx";
    ev.activity = "com.xxx.GuideActivity";
    ev.user_id = 0;
    ev.caller_pid = 4071;
    cases.push_back(
        {"Start4FromPid",
         "06-08 06:10:16.900 I/ActivityManager( 3035): START u0 {act=android.intent.action.MAIN "
         "cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=com.xxx/.GuideActivity} from "
         "pid 4071",
         ev});
  }
  // Android 12 (OnePlus): "from uid N pid N"; real message (long format in the data file).
  {
    LaunchEvent ev = Event(Kind::kActivityStart);
    ev.tag = "ActivityTaskManager";
    ev.component = "com.smartpack.kernelmanager/.activities.MainActivity";
    ev.package = "com.smartpack.kernelmanager";
    ev.activity = "com.smartpack.kernelmanager.activities.MainActivity";
    ev.uid = 10423;
    ev.user_id = 0;
    ev.caller_pid = 17628;
    cases.push_back(
        {"Start12OemPid",
         "I/ActivityTaskManager( 1235): START u0 {flg=0x14000000 "
         "cmp=com.smartpack.kernelmanager/.activities.MainActivity} from uid 10423 pid 17628",
         ev});
    cases.back().want->pid = 1235;
  }
  // Android 10+, ProcessList.handleProcessStartedLocked: "{pkg/full.Class}"; real line.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.time = "02-22 09:38:44.700";
    ev.pid = 252;
    ev.tid = 308;
    ev.tag = "ActivityManager";
    ev.component = "com.android.vending/com.android.vending.AssetBrowserActivity";
    ev.package = "com.android.vending";
    ev.activity = "com.android.vending.AssetBrowserActivity";
    ev.process_pid = 4567;
    ev.uid = 10073;
    ev.reason = "pre-top-activity";
    ev.process_name = "com.android.vending";
    cases.push_back({"StartProc10PreTop",
                     "02-22 09:38:44.700   252   308 I ActivityManager: Start proc "
                     "4567:com.android.vending/u0a73 for pre-top-activity "
                     "{com.android.vending/com.android.vending.AssetBrowserActivity}",
                     ev});
  }
  // Android 13 (OEM "caller=" suffix), system uid 1000 printed as is.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.time = "07-29 00:54:03.727";
    ev.pid = 1021;
    ev.tid = 1518;
    ev.tag = "ActivityManager";
    ev.component = "org.lineageos.lineageparts/gestures.gestureanywhere.GestureAnywhereSettings";
    ev.package = "org.lineageos.lineageparts";
    ev.activity = "gestures.gestureanywhere.GestureAnywhereSettings";
    ev.process_pid = 10742;
    ev.uid = 1000;
    ev.reason = "top-activity";
    ev.process_name = "org.lineageos.lineageparts";
    cases.push_back({"StartProcTopActivitySystemUid",
                     "07-29 00:54:03.727  1021  1518 I ActivityManager: Start proc "
                     "10742:org.lineageos.lineageparts/1000 for top-activity "
                     "{org.lineageos.lineageparts/"
                     "gestures.gestureanywhere.GestureAnywhereSettings} caller=others",
                     ev});
  }
  // Android 7-9, ActivityManagerService.startProcessLocked: "pkg/.Cls" hosting name, user 10.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.pid = 3035;
    ev.tag = "ActivityManager";
    ev.component = "com.xxx/.GuideActivity";
    ev.package = "com.xxx";
    ev.activity = "com.xxx.GuideActivity";
    ev.process_pid = 4299;
    ev.uid = 1010005;
    ev.reason = "activity";
    ev.process_name = "com.xxx";
    cases.push_back({"StartProc7ShortName",
                     "I/ActivityManager( 3035): Start proc 4299:com.xxx/u10a5 for activity "
                     "com.xxx/.GuideActivity",
                     ev});
  }
  // Android 10+: an isolated process with its entry point, hosted by a service.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.pid = 1600;
    ev.tag = "ActivityManager";
    ev.component = "com.android.chrome/org.chromium.content.app.SandboxedProcessService0";
    ev.package = "com.android.chrome";
    ev.process_pid = 9001;
    ev.uid = 99005;
    ev.reason = "service";
    ev.process_name = "com.android.chrome:sandboxed_process0";
    cases.push_back(
        {"StartProcIsolated",
         "I/ActivityManager( 1600): Start proc 9001:com.android.chrome:sandboxed_process0/u0i5 "
         "[org.chromium.content.app.SandboxedProcessService0] for service "
         "{com.android.chrome/org.chromium.content.app.SandboxedProcessService0}",
         ev});
  }
  // Android 4.4, ActivityManagerService.startProcessLocked: ": pid=N uid=N gids={…}"; real line.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.time = "08-29 12:30:01.467";
    ev.pid = 4666;
    ev.tag = "ActivityManager";
    ev.component = "com.android.deskclock/com.android.alarmclock.DigitalAppWidgetProvider";
    ev.package = "com.android.deskclock";
    ev.process_pid = 10396;
    ev.uid = 10044;
    ev.reason = "broadcast";
    ev.process_name = "com.android.deskclock";
    cases.push_back({"StartProc4Broadcast",
                     "08-29 12:30:01.467 I/ActivityManager(4666): Start proc com.android.deskclock "
                     "for broadcast "
                     "com.android.deskclock/com.android.alarmclock.DigitalAppWidgetProvider: "
                     "pid=10396 uid=10044 "
                     "gids={50044, 1028, 3003}",
                     ev});
  }
  // Android 4.x, activity host; and Android 5 "content provider" (a type with a blank) + abi=.
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.pid = 512;
    ev.tag = "ActivityManager";
    ev.component = "com.pkg/.Main";
    ev.package = "com.pkg";
    ev.activity = "com.pkg.Main";
    ev.process_pid = 1234;
    ev.uid = 10123;
    ev.reason = "activity";
    ev.process_name = "com.pkg";
    cases.push_back({"StartProc4Activity",
                     "I/ActivityManager(  512): Start proc com.pkg for activity com.pkg/.Main: "
                     "pid=1234 uid=10123 gids={50123, 3003}",
                     ev});
  }
  {
    LaunchEvent ev = Event(Kind::kProcessStart);
    ev.pid = 977;
    ev.tag = "ActivityManager";
    ev.component = "com.android.providers.media/.MediaProvider";
    ev.package = "com.android.providers.media";
    ev.process_pid = 30815;
    ev.uid = 10016;
    ev.reason = "content provider";
    ev.process_name = "android.process.media";
    cases.push_back(
        {"StartProc5ContentProvider",
         "I/ActivityManager(  977): Start proc android.process.media for content provider "
         "com.android.providers.media/.MediaProvider: pid=30815 uid=10016 gids={50016, 9997, 1028, "
         "1015, 1023, 1024, 2001, 3003, 3007} abi=armeabi-v7a",
         ev});
  }
  // Lookalikes: launch words under other tags, and non-launch lines of the launch tags.
  cases.push_back({"LookalikeAppTag",
                   "11-22 10:01:02.345  4321  4321 I MyApp   : Displayed com.fake/.X: +5ms",
                   std::nullopt});
  cases.push_back(
      {"LookalikeBrief", "I/MyApp   ( 4321): Displayed com.fake/.X: +5ms", std::nullopt});
  cases.push_back({"LookalikePrefixTag",
                   "11-22 10:01:02.345  4321  4321 I ActivityManagerX: Displayed com.fake/.X: +5ms",
                   std::nullopt});
  cases.push_back({"LookalikeKilling",
                   "08-29 12:30:01.337 I/ActivityManager(4666): Killing "
                   "8552:android.process.media/u0a6 (adj 15): empty #17",
                   std::nullopt});
  cases.push_back(
      {"LookalikeStartingWindow",
       "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Starting window for com.pkg/.Main",
       std::nullopt});
  cases.push_back(
      {"NoiseTagWithColon",
       "01-05 12:39:13.800  1144  1144 D EdgeLightingPolicyManager:NotificationGroup: remove : sbn",
       std::nullopt});
  cases.push_back(
      {"NoiseEmptyMessage", "11-22 10:01:02.345  1234  1260 I ActivityTaskManager:", std::nullopt});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(LogcatMessages, LogcatLineTest, testing::ValuesIn(MessageCases()),
                         [](const testing::TestParamInfo<LineCase>& param_info) {
                           return param_info.param.name;
                         });

// Lines that are not logcat, or launch lines that cannot be read: errors, counted as skipped.
struct BadCase {
  std::string name;
  std::string line;
  ParseErrorCode code;
};
std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.name; }

class LogcatBadLineTest : public testing::TestWithParam<BadCase> {};

TEST_P(LogcatBadLineTest, IsAnErrorAndSkipped) {
  const BadCase& c = GetParam();
  auto r = ParseLogcatLine(c.line);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, c.code);
  EXPECT_FALSE(r.error().message.empty());
  LogcatReader reader;
  std::vector<LaunchEvent> events;
  reader.AddLine(c.line, events);
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(reader.skipped_lines(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    LogcatBadLines, LogcatBadLineTest,
    testing::Values(
        BadCase{"Prose", "hello world", ParseErrorCode::kNotThisFormat},
        BadCase{"NulBytes", std::string("11-22 10:01\0:02.345  1 2 I T: x", 31),
                ParseErrorCode::kNotThisFormat},
        BadCase{"CutInTime", "11-22 10:01:0", ParseErrorCode::kNotThisFormat},
        BadCase{"CutAfterPid", "11-22 10:01:02.345  1234", ParseErrorCode::kNotThisFormat},
        BadCase{"CutInTag", "11-22 10:01:02.345  1234  1260 I ActivityTaskMan",
                ParseErrorCode::kNotThisFormat},
        BadCase{"BadMonth", "1x-22 10:01:02.345  1234  1260 I Tag: x",
                ParseErrorCode::kNotThisFormat},
        BadCase{"FourFractionDigits", "11-22 10:01:02.3456  1234  1260 I Tag: x",
                ParseErrorCode::kNotThisFormat},
        BadCase{"NoPriority", "11-22 10:01:02.345  1234  1260 Tag: x",
                ParseErrorCode::kNotThisFormat},
        BadCase{"OtherSeparator", "--------- something else", ParseErrorCode::kNotThisFormat},
        BadCase{"CutInComponent",
                "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Ma",
                ParseErrorCode::kMalformed},
        BadCase{"CutInDuration",
                "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main for "
                "user 0: +1s",
                ParseErrorCode::kMalformed},
        BadCase{
            "NegativeDuration",
            "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main: -5ms",
            ParseErrorCode::kMalformed},
        BadCase{"CutStartIntent",
                "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: START u0 "
                "{act=android.intent.action.MAIN cmp=com.pk",
                ParseErrorCode::kMalformed},
        BadCase{
            "CutStartProc",
            "11-22 10:01:02.345  1234  1260 I ActivityManager: Start proc 4567:com.android.vend",
            ParseErrorCode::kMalformed},
        BadCase{"StartProcBadUid",
                "11-22 10:01:02.345  1234  1260 I ActivityManager: Start proc 4567:com.pkg/u0x73 "
                "for activity {com.pkg/com.pkg.Main}",
                ParseErrorCode::kMalformed}),
    [](const testing::TestParamInfo<BadCase>& param_info) { return param_info.param.name; });

struct DurationCase {
  std::string text;
  std::optional<int64_t> ms;
};

std::ostream& operator<<(std::ostream& os, const DurationCase& c) {
  return os << '"' << c.text << '"';
}

class LogcatDurationTest : public testing::TestWithParam<DurationCase> {};

TEST_P(LogcatDurationTest, FormatDuration) {
  EXPECT_EQ(ParseFormattedDuration(GetParam().text), GetParam().ms) << GetParam().text;
}

// android.util.TimeUtils.formatDurationLocked with fieldLen 0: '+', then d/h/m/s only once a field
// is non-zero (and every field after it), millis always, no zero padding; zero prints "0".
INSTANTIATE_TEST_SUITE_P(
    LogcatTimeUtils, LogcatDurationTest,
    testing::Values(DurationCase{"+797ms", 797}, DurationCase{"797ms", 797}, DurationCase{"0", 0},
                    DurationCase{"+1s71ms", 1071}, DurationCase{"+8s75ms", 8075},
                    DurationCase{"+1s0ms", 1000}, DurationCase{"+1m2s3ms", 62003},
                    DurationCase{"+1m0s0ms", 60000}, DurationCase{"+1h0m0s5ms", 3600005},
                    DurationCase{"+2d3h0m0s0ms", 183600000},
                    DurationCase{"+60s0ms", 60000},  // old builds: "seconds > 60" left 60s
                    DurationCase{"", std::nullopt}, DurationCase{"+", std::nullopt},
                    DurationCase{"+0", std::nullopt}, DurationCase{"-5ms", std::nullopt},
                    DurationCase{"+1s", std::nullopt}, DurationCase{"+5ms1s", std::nullopt},
                    DurationCase{"+1s2m3ms", std::nullopt}, DurationCase{"+1.5s", std::nullopt},
                    DurationCase{"+ms", std::nullopt}, DurationCase{"+5 ms", std::nullopt},
                    DurationCase{"+999999999999d0h0m0s0ms", std::nullopt}));

// LogTime: the timestamp layouts of logprint.cpp (android_log_formatLogLine) read into numbers.
TEST(LogTimeTest, CalendarLayouts) {
  constexpr int64_t kAt = ((20 * 60 + 2) * 60 + 55) * 1000 + 763;  // 20:02:55.763
  for (const char* text : {"07-23 20:02:55.763", "07-23 20:02:55.763412",
                           "07-23 20:02:55.763412001", "  07-23 20:02:55.763 "}) {
    const LogTime t = ParseLogTime(text);
    EXPECT_EQ(t.kind, LogTime::Kind::kCalendar) << text;
    EXPECT_EQ(t.month, 7) << text;
    EXPECT_EQ(t.day, 23) << text;
    EXPECT_EQ(t.ms, kAt) << text;
    EXPECT_EQ(t.year, 0) << text;
    EXPECT_FALSE(t.utc_offset_minutes) << text;
  }
  const LogTime year = ParseLogTime("2026-07-23 20:02:55.763");
  EXPECT_EQ(year.kind, LogTime::Kind::kCalendar);
  EXPECT_EQ(year.year, 2026);
  EXPECT_EQ(year.ms, kAt);
  EXPECT_EQ(ParseLogTime("07-23 20:02:55.763 +0200").utc_offset_minutes, 120);
  EXPECT_EQ(ParseLogTime("07-23 20:02:55.763 -0530").utc_offset_minutes, -330);
  EXPECT_EQ(ParseLogTime("2026-07-23 18:02:55.763412 +0000").utc_offset_minutes, 0);
}

TEST(LogTimeTest, SecondsLayouts) {
  const LogTime epoch = ParseLogTime("         1784836975.763");
  EXPECT_EQ(epoch.kind, LogTime::Kind::kSeconds);
  EXPECT_EQ(epoch.ms, 1784836975763);
  EXPECT_EQ(ParseLogTime("4711.763").ms, 4711763);                 // monotonic
  EXPECT_EQ(ParseLogTime("123456.763412").ms, 123456763);          // monotonic usec
  EXPECT_EQ(ParseLogTime("1763891234.567891").ms, 1763891234567);  // epoch usec
}

TEST(LogTimeTest, NotATimestamp) {
  for (const char* text :
       {"", "garbage", "13-01 00:00:00.000", "00-01 00:00:00.000", "07-32 00:00:00.000",
        "07-23 24:00:00.000", "07-23 20:60:00.000", "07-23 20:02:61.000", "07-23 20:02:55.76",
        "07-23 20:02:55", "07-23 20:02:55.763 +02", "1784836975.7634", "1784836975",
        "99999999999999999.123", "7-23 20:02:55.763", "207-23 20:02:55.763"}) {
    EXPECT_EQ(ParseLogTime(text).kind, LogTime::Kind::kNone) << text;
  }
}

TEST(LogTimeTest, ToEpochMs) {
  EXPECT_EQ(LogTimeToEpochMs(ParseLogTime("1763891234.567"), 2026), 1763891234567);
  EXPECT_EQ(LogTimeToEpochMs(ParseLogTime("1763891234.567891"), 2026), 1763891234567);
  EXPECT_EQ(LogTimeToEpochMs(ParseLogTime("03-14 00:00:01.250"), 2026), 1773446401250);
  // A printed year wins over the caller's; a printed zone is taken off.
  EXPECT_EQ(LogTimeToEpochMs(ParseLogTime("2026-03-14 00:00:01.250"), 1999), 1773446401250);
  EXPECT_EQ(LogTimeToEpochMs(ParseLogTime("03-14 01:00:01.250 +0100"), 2026), 1773446401250);
  EXPECT_FALSE(LogTimeToEpochMs(ParseLogTime("02-30 00:00:01.250"), 2026));
  EXPECT_FALSE(LogTimeToEpochMs(ParseLogTime("02-29 00:00:01.250"), 2026));
  EXPECT_TRUE(LogTimeToEpochMs(ParseLogTime("02-29 00:00:01.250"), 2028));
  EXPECT_FALSE(LogTimeToEpochMs(ParseLogTime("garbage"), 2026));
  EXPECT_FALSE(LogTimeToEpochMs(ParseLogTime(""), 2026));
}

// The event carries the number: what the run executor reads from a `-v epoch` stream.
TEST(LogTimeTest, EventsCarryTheirTime) {
  auto r = ParseLogcatLine(With("         1784836975.763   654   717 I ActivityTaskManager: "));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->log_time.kind, LogTime::Kind::kSeconds);
  EXPECT_EQ(LogTimeToEpochMs((*r)->log_time, 1970), 1784836975763);
  auto raw = ParseLogcatLine(kWearMsg);
  ASSERT_TRUE(raw.ok() && raw->has_value());
  EXPECT_EQ((*raw)->log_time.kind, LogTime::Kind::kNone);
}

TEST(LogcatKindTest, Names) {
  EXPECT_EQ(LaunchEventKindName(Kind::kDisplayed), "displayed");
  EXPECT_EQ(LaunchEventKindName(Kind::kFullyDrawn), "fully_drawn");
  EXPECT_EQ(LaunchEventKindName(Kind::kActivityStart), "activity_start");
  EXPECT_EQ(LaunchEventKindName(Kind::kProcessStart), "process_start");
}

// --- streams -----------------------------------------------------------------------------------

struct StreamResult {
  std::vector<LaunchEvent> events;
  uint64_t lines = 0;
  uint64_t skipped = 0;
};

StreamResult ReadStream(std::string_view text, size_t chunk,
                        LogcatStreamFormat format = LogcatStreamFormat::kAuto) {
  LineSplitter splitter;
  LogcatReader reader(format);
  StreamResult r;
  auto sink = [&](std::string_view line) { reader.AddLine(line, r.events); };
  for (size_t i = 0; i < text.size(); i += chunk) splitter.Feed(text.substr(i, chunk), sink);
  splitter.Finish(sink);
  reader.Finish(r.events);
  r.lines = reader.lines();
  r.skipped = reader.skipped_lines();
  return r;
}

std::vector<std::string> Kinds(const std::vector<LaunchEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.emplace_back(LaunchEventKindName(e.kind));
  return out;
}

// Android 9 threadtime, real: three Displayed, one START, noise from other tags, a separator.
TEST(LogcatDataTest, Android9Threadtime) {
  for (size_t chunk : {1, 7, 4096}) {
    StreamResult r = ReadStream(ReadTestData("logcat/android9_threadtime.txt"), chunk);
    EXPECT_EQ(r.lines, 8u);
    EXPECT_EQ(r.skipped, 0u);
    ASSERT_EQ(Kinds(r.events),
              (std::vector<std::string>{"displayed", "displayed", "displayed", "activity_start"}));
    EXPECT_EQ(r.events[2].component, "org.androworks.meteorgram/.MeteorgramActivity");
    EXPECT_EQ(r.events[2].activity, "org.androworks.meteorgram.MeteorgramActivity");
    EXPECT_EQ(r.events[2].duration_ms, 580);
    EXPECT_EQ(r.events[2].time, "04-05 16:38:14.092");
    EXPECT_EQ(r.events[3].uid, 10074);
  }
}

// Android 10-14 threadtime, real: Start proc in every recent shape, Displayed "for user 0".
TEST(LogcatDataTest, Android10PlusThreadtime) {
  StreamResult r = ReadStream(ReadTestData("logcat/android10plus_threadtime.txt"), 4096);
  EXPECT_EQ(r.lines, 12u);
  EXPECT_EQ(r.skipped, 0u);
  ASSERT_EQ(r.events.size(), 6u);
  EXPECT_EQ(r.events[1].process_pid, 9518);
  EXPECT_EQ(r.events[1].uid, 10077);
  EXPECT_EQ(r.events[1].activity,
            "com.google.android.libraries.inputmethod.launcher.LauncherActivity");
  EXPECT_EQ(r.events[3].uid, 10104);
  EXPECT_EQ(r.events[4].uid, 10928);
  EXPECT_EQ(r.events[4].reason, "pre-top-activity");
  ExpectEventEq(r.events[5], WearDisplayed("07-23 20:02:55.763", 654, 717));
}

// Android 4.4 -v time, real, pid padding as posted.
TEST(LogcatDataTest, Android4Time) {
  StreamResult r = ReadStream(ReadTestData("logcat/android4_time.txt"), 3);
  EXPECT_EQ(r.lines, 7u);
  EXPECT_EQ(r.skipped, 0u);
  ASSERT_EQ(Kinds(r.events), (std::vector<std::string>{"process_start", "process_start"}));
  EXPECT_EQ(r.events[0].process_name, "fm.a2d.s2");
  EXPECT_EQ(r.events[0].component, "fm.a2d.s2/.wid_wid");
  EXPECT_EQ(r.events[0].activity, "");  // a broadcast receiver, not an activity
  EXPECT_EQ(r.events[0].process_pid, 10383);
  EXPECT_EQ(r.events[0].uid, 10171);
  EXPECT_EQ(r.events[0].pid, 4666);
}

// Android 5 brief, real.
TEST(LogcatDataTest, Android5Brief) {
  StreamResult r = ReadStream(ReadTestData("logcat/android5_brief.txt"), 4096);
  EXPECT_EQ(r.lines, 6u);
  EXPECT_EQ(r.skipped, 0u);
  ASSERT_EQ(Kinds(r.events),
            (std::vector<std::string>{"process_start", "process_start", "activity_start"}));
  EXPECT_EQ(r.events[0].reason, "service");
  EXPECT_EQ(r.events[1].reason, "content provider");
  EXPECT_EQ(r.events[2].activity, "com.android.incallui.InCallActivity");
}

// Android 12 long, real: header, message, blank; one START among noise; also a header as posted
// with its blanks collapsed.
TEST(LogcatDataTest, Android12Long) {
  for (size_t chunk : {1, 5, 4096}) {
    StreamResult r = ReadStream(ReadTestData("logcat/android12_long.txt"), chunk);
    EXPECT_EQ(r.lines, 12u);
    EXPECT_EQ(r.skipped, 0u);
    ASSERT_EQ(r.events.size(), 1u);
    LaunchEvent want = Event(Kind::kActivityStart);
    want.time = "12-26 18:59:57.516";
    want.pid = 1235;
    want.tid = 5076;
    want.tag = "ActivityTaskManager";
    want.component = "com.smartpack.kernelmanager/.activities.MainActivity";
    want.package = "com.smartpack.kernelmanager";
    want.activity = "com.smartpack.kernelmanager.activities.MainActivity";
    want.uid = 10423;
    want.user_id = 0;
    want.caller_pid = 17628;
    ExpectEventEq(r.events[0], want);
  }
}

// A long entry cut before its blank line is completed by Finish(); one cut mid-message is not.
TEST(LogcatStreamTest, LongEntryCompletedAtEndOfStream) {
  StreamResult r = ReadStream(
      "[ 11-22 10:01:02.345  1234: 1260 I/ActivityTaskManager ]\n"
      "Displayed com.pkg/.Main for user 0: +797ms\n",
      4096);
  ASSERT_EQ(r.events.size(), 1u);
  ExpectEventEq(r.events[0], Displayed("11-22 10:01:02.345", 1234, 1260, "ActivityTaskManager",
                                       "com.pkg/.Main", "com.pkg", "com.pkg.Main", 797, 0));
  StreamResult cut = ReadStream(
      "[ 11-22 10:01:02.345  1234: 1260 I/ActivityTaskManager ]\nDisplayed com.pkg/.Ma", 4096);
  EXPECT_TRUE(cut.events.empty());
  EXPECT_EQ(cut.skipped, 1u);
}

// Two long entries without the blank between them, lookalike under another tag in long format,
// and a multi-line message whose later lines are not skipped.
TEST(LogcatStreamTest, LongEntriesBackToBack) {
  StreamResult r = ReadStream(
      "[ 11-22 10:01:02.345  4321: 4321 I/MyApp    ]\n"
      "Displayed com.fake/.X: +5ms\n"
      "second line of the message\n"
      "[ 11-22 10:01:02.400  1234: 1260 I/ActivityManager ]\n"
      "Fully drawn com.pkg/.Main: +1s234ms\n"
      "\n",
      4096);
  EXPECT_EQ(r.skipped, 0u);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].kind, Kind::kFullyDrawn);
  EXPECT_EQ(r.events[0].duration_ms, 1234);
  EXPECT_EQ(r.events[0].tag, "ActivityManager");
  EXPECT_EQ(r.events[0].time, "11-22 10:01:02.400");
}

// Android 13 raw messages, real: in the default mode only launch lines count; in kRaw mode the
// other lines are messages, not skipped.
TEST(LogcatDataTest, Android13Raw) {
  std::string text = ReadTestData("logcat/android13_raw.txt");
  StreamResult r = ReadStream(text, 4096);
  ASSERT_EQ(Kinds(r.events), (std::vector<std::string>{"displayed", "fully_drawn", "displayed",
                                                       "activity_start", "process_start"}));
  EXPECT_EQ(r.skipped, 1u);
  EXPECT_EQ(r.events[2].duration_ms, 8075);
  EXPECT_EQ(r.events[0].tag, "");
  EXPECT_EQ(r.events[4].uid, 1000);
  StreamResult raw = ReadStream(text, 4096, LogcatStreamFormat::kRaw);
  EXPECT_EQ(raw.events.size(), 5u);
  EXPECT_EQ(raw.skipped, 0u);
}

// Random bytes: every non-empty line skipped, no events, at any chunk size.
TEST(LogcatStreamTest, RandomBytesAreSkipped) {
  std::mt19937 rng(20261122);
  std::string bytes(64 * 1024, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  for (size_t chunk : {1, 333, 65536}) {
    LineSplitter splitter;
    LogcatReader reader;
    std::vector<LaunchEvent> events;
    uint64_t blank = 0;
    auto sink = [&](std::string_view line) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) ++blank;
      reader.AddLine(line, events);
    };
    for (size_t i = 0; i < bytes.size(); i += chunk)
      splitter.Feed(std::string_view(bytes).substr(i, chunk), sink);
    splitter.Finish(sink);
    reader.Finish(events);
    EXPECT_TRUE(events.empty());
    EXPECT_GT(reader.lines(), 100u);
    EXPECT_EQ(reader.skipped_lines() + blank, reader.lines());
  }
}

// Every prefix of a launch line: never a wrong event; the whole line's event, nothing, or an error.
TEST(LogcatStreamTest, EveryCutOfALaunchLine) {
  const std::string line =
      "07-23 20:02:55.763   654   717 I ActivityTaskManager: Displayed "
      "com.minimalapp/.wear.MainActivity for user 0: +1s71ms";
  for (size_t n = 0; n <= line.size(); ++n) {
    auto r = ParseLogcatLine(std::string_view(line).substr(0, n));
    if (!r.ok() || !r->has_value()) continue;
    const LaunchEvent& ev = **r;
    EXPECT_EQ(ev.component, "com.minimalapp/.wear.MainActivity") << n;
    // "+1s7", "+1s71m" end in no unit or the wrong one: only the whole line is an event.
    EXPECT_EQ(ev.duration_ms, 1071) << n;
    EXPECT_EQ(n, line.size());
  }
}

TEST(LogcatStreamTest, CrLfAndNoFinalNewline) {
  StreamResult r = ReadStream(
      "--------- beginning of main\r\n"
      "11-22 10:01:02.345  1234  1260 I ActivityTaskManager: Displayed com.pkg/.Main for user 0: "
      "+797ms\r\r\n"
      "11-22 10:01:02.346  1234  1260 I ActivityTaskManager: Fully drawn com.pkg/.Main: +1s234ms",
      5);
  EXPECT_EQ(r.lines, 3u);
  EXPECT_EQ(r.skipped, 0u);
  ASSERT_EQ(Kinds(r.events), (std::vector<std::string>{"displayed", "fully_drawn"}));
  EXPECT_EQ(r.events[0].duration_ms, 797);
  EXPECT_EQ(r.events[1].duration_ms, 1234);
}

}  // namespace
}  // namespace droidlab::parsers
