// `am start -W` output: Android 5/6 cmds/am/src/com/android/commands/am/Am.java runStart;
// Android 7+ services/core/java/com/android/server/am/ActivityManagerShellCommand.java
// runStartActivity (ThisTime through Android 9; LaunchState instead from Android 10).
#include "parsers/am_start.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

struct AmCase {
  const char* name;
  const char* file;  // under tests/data/am_start/
  std::optional<std::string> status;
  std::optional<std::string> launch_state;
  std::optional<std::string> activity;
  std::optional<int64_t> this_time_ms;
  std::optional<int64_t> total_time_ms;
  std::optional<int64_t> wait_time_ms;
  bool complete;
  std::optional<std::string> warning;
  std::optional<std::string> error;
  uint64_t skipped_lines;
};

class AmStartFileTest : public testing::TestWithParam<AmCase> {};

TEST_P(AmStartFileTest, ParsesEveryLine) {
  const AmCase& c = GetParam();
  auto r = ParseAmStart(ReadTestData(std::string("am_start/") + c.file));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, c.status);
  EXPECT_EQ(r->launch_state, c.launch_state);
  EXPECT_EQ(r->activity, c.activity);
  EXPECT_EQ(r->this_time_ms, c.this_time_ms);
  EXPECT_EQ(r->total_time_ms, c.total_time_ms);
  EXPECT_EQ(r->wait_time_ms, c.wait_time_ms);
  EXPECT_EQ(r->complete, c.complete);
  EXPECT_EQ(r->warning, c.warning);
  EXPECT_EQ(r->error, c.error);
  EXPECT_EQ(r->skipped_lines, c.skipped_lines);
  EXPECT_TRUE(r->intent.has_value());
}

INSTANTIATE_TEST_SUITE_P(
    AmStartVersions, AmStartFileTest,
    testing::Values(
        // Android 10+ (real, facebook/encapp README), ActivityManagerShellCommand.runStartActivity.
        AmCase{"Android10PlusColdReal", "android10plus_encapp_readme_cold.txt", "ok", "COLD",
               "com.facebook.alohaapps.launcher/com.facebook.aloha.app.home.touch.HomeActivity",
               std::nullopt, 1479, 1482, true, std::nullopt, std::nullopt, 0},
        // Android 6, Am.java runStart over an adb pty ("\r\r\n"): ThisTime, no LaunchState.
        AmCase{"Android6AmJavaPty", "android6_am_java_cold_pty.txt", "ok", std::nullopt,
               "com.google.android.gm/.ConversationListActivityGmail", 1187, 1187, 1215, true,
               std::nullopt, std::nullopt, 0},
        // Android 9, START_TASK_TO_FRONT: warning, then the wait result without times < 0.
        AmCase{"Android9TaskToFront", "android9_shellcommand_task_to_front.txt", "ok",
               std::nullopt, "com.android.settings/.Settings", std::nullopt, std::nullopt, 38,
               true, "Activity not started, its current task has been brought to the front",
               std::nullopt, 0},
        // Android 12, START_DELIVERED_TO_TOP on a HOT launch.
        AmCase{"Android12DeliveredToTop", "android12_delivered_to_top_hot.txt", "ok", "HOT",
               "com.android.chrome/com.google.android.apps.chrome.Main", std::nullopt, 96, 102,
               true,
               "Activity not started, intent has been delivered to currently running top-most "
               "instance.",
               std::nullopt, 0},
        // Android 13, START_CLASS_NOT_FOUND: NO_CLASS_ERROR_CODE then the message; no Status.
        AmCase{"Android13ClassNotFound", "android13_class_not_found.txt", std::nullopt,
               std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false,
               std::nullopt,
               "Error type 3\nError: Activity class {com.example.app/com.example.app.Missing} "
               "does not exist.",
               0},
        // Android 14, WaitResult.timeout with launchState 0: "UNKNOWN (0)", no TotalTime.
        AmCase{"Android14Timeout", "android14_timeout_unknown_state.txt", "timeout",
               "UNKNOWN (0)", "com.example.app/.Slow", std::nullopt, std::nullopt, 10031, true,
               std::nullopt, std::nullopt, 0},
        // Android 8, START_INTENT_NOT_RESOLVED.
        AmCase{"Android8Unresolved", "android8_unable_to_resolve.txt", std::nullopt,
               std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false,
               std::nullopt,
               "Error: Activity not started, unable to resolve Intent { "
               "act=android.intent.action.VIEW dat=droidlab://nothing flg=0x10000000 }",
               0},
        // Android 12, ShellCommand's exception handler: header, exception, stack frames.
        AmCase{"Android12NotExported", "android12_not_exported_exception.txt", std::nullopt,
               std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false,
               std::nullopt,
               "Exception occurred while executing 'start':\njava.lang.SecurityException: "
               "Permission Denial: starting Intent { flg=0x10000000 cmp=com.example.app/.Internal "
               "} from null (pid=12345, uid=2000) not exported from uid 10123",
               0}),
    [](const testing::TestParamInfo<AmCase>& param_info) {
      return std::string(param_info.param.name);
    });

// Android 7, ActivityManagerShellCommand.runStartActivity: ThisTime still printed.
TEST(AmStartTest, Android7ThisTime) {
  auto r = ParseAmStart(
      "Starting: Intent { cmp=com.pkg/.Main }\n"
      "Status: ok\n"
      "Activity: com.pkg/.Main\n"
      "ThisTime: 640\n"
      "TotalTime: 797\n"
      "WaitTime: 815\n"
      "Complete\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->this_time_ms, 640);
  EXPECT_EQ(r->total_time_ms, 797);
  EXPECT_EQ(r->wait_time_ms, 815);
  EXPECT_EQ(r->intent, "Intent { cmp=com.pkg/.Main }");
  EXPECT_FALSE(r->launch_state.has_value());
}

// Android 11, START_PERMISSION_DENIED.
TEST(AmStartTest, Android11PermissionDenied) {
  auto r = ParseAmStart(
      "Starting: Intent { cmp=com.pkg/.Private }\n"
      "Error: Activity not started, you do not have permission to access it.\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->error, "Error: Activity not started, you do not have permission to access it.");
  EXPECT_FALSE(r->status.has_value());
  EXPECT_FALSE(r->complete);
}

// Android 6, Am.java: an exception reaches BaseCommand, which prints only its stack trace.
TEST(AmStartTest, Android6ExceptionWithoutHeader) {
  auto r = ParseAmStart(
      "Starting: Intent { cmp=com.pkg/.Private }\n"
      "java.lang.SecurityException: Permission Denial: starting Intent { cmp=com.pkg/.Private }"
      " from null (pid=4321, uid=2000) not exported from uid 10077\n"
      "\tat android.os.Parcel.readException(Parcel.java:1620)\n"
      "\tat com.android.commands.am.Am.runStart(Am.java:1123)\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->error,
            "java.lang.SecurityException: Permission Denial: starting Intent { "
            "cmp=com.pkg/.Private } from null (pid=4321, uid=2000) not exported from uid 10077");
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 10+ with -S: "Stopping: pkg" comes first, and each launch state is kept as printed.
TEST(AmStartTest, StoppingLineAndRelaunchState) {
  auto r = ParseAmStart(
      "Stopping: com.pkg\n"
      "Starting: Intent { cmp=com.pkg/.Main }\n"
      "Status: ok\n"
      "LaunchState: RELAUNCH\n"
      "Activity: com.pkg/.Main\n"
      "TotalTime: 310\n"
      "WaitTime: 322\n"
      "Complete\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->launch_state, "RELAUNCH");
  EXPECT_EQ(r->total_time_ms, 310);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// -R 2: two blocks; the last launch's values are kept.
TEST(AmStartTest, RepeatKeepsLastBlock) {
  auto r = ParseAmStart(
      "Starting: Intent { cmp=com.pkg/.Main }\nStatus: ok\nLaunchState: COLD\n"
      "Activity: com.pkg/.Main\nTotalTime: 900\nWaitTime: 910\nComplete\n"
      "Starting: Intent { cmp=com.pkg/.Main }\nStatus: ok\nLaunchState: WARM\n"
      "Activity: com.pkg/.Main\nTotalTime: 300\nWaitTime: 305\nComplete\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->launch_state, "WARM");
  EXPECT_EQ(r->total_time_ms, 300);
  EXPECT_EQ(r->wait_time_ms, 305);
}

TEST(AmStartTest, UnknownAndBadLinesAreCounted) {
  auto r = ParseAmStart(
      "Starting: Intent { cmp=com.pkg/.Main }\n"
      "Status: ok\n"
      "some vendor debug line\n"
      "TotalTime: 12ab\n"
      "WaitTime: 50\n"
      "\n"
      "Complete\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->skipped_lines, 2u);  // the vendor line and the bad TotalTime; not the blank
  EXPECT_FALSE(r->total_time_ms.has_value());
  EXPECT_EQ(r->wait_time_ms, 50);
  EXPECT_TRUE(r->complete);
}

TEST(AmStartTest, NoAmLinesIsNotThisFormat) {
  for (std::string_view text : {"hello\nworld\n", "/system/bin/sh: am: not found\n",
                                "[ro.build.version.sdk]: [33]\n", "Completed\nStatusbar\n"}) {
    auto r = ParseAmStart(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat) << text;
  }
}

TEST(AmStartTest, EmptyOutput) {
  EXPECT_EQ(ParseAmStart("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseAmStart("\n\r\n  \n").error().code, ParseErrorCode::kEmpty);
}

}  // namespace
}  // namespace droidlab::parsers
