// App faults in logcat (parsers/logcat_faults.h) through LogcatReader. Each case names the
// Android version and the AOSP code that prints its lines: ANRs from AppErrors /
// ProcessRecord / ProcessErrorStateRecord.appNotResponding (services/core/java/com/android/server/
// am/), am_anr and am_crash from that folder's EventLogTags.logtags, crashes from
// core/java/com/android/internal/os/RuntimeInit.java, tombstones from system/core
// debuggerd/libdebuggerd/tombstone.cpp (tombstone_proto_to_text.cpp on 12+), slow messages from
// core/java/android/os/Looper.java showSlowLog. Headers are logprint.cpp's layouts. Files under
// tests/data/logcat are real device output (README there says from where).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "parsers/line_splitter.h"
#include "parsers/logcat.h"
#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

struct Read {
  std::vector<LaunchEvent> launches;
  std::vector<FaultEvent> faults;
  uint64_t skipped = 0;
};

Read ReadAll(std::string_view text) {
  Read r;
  LogcatReader reader;
  LineSplitter splitter;
  auto sink = [&](std::string_view line) { reader.AddLine(line, r.launches, r.faults); };
  splitter.Feed(text, sink);
  splitter.Finish(sink);
  reader.Finish(r.launches, r.faults);
  r.skipped = reader.skipped_lines();
  return r;
}

// Prints messages under one threadtime header each, as logprint does for a multi-line entry.
std::string Threadtime(std::string_view time, int pid, int tid, char prio, std::string_view tag,
                       const std::vector<std::string>& messages) {
  std::string out;
  char head[96];
  for (const auto& m : messages) {
    std::snprintf(head, sizeof head, "%s %5d %5d %c %-8.*s: ", std::string(time).c_str(), pid, tid,
                  prio, static_cast<int>(tag.size()), tag.data());
    out += head;
    out += m;
    out += '\n';
  }
  return out;
}

// Android 13+ (Droid-ify issue 1135; Parent/ErrorId/Frozen are 12+'s ProcessErrorStateRecord).
const std::vector<std::string> kAnr13 = {
    "ANR in com.looker.droidify (com.looker.droidify/.MainActivity)",
    "PID: 17681",
    "Reason: Input dispatching timed out (61a981d com.looker.droidify/com.looker.droidify."
    "MainActivity (server) is not responding. Waited 5001ms for FocusEvent(hasFocus=false)).",
    "Parent: com.looker.droidify/.MainActivity",
    "ErrorId: a753d7e5-da93-4606-ac8c-4eb75549c843",
    "Frozen: false",
    "Load: 9.23 / 6.11 / 5.35",
};

TEST(LogcatFaultsTest, Android13AnrThreadtime) {
  Read r = ReadAll(Threadtime("11-01 10:00:01.250", 1534, 1602, 'E', "ActivityManager", kAnr13));
  ASSERT_EQ(r.faults.size(), 1u);
  const FaultEvent& f = r.faults[0];
  EXPECT_EQ(FaultKindName(f.kind), "anr");
  EXPECT_EQ(f.time, "11-01 10:00:01.250");
  EXPECT_EQ(f.log_time, ParseLogTime("11-01 10:00:01.250"));
  EXPECT_EQ(f.tag, "ActivityManager");
  EXPECT_EQ(f.logger_pid, 1534);
  EXPECT_EQ(f.pid, 17681);
  EXPECT_EQ(f.package, "com.looker.droidify");
  EXPECT_EQ(f.process_name, "com.looker.droidify");
  EXPECT_EQ(f.component, "com.looker.droidify/.MainActivity");
  EXPECT_EQ(f.reason, kAnr13[2].substr(8));
  EXPECT_TRUE(r.launches.empty());
  EXPECT_EQ(r.skipped, 0u);
}

// Android 7-8 (DroidconDopplExample issue 53): no Parent line, "Load:" right after Reason; the
// same system_server thread interleaved with another process's lines.
TEST(LogcatFaultsTest, Android8AnrInterleavedWithOtherProcesses) {
  std::string text =
      Threadtime("09-22 18:49:03.613", 951, 969, 'E', "ActivityManager",
                 {"ANR in co.touchlab.droidcon.anon (co.touchlab.droidcon.anon/"
                  "co.touchlab.droidconandroid.ScheduleActivity)",
                  "PID: 27003"}) +
      // Another process logs "Reason:" and "PID:" under its own tag: not part of the ANR.
      Threadtime("09-22 18:49:03.614", 27003, 27003, 'I', "MyApp",
                 {"PID: 1", "Reason: not an ANR"}) +
      Threadtime("09-22 18:49:03.615", 951, 970, 'E', "ActivityManager", {"Reason: other thread"}) +
      Threadtime("09-22 18:49:03.613", 951, 969, 'E', "ActivityManager",
                 {"Reason: Input dispatching timed out (Waiting to send non-key event because the "
                  "touched window has not finished processing certain input events that were "
                  "delivered to it over 500.0ms ago.  Wait queue length: 58.  Wait queue head "
                  "age: 5505.4ms.)",
                  "Load: 12.25 / 10.66 / 8.94"});
  Read r = ReadAll(text);
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].pid, 27003);
  EXPECT_EQ(r.faults[0].package, "co.touchlab.droidcon.anon");
  EXPECT_TRUE(r.faults[0].reason.starts_with("Input dispatching timed out (Waiting to send"));
  EXPECT_TRUE(r.faults[0].reason.ends_with("5505.4ms.)"));
}

// Android 4.x-6 ANR without an activity and without a reason: done at the next other line.
TEST(LogcatFaultsTest, AnrWithoutActivityOrReason) {
  Read r = ReadAll(Threadtime("01-02 03:04:05.678", 800, 820, 'E', "ActivityManager",
                              {"ANR in com.example:remote", "PID: 4242", "Load: 1.0 / 1.0 / 1.0"}));
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].process_name, "com.example:remote");
  EXPECT_EQ(r.faults[0].package, "com.example");
  EXPECT_EQ(r.faults[0].component, "");
  EXPECT_EQ(r.faults[0].pid, 4242);
  EXPECT_EQ(r.faults[0].reason, "");
}

TEST(LogcatFaultsTest, LookalikesUnderOtherTagsAreNotFaults) {
  std::string text =
      Threadtime("01-02 03:04:05.678", 100, 100, 'E', "MyApp",
                 {"ANR in com.fake (com.fake/.Main)", "PID: 1", "Reason: x",
                  "FATAL EXCEPTION: main", "pid: 1, tid: 1, name: x  >>> com.fake <<<",
                  "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0",
                  "Slow dispatch took 500ms main h=a.B c=null m=0"}) +
      Threadtime("01-02 03:04:05.679", 100, 100, 'I', "am_anrx", {"[0,1,com.fake,0,x]"}) +
      Threadtime("01-02 03:04:05.679", 100, 100, 'E', "AndroidRuntimeX",
                 {"FATAL EXCEPTION: main", "Process: com.fake, PID: 1", "java.lang.Error"});
  Read r = ReadAll(text);
  EXPECT_TRUE(r.faults.empty());
  EXPECT_EQ(r.skipped, 0u);
}

// Android 6.0 (CyanogenMod 13), real: RuntimeInit's three head lines, an OEM "Theme:" line, the
// exception, the stack.
TEST(LogcatFaultsTest, Android6CrashThreadtimeFile) {
  Read r = ReadAll(ReadTestData("logcat/android6_threadtime_crash.txt"));
  ASSERT_EQ(r.faults.size(), 1u);
  const FaultEvent& f = r.faults[0];
  EXPECT_EQ(FaultKindName(f.kind), "crash");
  EXPECT_EQ(f.time, "08-16 22:20:08.163");
  EXPECT_EQ(f.tag, "AndroidRuntime");
  EXPECT_EQ(f.thread, "Thread-1565");
  EXPECT_EQ(f.process_name, "com.rareventure.gps2");
  EXPECT_EQ(f.package, "com.rareventure.gps2");
  EXPECT_EQ(f.pid, 25819);
  EXPECT_EQ(f.logger_pid, 25819);
  EXPECT_EQ(f.reason, "java.lang.InternalError: Thread starting during runtime shutdown");
  ASSERT_EQ(f.stack.size(), 5u);
  EXPECT_EQ(f.stack[0], "\tat java.lang.Thread.nativeCreate(Native Method)");
  EXPECT_EQ(f.stack[4], "\tat com.android.okhttp.okio.AsyncTimeout$2.read(AsyncTimeout.java:209)");
  EXPECT_EQ(r.skipped, 0u);
}

// RuntimeInit.logUncaught (Android 8+) before the process has a name: "PID: N" alone; and an
// Android 4.x crash with neither line, straight to the exception.
TEST(LogcatFaultsTest, CrashWithoutProcessName) {
  // `-v tag` prints no pid: the "PID:" line is the only one.
  Read r = ReadAll(std::string("E/AndroidRuntime: FATAL EXCEPTION: bg\nE/AndroidRuntime: PID: 900\n"
                               "E/AndroidRuntime: java.lang.OutOfMemoryError: Failed\n") +
                   Threadtime("01-01 00:00:01.000", 950, 950, 'E', "AndroidRuntime",
                              {"FATAL EXCEPTION: main",
                               "java.lang.RuntimeException: Unable to start activity"}));
  ASSERT_EQ(r.faults.size(), 2u);
  EXPECT_EQ(r.faults[0].pid, 900);
  EXPECT_EQ(r.faults[0].package, "");
  EXPECT_EQ(r.faults[0].reason, "java.lang.OutOfMemoryError: Failed");
  EXPECT_EQ(r.faults[1].pid, 950);  // the header's: the app logs its own crash
  EXPECT_EQ(r.faults[1].reason, "java.lang.RuntimeException: Unable to start activity");
}

// A long stack is cut at kMaxStackLines, and the crash is emitted then, not at Finish; two
// processes crashing at once are kept apart.
TEST(LogcatFaultsTest, CrashStackBoundedAndInterleaved) {
  std::vector<std::string> a = {"FATAL EXCEPTION: main", "Process: com.a, PID: 10",
                                "java.lang.IllegalStateException: boom"};
  for (int i = 0; i < 30; ++i) a.push_back("\tat com.a.F.f" + std::to_string(i) + "(F.java:1)");
  std::string text;
  // Line by line, alternating with process 20's crash.
  std::vector<std::string> b = {"FATAL EXCEPTION: worker", "Process: com.b:bg, PID: 20",
                                "java.lang.NullPointerException", "\tat com.b.G.g(G.java:2)"};
  for (size_t i = 0; i < a.size(); ++i) {
    text += Threadtime("05-06 07:08:09.010", 10, 10, 'E', "AndroidRuntime", {a[i]});
    if (i < b.size())
      text += Threadtime("05-06 07:08:09.011", 20, 21, 'E', "AndroidRuntime", {b[i]});
  }
  Read r = ReadAll(text);
  ASSERT_EQ(r.faults.size(), 2u);
  EXPECT_EQ(r.faults[0].package, "com.a");  // complete at its 20th stack line
  EXPECT_EQ(r.faults[0].stack.size(), FaultAssembler::kMaxStackLines);
  EXPECT_EQ(r.faults[0].stack.back(), "\tat com.a.F.f19(F.java:1)");
  EXPECT_EQ(r.faults[1].package, "com.b");  // complete at Finish
  EXPECT_EQ(r.faults[1].process_name, "com.b:bg");
  EXPECT_EQ(r.faults[1].thread, "worker");
  EXPECT_EQ(r.faults[1].reason, "java.lang.NullPointerException");
  EXPECT_EQ(r.faults[1].stack.size(), 1u);
}

// Android 5.1.1, real, brief format (no tid): the tombstone header and its signal, with an
// ActivityManager line of system_server in between.
TEST(LogcatFaultsTest, Android5NativeCrashBriefFile) {
  Read r = ReadAll(ReadTestData("logcat/android5_brief_native_crash.txt"));
  ASSERT_EQ(r.faults.size(), 1u);
  const FaultEvent& f = r.faults[0];
  EXPECT_EQ(FaultKindName(f.kind), "native_crash");
  EXPECT_EQ(f.time, "");
  EXPECT_EQ(f.tag, "DEBUG");
  EXPECT_EQ(f.logger_pid, 119);
  EXPECT_EQ(f.pid, 5061);
  EXPECT_EQ(f.tid, 5637);
  EXPECT_EQ(f.thread, "Thread-329");
  EXPECT_EQ(f.package, "com.XXXXX.xxx");
  EXPECT_EQ(f.reason, "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x30");
  EXPECT_EQ(r.skipped, 0u);
}

// Android 6-7, real, threadtime: a native binary crashes (a path, no package).
TEST(LogcatFaultsTest, Android7NativeCrashOfABinary) {
  Read r = ReadAll(ReadTestData("logcat/android6_7_threadtime_native_crash.txt"));
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].time, "06-07 09:22:22.203");
  EXPECT_EQ(r.faults[0].pid, 25787);
  EXPECT_EQ(r.faults[0].process_name, "/system/xbin/dexdump");
  EXPECT_EQ(r.faults[0].package, "");
  EXPECT_EQ(r.faults[0].reason, "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0xf6dc0000");
}

// Android 12+ tombstone_proto_to_text: "Cmdline:" and "pid:" then "uid:", "signal"; a second
// tombstone of the same crash_dump pid before the first named its signal ends the first.
TEST(LogcatFaultsTest, Android12NativeCrashAndCutTombstone) {
  std::string text = Threadtime(
      "2024-01-02 03:04:05.678", 9001, 9001, 'F', "DEBUG",
      {"*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
       "Cmdline: com.example.app",
       "pid: 4321, tid: 4400, name: RenderThread  >>> com.example.app <<<",
       "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
       "pid: 4500, tid: 4500, name: ample.app:other  >>> com.example.app:other <<<", "uid: 10123",
       "signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------", "Abort message: 'oops'",
       "Cmdline: <unknown>", "pid: 4600, tid: 4601, name: Thread-2  >>> <unknown> <<<",
       "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0"});
  Read r = ReadAll(text);
  ASSERT_EQ(r.faults.size(), 3u);
  EXPECT_EQ(r.faults[2].process_name, "<unknown>");  // tombstone_proto_to_text's placeholder
  EXPECT_EQ(r.faults[2].package, "");
  EXPECT_EQ(r.faults[0].pid, 4321);
  EXPECT_EQ(r.faults[0].thread, "RenderThread");
  EXPECT_EQ(r.faults[0].reason, "");
  EXPECT_EQ(r.faults[1].pid, 4500);
  EXPECT_EQ(r.faults[1].package, "com.example.app");
  EXPECT_EQ(r.faults[1].reason, "signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------");
  EXPECT_EQ(r.faults[1].time, "2024-01-02 03:04:05.678");
  EXPECT_EQ(r.faults[1].log_time.year, 2024);
}

// Looper.showSlowLog (Android 9+), real: two slow deliveries; "Drained", "DebugLooper" and
// "Slow Looper main:" lines of the same tag are not faults, nor is "Slow Binder".
TEST(LogcatFaultsTest, SlowDeliveryFile) {
  Read r = ReadAll(ReadTestData("logcat/threadtime_looper_slow.txt"));
  ASSERT_EQ(r.faults.size(), 2u);
  const FaultEvent& f = r.faults[0];
  EXPECT_EQ(FaultKindName(f.kind), "slow_delivery");
  EXPECT_EQ(f.time, "04-05 10:46:40.702");
  EXPECT_EQ(f.tag, "Looper");
  EXPECT_EQ(f.pid, 31411);
  EXPECT_EQ(f.duration_ms, 7319);
  EXPECT_EQ(f.thread, "main");
  EXPECT_EQ(f.reason,
            "main h=android.view.Choreographer$FrameHandler "
            "c=android.view.Choreographer$FrameDisplayEventReceiver@ffd9dfb m=0");
  EXPECT_EQ(f.package, "");  // the line does not say; the pid does
  EXPECT_EQ(r.faults[1].pid, 1621);
  EXPECT_EQ(r.faults[1].duration_ms, 7015);
  EXPECT_EQ(r.skipped, 0u);
}

TEST(LogcatFaultsTest, SlowDispatchAndMalformed) {
  Read r = ReadAll(
      Threadtime("01-01 00:00:00.000", 500, 500, 'W', "Looper",
                 {"Slow dispatch took 312ms android.ui "
                  "h=com.android.server.am.ActivityManagerService$MainHandler "
                  "c=null m=27",
                  "Slow dispatch took -5ms main h=a c=b m=1", "Slow dispatch took 12ms main",
                  "Slow dispatch took 99999999999999999999ms main h=a c=b m=1"}));
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(FaultKindName(r.faults[0].kind), "slow_dispatch");
  EXPECT_EQ(r.faults[0].duration_ms, 312);
  EXPECT_EQ(r.faults[0].thread, "android.ui");
}

// Android 11+ events buffer, real (uid column, blanks collapsed by the page).
TEST(LogcatFaultsTest, Android12AmAnrFile) {
  Read r = ReadAll(ReadTestData("logcat/android12_events_anr.txt"));
  ASSERT_EQ(r.faults.size(), 1u);
  const FaultEvent& f = r.faults[0];
  EXPECT_EQ(FaultKindName(f.kind), "anr");
  EXPECT_EQ(f.tag, "am_anr");
  EXPECT_EQ(f.logger_pid, 1199);
  EXPECT_EQ(f.user_id, 0);
  EXPECT_EQ(f.pid, 2900);
  EXPECT_EQ(f.package, "com.android.systemui");
  // The reason keeps its commas.
  EXPECT_EQ(f.reason,
            "Input dispatching timed out (StatusBar, b49ba2b StatusBar (server) is not "
            "responding. Waited 8001ms for MotionEvent(action=DOWN))");
}

// am_crash per EventLogTags.logtags: 8 fields before the Recoverable field was added, 9 after;
// the Message may hold commas. (Lines printed from the field lists; no public capture found.)
TEST(LogcatFaultsTest, AmCrashBothFieldLists) {
  std::string text =
      Threadtime("01-01 00:00:01.000", 1000, 1100, 'I', "am_crash",
                 {"[0,4321,com.example,952745541,java.lang.RuntimeException,Unable to start, "
                  "really,MainActivity.java,42]",
                  "[10,4322,com.example:svc,0,java.lang.NullPointerException,,Svc.java,7,0]",
                  "[0,notapid,com.example,0,E,M,F.java,1]", "[0,1,com.x,0,E,M,F.java,notaline]"});
  Read r = ReadAll(text);
  ASSERT_EQ(r.faults.size(), 2u);
  EXPECT_EQ(FaultKindName(r.faults[0].kind), "crash");
  EXPECT_EQ(r.faults[0].pid, 4321);
  EXPECT_EQ(r.faults[0].reason, "java.lang.RuntimeException: Unable to start, really");
  EXPECT_EQ(r.faults[1].user_id, 10);
  EXPECT_EQ(r.faults[1].package, "com.example");
  EXPECT_EQ(r.faults[1].reason, "java.lang.NullPointerException");
}

// The same ANR in every format the reader knows that has a tag: brief, process, tag, time, long
// (one entry of many lines), and threadtime with the uid and year modifiers.
TEST(LogcatFaultsTest, AnrAcrossFormats) {
  const std::vector<std::string> msgs = {"ANR in com.p (com.p/.A)", "PID: 77", "Reason: r"};
  std::vector<std::string> texts;
  std::string brief, process, tag, time, lng, uid, epoch, color;
  for (const auto& m : msgs) {
    brief += "E/ActivityManager(  812): " + m + "\n";
    process += "E(  812) " + m + "  (ActivityManager)\n";
    tag += "E/ActivityManager: " + m + "\n";
    time += "01-02 03:04:05.678 E/ActivityManager(  812): " + m + "\n";
    uid += "2026-01-02 03:04:05.678  system   812   830 E ActivityManager: " + m + "\n";
    epoch += "  1767323045.678   812   830 E ActivityManager: " + m + "\n";
    color += "\x1B[31m01-02 03:04:05.678   812   830 E ActivityManager: " + m + "\x1B[0m\n";
  }
  lng = "[ 01-02 03:04:05.678   812:  830 E/ActivityManager ]\n";
  for (const auto& m : msgs) lng += m + "\n";
  lng += "\n";
  for (const std::string& text : {brief, process, tag, time, lng, uid, epoch, color}) {
    Read r = ReadAll(text);
    ASSERT_EQ(r.faults.size(), 1u) << text;
    EXPECT_EQ(r.faults[0].pid, 77) << text;
    EXPECT_EQ(r.faults[0].reason, "r") << text;
    EXPECT_EQ(r.faults[0].component, "com.p/.A") << text;
    EXPECT_EQ(r.faults[0].log_time, ParseLogTime(r.faults[0].time)) << text;
    EXPECT_EQ(r.skipped, 0u) << text;
  }
}

// `-v long`: one entry holds the whole crash (header once, then the lines), another process's
// entry comes between two crash entries of the same thread, and am_crash's "[…]" message is not
// taken for a header.
TEST(LogcatFaultsTest, CrashAndAmCrashInLongFormat) {
  const std::string text =
      "[ 05-06 07:08:09.010  4321: 4321 E/AndroidRuntime ]\n"
      "FATAL EXCEPTION: main\n"
      "Process: com.example.app, PID: 4321\n"
      "java.lang.IllegalStateException: boom\n"
      "\n"
      "[ 05-06 07:08:09.011  1000: 1100 I/chatty   ]\n"
      "uid=1000 system_server identical 4 lines\n"
      "\n"
      "[ 05-06 07:08:09.012  4321: 4321 E/AndroidRuntime ]\n"
      "\tat com.example.app.Main.onCreate(Main.java:10)\n"
      "\n"
      "[ 05-06 07:08:09.500  1000: 1100 I/am_crash ]\n"
      "[0,4321,com.example.app,952745541,java.lang.IllegalStateException,boom,Main.java,10]\n"
      "\n";
  Read r = ReadAll(text);
  ASSERT_EQ(r.faults.size(), 2u);
  EXPECT_EQ(r.faults[0].tag, "am_crash");  // single-line: out first
  EXPECT_EQ(r.faults[0].reason, "java.lang.IllegalStateException: boom");
  const FaultEvent& f = r.faults[1];
  EXPECT_EQ(f.tag, "AndroidRuntime");
  EXPECT_EQ(f.time, "05-06 07:08:09.010");
  EXPECT_EQ(f.pid, 4321);
  EXPECT_EQ(f.reason, "java.lang.IllegalStateException: boom");
  ASSERT_EQ(f.stack.size(), 1u);
  EXPECT_EQ(f.stack[0], "\tat com.example.app.Main.onCreate(Main.java:10)");
  EXPECT_EQ(r.skipped, 0u);
}

TEST(LogcatFaultsTest, EpochTimeAsPrinted) {
  Read r = ReadAll(
      "  1767323045.678   812   830 W Looper  : Slow delivery took 2001ms main "
      "h=android.os.Handler c=null m=0\n");
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_EQ(r.faults[0].time, "1767323045.678");
  EXPECT_EQ(r.faults[0].log_time.kind, LogTime::Kind::kSeconds);
  EXPECT_EQ(r.faults[0].log_time.ms, 1767323045678);
}

// The launch-only AddLine ignores faults; launch events are the same with or without faults.
TEST(LogcatFaultsTest, LaunchEventsUnchangedByFaultReading) {
  const std::string text = ReadTestData("logcat/android10plus_threadtime.txt") +
                           ReadTestData("logcat/android6_threadtime_crash.txt");
  Read with = ReadAll(text);
  std::vector<LaunchEvent> without;
  LogcatReader reader;
  LineSplitter splitter;
  auto sink = [&](std::string_view line) { reader.AddLine(line, without); };
  splitter.Feed(text, sink);
  splitter.Finish(sink);
  reader.Finish(without);
  ASSERT_FALSE(without.empty());
  ASSERT_EQ(with.launches.size(), without.size());
  for (size_t i = 0; i < without.size(); ++i) {
    EXPECT_EQ(with.launches[i].component, without[i].component);
    EXPECT_EQ(with.launches[i].time, without[i].time);
  }
  EXPECT_EQ(with.skipped, reader.skipped_lines());
  EXPECT_EQ(with.faults.size(), 1u);
}

// More open faults than kMaxPending: the oldest is emitted as it is, nothing is lost.
TEST(LogcatFaultsTest, PendingBounded) {
  std::string text;
  const int n = static_cast<int>(FaultAssembler::kMaxPending) + 3;
  for (int pid = 1; pid <= n; ++pid) {
    text += Threadtime("01-01 00:00:00.000", pid, pid, 'E', "AndroidRuntime",
                       {"FATAL EXCEPTION: main"});
  }
  LogcatReader reader;
  std::vector<LaunchEvent> launches;
  std::vector<FaultEvent> faults;
  LineSplitter splitter;
  auto sink = [&](std::string_view line) { reader.AddLine(line, launches, faults); };
  splitter.Feed(text, sink);
  EXPECT_EQ(faults.size(), 3u);  // before Finish: the three oldest were pushed out
  EXPECT_EQ(faults[0].pid, 1);
  reader.Finish(launches, faults);
  EXPECT_EQ(faults.size(), static_cast<size_t>(n));
}

// A run reads its stream in iterations: FlushFaults completes a crash whose short stack would
// otherwise wait for the next fault or Finish, and the stream goes on. Lines as the run's
// `logcat -v epoch -b main,system,crash,events` prints them on Android 13 (RuntimeInit's
// KillApplicationHandler in the crash buffer, am_crash from EventLogTags.logtags 30039 with
// Recoverable in the events buffer).
TEST(LogcatFaultsTest, FlushFaultsMidStream) {
  LogcatReader reader;
  std::vector<LaunchEvent> launches;
  std::vector<FaultEvent> faults;
  LineSplitter splitter;
  auto sink = [&](std::string_view line) { reader.AddLine(line, launches, faults); };
  splitter.Feed(
      "  1767323045.678  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main\n"
      "  1767323045.678  4321  4321 E AndroidRuntime: Process: com.example.app, PID: 4321\n"
      "  1767323045.678  4321  4321 E AndroidRuntime: java.lang.IllegalStateException: boom\n"
      "  1767323045.678  4321  4321 E AndroidRuntime: \tat "
      "com.example.app.Main.onResume(Main.java:42)\n"
      "  1767323045.680  1500  1531 I am_crash: [0,4321,com.example.app,952745542,"
      "java.lang.IllegalStateException,boom,Main.java,42,0]\n",
      sink);
  ASSERT_EQ(faults.size(), 1u);  // am_crash is one line; the AndroidRuntime crash is still open
  EXPECT_EQ(faults[0].tag, "am_crash");
  EXPECT_EQ(faults[0].reason, "java.lang.IllegalStateException: boom");
  reader.FlushFaults(faults);
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[1].tag, "AndroidRuntime");
  EXPECT_EQ(faults[1].pid, 4321);
  EXPECT_EQ(faults[1].process_name, "com.example.app");
  EXPECT_EQ(faults[1].reason, "java.lang.IllegalStateException: boom");
  ASSERT_EQ(faults[1].stack.size(), 1u);
  EXPECT_EQ(faults[1].time, "1767323045.678");
  // Nothing is left open: a second flush and Finish add nothing; a stack line of the flushed
  // crash is no fault; the next crash is read as before.
  reader.FlushFaults(faults);
  splitter.Feed(
      "  1767323046.000  4321  4321 E AndroidRuntime: \tat android.app.Activity.performResume("
      "Activity.java:8135)\n"
      "  1767323050.000  4400  4400 E AndroidRuntime: FATAL EXCEPTION: main\n"
      "  1767323050.000  4400  4400 E AndroidRuntime: Process: com.example.app, PID: 4400\n"
      "  1767323050.000  4400  4400 E AndroidRuntime: java.lang.NullPointerException\n",
      sink);
  EXPECT_EQ(faults.size(), 2u);
  reader.Finish(launches, faults);
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[2].pid, 4400);
  EXPECT_EQ(faults[2].reason, "java.lang.NullPointerException");
  EXPECT_EQ(reader.skipped_lines(), 0u);
}

TEST(LogcatFaultsTest, KindNames) {
  EXPECT_EQ(FaultKindName(FaultKind::kAnr), "anr");
  EXPECT_EQ(FaultKindName(FaultKind::kCrash), "crash");
  EXPECT_EQ(FaultKindName(FaultKind::kNativeCrash), "native_crash");
  EXPECT_EQ(FaultKindName(FaultKind::kSlowDispatch), "slow_dispatch");
  EXPECT_EQ(FaultKindName(FaultKind::kSlowDelivery), "slow_delivery");
}

}  // namespace
}  // namespace droidlab::parsers
