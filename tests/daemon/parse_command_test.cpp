// The `droidlab parse` contract of API.md, checked the way a script sees it: the real binary,
// its exit code, its stdout as JSON and its stderr.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"
#include "tests/daemon/parse_command_fixture.h"

namespace droidlab {
namespace {

using nlohmann::json;
using testutil::ProcessResult;
using testutil::RunProcess;

class ParseCommandTest : public testutil::ParseCommandFixture {};

// Android 13 threadtime, ActivityMetricsLogger.logAppDisplayed / ActivityStarter / ProcessList.
constexpr const char* kLogcat =
    "--------- beginning of main\n"
    "11-22 10:01:02.100  1234  1260 I ActivityTaskManager: START u0 "
    "{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10000000 "
    "cmp=com.example.app/.MainActivity} from uid 2000\r\n"
    "11-22 10:01:02.150  1234  1290 I ActivityManager: Start proc "
    "4321:com.example.app/u0a123 for pre-top-activity {com.example.app/com.example.app.MainActivity}\n"
    "11-22 10:01:02.200  4321  4321 I MyApp: Displayed com.fake/.X: +5ms\n"
    "11-22 10:01:02.897  1234  1281 I ActivityTaskManager: Displayed "
    "com.example.app/.MainActivity: +1s797ms";  // no final newline

TEST_F(ParseCommandTest, LogcatEventsWithEveryField) {
  ProcessResult r = Parse("logcat", WriteFile("a.txt", kLogcat));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["events"].size(), 3u) << r.out;
  EXPECT_EQ(doc["skipped_lines"], 0);

  const json& start = doc["events"][0];
  EXPECT_EQ(start["kind"], "activity_start");
  EXPECT_EQ(start["component"], "com.example.app/.MainActivity");
  EXPECT_EQ(start["activity"], "com.example.app.MainActivity");
  EXPECT_EQ(start["uid"], 2000);

  const json& proc = doc["events"][1];
  EXPECT_EQ(proc["kind"], "process_start");
  EXPECT_EQ(proc["process_pid"], 4321);
  EXPECT_EQ(proc["uid"], 10123);
  EXPECT_EQ(proc["package"], "com.example.app");
  EXPECT_EQ(proc["tag"], "ActivityManager");

  const json& displayed = doc["events"][2];
  EXPECT_EQ(displayed["kind"], "displayed");
  EXPECT_EQ(displayed["time"], "11-22 10:01:02.897");
  EXPECT_EQ(displayed["pid"], 1234);
  EXPECT_EQ(displayed["tid"], 1281);
  EXPECT_EQ(displayed["tag"], "ActivityTaskManager");
  EXPECT_EQ(displayed["package"], "com.example.app");
  EXPECT_EQ(displayed["duration_ms"], 1797);
  EXPECT_TRUE(displayed["total_ms"].is_null());
}

TEST_F(ParseCommandTest, LogcatFromStdinAndEmptyLogcatIsStillALogcat) {
  ProcessResult r = Parse("logcat", "-", kLogcat);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["events"].size(), 3u);

  r = Parse("logcat", WriteFile("empty.txt", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"events":[],"skipped_lines":0})"));
}

TEST_F(ParseCommandTest, MissingFileExitsTwoWithOneLine) {
  for (const char* kind : {"logcat", "looper-stats", "proc-stat", "am-start"}) {
    ProcessResult r = Parse(kind, dir_.File("nope.txt"));
    EXPECT_EQ(r.exit_code, 2) << kind;
    EXPECT_TRUE(r.out.empty()) << kind;
    EXPECT_NE(r.err.find("nope.txt: No such file or directory"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

TEST_F(ParseCommandTest, UnknownKindAndBadUsageExitTwo) {
  EXPECT_EQ(RunProcess({DROIDLAB_BINARY, "parse", "dmesg", "-"}).exit_code, 2);
  EXPECT_EQ(RunProcess({DROIDLAB_BINARY, "parse"}).exit_code, 2);
  EXPECT_EQ(RunProcess({DROIDLAB_BINARY, "frobnicate"}).exit_code, 2);
}

TEST_F(ParseCommandTest, InputOfAnotherKindExitsTwoWithAReason) {
  const std::string path = WriteFile("logcat.txt", kLogcat);
  for (const char* kind : {"looper-stats", "proc-stat", "am-start", "gfxinfo"}) {
    ProcessResult r = Parse(kind, path);
    EXPECT_EQ(r.exit_code, 2) << kind << ": " << r.out;
    EXPECT_TRUE(r.out.empty()) << kind;
    EXPECT_FALSE(r.err.empty()) << kind;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
}

// Android 10+, LooperStatsService.dump.
TEST_F(ParseCommandTest, LooperStatsEntriesKeepTheDumpsColumnNames) {
  const std::string dump =
      "Start time: 2019-06-12 14:33:05\n"
      "On battery time (ms): 1234\n"
      "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
      "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
      "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
      "exception_count\n"
      "com.example.app/u0a123,android.bg,com.android.server.am.ActivityManagerService$MainHandler,"
      "0x1,true,12,1,283,283,250,250,1,3,3,0\n"
      "-1,android.fg,android.os.Handler,com.android.server.Foo$1,false,5,5,10,4,9,3,5,0,0,1\n"
      "broken,row\n";
  ProcessResult r = Parse("looper-stats", WriteFile("ls.txt", dump));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["start_time"], "2019-06-12 14:33:05");
  EXPECT_EQ(doc["on_battery_time_ms"], 1234);
  EXPECT_EQ(doc["skipped_lines"], 1);
  ASSERT_EQ(doc["entries"].size(), 2u);
  const json& e = doc["entries"][0];
  EXPECT_EQ(e["work_source_uid"], "com.example.app/u0a123");
  EXPECT_EQ(e["package"], "com.example.app");
  EXPECT_EQ(e["uid"], 10123);
  EXPECT_EQ(e["handler_class"], "com.android.server.am.ActivityManagerService$MainHandler");
  EXPECT_EQ(e["is_interactive"], true);
  EXPECT_EQ(e["message_count"], 12);
  EXPECT_EQ(e["total_cpu_micros"], 250);
  EXPECT_EQ(e["exception_count"], 0);
  EXPECT_EQ(doc["entries"][1]["is_interactive"], false);
  EXPECT_EQ(doc["entries"][1]["exception_count"], 1);
}

// A dump cut off in the middle of its last row (device unplugged): LooperStatsService ends
// every row with '\n', so the cut row may hold a truncated number and is skipped, not trusted.
TEST_F(ParseCommandTest, LooperStatsRowCutOffAtTheEndIsSkipped) {
  const std::string dump =
      "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
      "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
      "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
      "exception_count\n"
      "-1,android.fg,android.os.Handler,com.android.server.Foo$1,false,5,5,10,4,9,3,5,0,0,1\n"
      "-1,android.bg,android.os.Handler,com.android.server.Bar$2,false,5,5,10,4,9,3,5,0,0,12";
  ProcessResult r = Parse("looper-stats", WriteFile("cut.txt", dump));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["entries"].size(), 1u);
  EXPECT_EQ(doc["entries"][0]["message_name"], "com.android.server.Foo$1");
  EXPECT_EQ(doc["skipped_lines"], 1);
}

TEST_F(ParseCommandTest, ProcStatCommWithSpacesAndParens) {
  // Linux fs/proc/array.c do_task_stat; comm "(a) b)" is legal (prctl PR_SET_NAME).
  const std::string line =
      "4321 ((a) b)) S 567 567 0 0 -1 1077952832 6380 0 0 0 52 17 0 0 10 -10 23 0 104858 "
      "15239241728 29366 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 3 0 0 0 0 "
      "0 0 0 0 0 0 0 0 0\n"
      "not a stat line\n";
  ProcessResult r = Parse("proc-stat", WriteFile("stat.txt", line));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["processes"].size(), 1u);
  const json& p = doc["processes"][0];
  EXPECT_EQ(p["pid"], 4321);
  EXPECT_EQ(p["comm"], "(a) b)");
  EXPECT_EQ(p["state"], "S");
  EXPECT_EQ(p["utime"], 52);
  EXPECT_EQ(p["stime"], 17);
  EXPECT_EQ(p["nice"], -10);
  EXPECT_EQ(p["num_threads"], 23);
  EXPECT_EQ(p["starttime"], 104858);
  EXPECT_EQ(p["rss"], 29366);
  EXPECT_EQ(doc["skipped_lines"], 1);
}

// Android 13, ActivityManagerShellCommand.runStartActivity.
TEST_F(ParseCommandTest, AmStartAllNullsWhereAbsent) {
  const std::string out =
      "Starting: Intent { cmp=com.example.app/.MainActivity }\n"
      "Status: ok\n"
      "LaunchState: COLD\n"
      "Activity: com.example.app/.MainActivity\n"
      "TotalTime: 797\n"
      "WaitTime: 800\n"
      "Complete\n";
  ProcessResult r = Parse("am-start", WriteFile("am.txt", out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["status"], "ok");
  EXPECT_EQ(doc["launch_state"], "COLD");
  EXPECT_EQ(doc["activity"], "com.example.app/.MainActivity");
  EXPECT_TRUE(doc["this_time_ms"].is_null());
  EXPECT_EQ(doc["total_time_ms"], 797);
  EXPECT_EQ(doc["wait_time_ms"], 800);
  EXPECT_EQ(doc["complete"], true);
  EXPECT_TRUE(doc["warning"].is_null());
  EXPECT_TRUE(doc["error"].is_null());
}

// Android 13–14 layout (tests/data/gfxinfo/, built from ProfileData.cpp's and FrameInfo.cpp's
// sequences): API.md's keys, the first block at the top, every block in "profiles".
TEST_F(ParseCommandTest, GfxinfoKeysProfilesAndFrames) {
  const std::string path =
      std::string(DROIDLAB_TEST_DATA_DIR) + "/gfxinfo/android14_windows_framestats_built.txt";
  ProcessResult r = Parse("gfxinfo", path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty());
  json doc = json::parse(r.out);
  std::vector<std::string> keys;  // in the printed order (json sorts its keys)
  const auto ordered = nlohmann::ordered_json::parse(r.out);
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  const std::vector<std::string> expected = {
      "package", "pid", "stats_since_ns", "total_frames", "janky_frames", "percentiles_ms",
      "gpu_percentiles_ms", "missed_vsync", "high_input_latency", "slow_ui_thread",
      "slow_bitmap_uploads", "slow_draw_commands", "frame_deadline_missed", "histogram", "frames",
      "profiles", "skipped_lines"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(doc["package"], "com.example.app");
  EXPECT_EQ(doc["pid"], 31337);
  EXPECT_EQ(doc["stats_since_ns"], 88000000000000);
  EXPECT_EQ(doc["total_frames"], 100);
  EXPECT_EQ(doc["janky_frames"], 6);
  EXPECT_EQ(doc["percentiles_ms"], json::parse(R"({"50":8,"90":12,"95":17,"99":40})"));
  EXPECT_EQ(doc["gpu_percentiles_ms"], json::parse(R"({"50":2,"90":4,"95":4,"99":8})"));
  EXPECT_EQ(doc["high_input_latency"], 31);
  EXPECT_EQ(doc["frame_deadline_missed"], 6);
  ASSERT_EQ(doc["histogram"].size(), 154u);
  EXPECT_EQ(doc["histogram"][0], json::parse("[5,10]"));
  // The process's rows: its window's block holds them (Android 10+ layout).
  ASSERT_EQ(doc["frames"].size(), 4u);
  EXPECT_EQ(doc["frames"][1]["FrameTimelineVsyncId"], 701);
  EXPECT_TRUE(doc["profiles"][0]["frames"].empty());
  EXPECT_EQ(doc["skipped_lines"], 0);

  ASSERT_EQ(doc["profiles"].size(), 3u);
  const json& window = doc["profiles"][1];
  EXPECT_EQ(window["total_frames"], 4);
  ASSERT_EQ(window["frames"].size(), 4u);
  const json& frame = window["frames"][2];
  EXPECT_EQ(frame.size(), 23u);
  EXPECT_EQ(frame["Flags"], 0);
  EXPECT_EQ(frame["IntendedVsync"], 88000622222222);
  EXPECT_EQ(frame["FrameCompleted"], 88000662222222);
  EXPECT_EQ(frame["FrameInterval"], 11111111);  // the 13–14 mislabel put back
  EXPECT_EQ(doc["profiles"][2]["package"], "com.example.app:sandboxed_process0");
}

// Android 6 (JankTracker.cpp): no 50th percentile, no histogram, no GPU lines, no deadline count.
TEST_F(ParseCommandTest, GfxinfoNullsWhereAVersionPrintsNothing) {
  const std::string dump =
      "** Graphics info for pid 9702 [com.android.chrome] **\n\n"
      "Stats since: 9656484850794ns\nTotal frames rendered: 3\nJanky frames: 2 (66.67%)\n"
      "90th percentile: 101ms\n95th percentile: 101ms\n99th percentile: 101ms\n"
      "Number Missed Vsync: 2\nNumber Slow UI thread: x\n";
  ProcessResult r = Parse("gfxinfo", "-", dump);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_TRUE(doc["percentiles_ms"]["50"].is_null());
  EXPECT_EQ(doc["percentiles_ms"]["99"], 101);
  EXPECT_TRUE(doc["gpu_percentiles_ms"].is_null());
  EXPECT_TRUE(doc["frame_deadline_missed"].is_null());
  EXPECT_TRUE(doc["slow_ui_thread"].is_null());
  EXPECT_EQ(doc["missed_vsync"], 2);
  EXPECT_TRUE(doc["histogram"].empty());
  EXPECT_EQ(doc["skipped_lines"], 1);
  EXPECT_EQ(doc["profiles"].size(), 1u);
}

// The gfxinfo document is written straight (daemon/parse_json.cpp), not through nlohmann: its
// bytes must be what nlohmann's ordered_json dumps for the same document, on every sample and on
// a block whose header names a column twice (ordered_json keeps the first place, the last value).
// (Column names are identifiers — the parser refuses others — so none needs an escape.)
TEST_F(ParseCommandTest, GfxinfoBytesAreNlohmannDumpOfTheSameDocument) {
  std::vector<std::string> paths;
  for (const char* name :
       {"android6_chrome_droid_monitor.txt", "android9_chrome_droid_monitor_excerpt.txt",
        "android10_gpu_framestats_built.txt", "android14_windows_framestats_built.txt"}) {
    paths.push_back(std::string(DROIDLAB_TEST_DATA_DIR) + "/gfxinfo/" + name);
  }
  paths.push_back(WriteFile(
      "dup.txt",
      "** Graphics info for pid 7 [com.dup] **\n\nStats since: 5ns\nTotal frames rendered: 2\n"
      "---PROFILEDATA---\nFlags,Vsync,Flags,Other,\n0,10,1,2,\n3,20,4,5,\n"
      "---PROFILEDATA---\n"));
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    ProcessResult r = Parse("gfxinfo", path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string body = r.out.substr(0, r.out.size() - 1);  // the final '\n'
    const auto doc = nlohmann::ordered_json::parse(body);
    EXPECT_EQ(body, doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  // Values of every length, written eight digits at a time (daemon/parse_json.cpp).
  const std::string wide = WriteFile(
      "wide.txt",
      "** Graphics info for pid 7 [com.wide] **\n\nStats since: 5ns\nTotal frames rendered: 2\n"
      "---PROFILEDATA---\nA,B,C,D,E,F,\n0,7,10,99999999,100000000,123456789012345,\n"
      "9999999999999999,10000000000000000,12345678901234567,9223372036854775807,1,100,\n"
      "---PROFILEDATA---\n");
  ProcessResult values = Parse("gfxinfo", wide);
  ASSERT_EQ(values.exit_code, 0) << values.err;
  EXPECT_NE(values.out.find(R"("frames":[{"A":0,"B":7,"C":10,"D":99999999,"E":100000000,)"
                            R"("F":123456789012345},{"A":9999999999999999,"B":10000000000000000,)"
                            R"("C":12345678901234567,"D":9223372036854775807,"E":1,"F":100}])"),
            std::string::npos)
      << values.out;
  ProcessResult dup = Parse("gfxinfo", paths.back());
  ASSERT_EQ(dup.exit_code, 0) << dup.err;
  EXPECT_NE(dup.out.find(R"("frames":[{"Flags":1,"Vsync":10,"Other":2},)"
                         R"({"Flags":4,"Vsync":20,"Other":5}])"),
            std::string::npos)
      << dup.out;
}

TEST_F(ParseCommandTest, GfxinfoWithoutProfileDataExitsTwo) {
  ProcessResult r = Parse("gfxinfo", "-",
                          "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n"
                          "No process found for: com.nope\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

// A line longer than the splitter's limit (64 KiB) is no logger entry: skipped, not read, and the
// lines around it are read as usual — also the last one, with no newline (LogcatReader::AddChunk).
TEST_F(ParseCommandTest, LogcatOverlongLinesAreSkipped) {
  std::string log = std::string(70'000, 'x') + "\n";
  log +=
      "11-22 10:01:02.897  1234  1281 I ActivityTaskManager: Displayed "
      "com.example.app/.MainActivity: +1s797ms\n";
  log += std::string(70'000, 'y');
  for (const std::string& path : {WriteFile("overlong.txt", log), std::string("-")}) {
    ProcessResult r = Parse("logcat", path, path == "-" ? log : "");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json doc = json::parse(r.out);
    ASSERT_EQ(doc["events"].size(), 1u);
    EXPECT_EQ(doc["events"][0]["duration_ms"], 1797);
    EXPECT_EQ(doc["skipped_lines"], 2);
  }
}

TEST_F(ParseCommandTest, InvalidUtf8AndNulBytesKeepTheJsonValid) {
  std::string line =
      "11-22 10:01:02.897  1234  1281 I ActivityTaskManager: Displayed "
      "com.example.app/.Main\xff\xfe: +797ms\n";
  line += std::string("\0\0garbage\n", 10);
  ProcessResult r = Parse("logcat", WriteFile("utf8.txt", line));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);  // throws on invalid JSON or invalid UTF-8
  EXPECT_EQ(doc["skipped_lines"], 1);
}

// 100 MB of random bytes: exit 0, no events, every non-blank line counted as skipped, in bounded
// time (ctest's TIMEOUT on this test) and bounded memory (bench/logcat_bench measures peak RSS).
TEST_F(ParseCommandTest, HundredMegabytesOfRandomBytes) {
  const size_t size = 100u << 20;
  std::string data(size, '\0');
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t v = rng();
    std::memcpy(&data[i], &v, 8);
  }
  // Blank lines (nothing but spaces, tabs and '\r') hold nothing to read: not skipped.
  uint64_t nonblank_lines = 0;
  bool blank = true;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\n') {
      if (!blank) ++nonblank_lines;
      blank = true;
    } else if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r') {
      blank = false;
    }
  }
  const std::string path = WriteFile("random.bin", data);
  data.clear();
  data.shrink_to_fit();

  ProcessResult r = Parse("logcat", path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_TRUE(doc["events"].empty());
  EXPECT_EQ(doc["skipped_lines"], nonblank_lines);

  r = Parse("looper-stats", path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(r.err.empty());

  r = Parse("proc-stat", path);
  EXPECT_EQ(r.exit_code, 2);
  r = Parse("am-start", path);
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace droidlab
