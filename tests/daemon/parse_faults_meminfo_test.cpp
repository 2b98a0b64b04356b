// `droidlab parse logcat` fault events and `droidlab parse meminfo` (API.md), the way a script
// sees them: the real binary, its exit code, its stdout as JSON and its stderr. Kept apart from
// parse_command_test.cpp, which covers the launch events and the other kinds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"
#include "tests/daemon/parse_command_fixture.h"
#include "tests/common/test_data.h"

namespace droidlab {
namespace {

using nlohmann::json;
using testutil::ProcessResult;
using testutil::ReadTestData;

class ParseFaultsMeminfoTest : public testutil::ParseCommandFixture {};

// Android 13 threadtime: a launch, an ANR (ProcessErrorStateRecord.appNotResponding), a Java
// crash (RuntimeInit) interleaved with another process, a slow dispatch (Looper.showSlowLog) and
// an am_anr (events buffer).
constexpr const char* kFaultsLogcat =
    "11-22 10:01:02.897  1234  1281 I ActivityTaskManager: Displayed "
    "com.example.app/.MainActivity: +1s797ms\n"
    "11-22 10:01:10.000  1234  1300 E ActivityManager: ANR in com.example.app "
    "(com.example.app/.MainActivity)\n"
    "11-22 10:01:10.000  1234  1300 E ActivityManager: PID: 4321\n"
    "11-22 10:01:10.000  1234  1300 E ActivityManager: Reason: Input dispatching timed out\n"
    "11-22 10:01:11.000  4321  4321 W Looper  : Slow dispatch took 512ms main "
    "h=android.app.ActivityThread$H c=null m=159\n"
    "11-22 10:01:12.000  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main\n"
    "11-22 10:01:12.001  5555  5555 I chatty  : uid=10001 identical 2 lines\n"
    "11-22 10:01:12.000  4321  4321 E AndroidRuntime: Process: com.example.app, PID: 4321\n"
    "11-22 10:01:12.000  4321  4321 E AndroidRuntime: java.lang.IllegalStateException: boom\n"
    "11-22 10:01:12.000  4321  4321 E AndroidRuntime: \tat com.example.app.Main.onCreate("
    "Main.java:10)\n"
    "11-22 10:01:13.000  1000  1199 I am_anr  : [0,4321,com.example.app,952745541,"
    "Input dispatching timed out (a, b)]\n";

TEST_F(ParseFaultsMeminfoTest, LogcatFaultEventsNextToLaunches) {
  ProcessResult r = Parse("logcat", WriteFile("faults.txt", kFaultsLogcat));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["skipped_lines"], 0);
  const json& ev = doc["events"];
  ASSERT_EQ(ev.size(), 5u) << r.out;
  EXPECT_EQ(ev[0]["kind"], "displayed");

  EXPECT_EQ(ev[1]["kind"], "anr");
  EXPECT_EQ(ev[1]["package"], "com.example.app");
  EXPECT_EQ(ev[1]["pid"], 4321);
  EXPECT_EQ(ev[1]["reason"], "Input dispatching timed out");
  EXPECT_EQ(ev[1]["component"], "com.example.app/.MainActivity");
  EXPECT_EQ(ev[1]["time"], "11-22 10:01:10.000");
  EXPECT_EQ(ev[1]["logger_pid"], 1234);

  EXPECT_EQ(ev[2]["kind"], "slow_dispatch");
  EXPECT_EQ(ev[2]["duration_ms"], 512);
  EXPECT_EQ(ev[2]["pid"], 4321);
  EXPECT_EQ(ev[2]["reason"], "main h=android.app.ActivityThread$H c=null m=159");
  EXPECT_FALSE(ev[2].contains("package"));  // the line does not say

  EXPECT_EQ(ev[3]["kind"], "anr");
  EXPECT_EQ(ev[3]["tag"], "am_anr");
  EXPECT_EQ(ev[3]["reason"], "Input dispatching timed out (a, b)");

  // The crash has a short stack: it completes at the end of the input.
  EXPECT_EQ(ev[4]["kind"], "crash");
  EXPECT_EQ(ev[4]["package"], "com.example.app");
  EXPECT_EQ(ev[4]["pid"], 4321);
  EXPECT_EQ(ev[4]["thread"], "main");
  EXPECT_EQ(ev[4]["reason"], "java.lang.IllegalStateException: boom");
  EXPECT_EQ(ev[4]["stack"], json::array({"\tat com.example.app.Main.onCreate(Main.java:10)"}));
}

// Free text from the device keeps its bytes through the JSON writer: quotes, backslashes and
// control characters escaped as nlohmann's dump escapes them (each value's dump is found in the
// output as is), DEL, '/' and valid UTF-8 passed through, an invalid byte made U+FFFD.
TEST_F(ParseFaultsMeminfoTest, LogcatFaultTextIsEscapedAsNlohmannDumpsIt) {
  const std::string message = "java.lang.IllegalStateException: \"q\" \\ a/b \x01\x1f\x7f \xc3\xa9";
  const std::string crash =
      "11-22 10:01:12.000  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main\n"
      "11-22 10:01:12.000  4321  4321 E AndroidRuntime: Process: com.example.app, PID: 4321\n"
      "11-22 10:01:12.000  4321  4321 E AndroidRuntime: " + message + "\n"
      "11-22 10:01:12.000  4321  4321 E AndroidRuntime: \tat x.Y.z(Y.java:1) \xff\n";
  ProcessResult r = Parse("logcat", WriteFile("escapes.txt", crash));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["events"].size(), 1u) << r.out;
  const json ev = doc["events"][0];
  EXPECT_EQ(ev["reason"], message);
  EXPECT_EQ(ev["stack"], json::array({"\tat x.Y.z(Y.java:1) \xef\xbf\xbd"}));
  EXPECT_NE(r.out.find("\"reason\":" + json(message).dump()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stack\":[\"\\tat x.Y.z(Y.java:1) \xef\xbf\xbd\"]"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\\u0001\\u001f\x7f"), std::string::npos) << r.out;

  // A byte to escape at every place of the text's last eight (the check reads 8 bytes at a time,
  // the last ones as a word of their own); then texts longer than the writer's 1 KiB buffer.
  std::string crashes;
  std::vector<std::string> reasons;
  for (int k = 0; k <= 18; ++k) {
    const size_t pad = k <= 16 ? static_cast<size_t>(k) : (k == 17 ? 1010 : 3000);
    reasons.push_back("java.lang.X: " + std::string(pad, 'a') + (k % 2 ? "\"" : "\x02") + "bc");
    const std::string header = "11-22 10:01:12.000  " + std::to_string(5000 + k) + "  " +
                               std::to_string(5000 + k) + " E AndroidRuntime: ";
    crashes += header + "FATAL EXCEPTION: main\n" + header + "Process: p, PID: " +
               std::to_string(5000 + k) + "\n" + header + reasons.back() + "\n";
  }
  r = Parse("logcat", WriteFile("tails.txt", crashes));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  ASSERT_EQ(doc["events"].size(), reasons.size()) << r.out;
  for (size_t k = 0; k < reasons.size(); ++k) {
    EXPECT_EQ(doc["events"][k]["reason"], reasons[k]);
    EXPECT_NE(r.out.find("\"reason\":" + json(reasons[k]).dump()), std::string::npos) << k;
  }
}

TEST_F(ParseFaultsMeminfoTest, LogcatRealNativeCrash) {
  ProcessResult r = Parse("logcat", "-", ReadTestData("logcat/android5_brief_native_crash.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["events"].size(), 1u) << r.out;
  EXPECT_EQ(doc["events"][0]["kind"], "native_crash");
  EXPECT_EQ(doc["events"][0]["package"], "com.XXXXX.xxx");
  EXPECT_EQ(doc["events"][0]["pid"], 5061);
  EXPECT_EQ(doc["events"][0]["tid"], 5637);
  EXPECT_EQ(doc["events"][0]["reason"],
            "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x30");
}

// Android 7-10, real dump (blanks collapsed by the post it comes from).
TEST_F(ParseFaultsMeminfoTest, MeminfoDocument) {
  ProcessResult r =
      Parse("meminfo", WriteFile("m.txt", ReadTestData("meminfo/android7_10_collapsed.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json want = json::parse(R"({
    "pid": 5049, "package": "com.android.home", "total_pss_kb": 135623, "total_rss_kb": null,
    "total_swap_pss_kb": 0,
    "summary": {"java_heap_kb": 7700, "native_heap_kb": 63204, "code_kb": 28140, "stack_kb": 56,
                "graphics_kb": 18636, "private_other_kb": 5528, "system_kb": 12359},
    "objects": {"views": 789, "view_root_impl": 1, "app_contexts": 8, "activities": 1,
                "assets": 13, "asset_managers": 0, "local_binders": 62, "proxy_binders": 40,
                "death_recipients": 2, "webviews": 0},
    "skipped_lines": 0})");
  EXPECT_EQ(json::parse(r.out), want) << r.out;
}

TEST_F(ParseFaultsMeminfoTest, MeminfoFromStdinWithNulls) {
  ProcessResult r = Parse("meminfo", "-", ReadTestData("meminfo/android6_chrome_table.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["total_pss_kb"], 8828);
  EXPECT_TRUE(doc["summary"]["java_heap_kb"].is_null());
  EXPECT_TRUE(doc["objects"]["views"].is_null());
}

// Android 11+, real: the Rss total and the summary's Pss column.
TEST_F(ParseFaultsMeminfoTest, MeminfoAndroid11PlusRss) {
  ProcessResult r = Parse("meminfo", "-", ReadTestData("meminfo/android11plus_settings.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["total_pss_kb"], 96354);
  EXPECT_EQ(doc["total_rss_kb"], 181492);
  EXPECT_EQ(doc["total_swap_pss_kb"], 68605);
  EXPECT_EQ(doc["summary"]["java_heap_kb"], 592);
  EXPECT_EQ(doc["objects"]["proxy_binders"], 117);
}

TEST_F(ParseFaultsMeminfoTest, MeminfoNoProcessOrNoMeminfoExitsTwoWithOneLine) {
  for (const std::string& text : {std::string("No process found for: com.gone\n"),
                                  std::string(kFaultsLogcat), std::string()}) {
    ProcessResult r = Parse("meminfo", WriteFile("x.txt", text));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(r.out.empty());
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  ProcessResult r = Parse("meminfo", WriteFile("gone.txt", "No process found for: com.gone\n"));
  EXPECT_NE(r.err.find("com.gone"), std::string::npos) << r.err;
  r = Parse("meminfo", dir_.File("missing.txt"));
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace droidlab
