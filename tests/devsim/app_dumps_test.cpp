// `dumpsys gfxinfo` and `dumpsys meminfo` of a simulated app per SDK, read back with droidlab's
// own gfxinfo parser (parsers/gfxinfo.h) or checked line by line against the AOSP code named at
// each test (frameworks/base unless said otherwise).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "parsers/gfxinfo.h"
#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using parsers::GfxinfoFramestats;
using parsers::GfxinfoProfile;

class AppDumpsTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk) {
    Scenario scenario = OnSdk(sdk);
    scenario.noise_lines_per_s = 0;
    for (PackageSpec& package : scenario.packages) {
      package.frames = {.per_launch = 30,
                        .per_input = 20,
                        .ms = 8,
                        .jank_every = 10,
                        .jank_ms = 40,
                        .refresh_hz = 60};
      package.memory.java_heap_kb = 11111;
      package.memory.native_heap_kb = 22222;
      package.memory.code_kb = 3333;
      package.memory.stack_kb = 444;
      package.memory.graphics_kb = 5555;
      package.memory.private_other_kb = 666;
      package.memory.system_kb = 7777;
      package.memory.swap_pss_kb = 88;
      package.memory.activities = 1;
      package.memory.activities_leak_per_launch = 2;
      package.memory.leaked_activity_kb = 500;
    }
    MakePhone(scenario);
  }
  parsers::Gfxinfo Gfxinfo(const std::string& args) {
    const std::string text = Sh("dumpsys gfxinfo " + std::string(kApp) + args).Stdout();
    auto parsed = parsers::ParseGfxinfo(text);
    EXPECT_TRUE(parsed.ok()) << text;
    return parsed.ok() ? *parsed : parsers::Gfxinfo{};
  }
};

class GfxinfoPerSdkTest : public AppDumpsTest, public ::testing::WithParamInterface<int> {};

// libs/hwui ProfileData.cpp (dump, findPercentile, the bucket layout) and JankTracker.cpp
// (dumpData, dumpFrames) of Android 9–14; FrameInfo.cpp's FrameInfoNames per version (16
// columns on 9–11, 21 on 12, 23 on 13–14 with FrameInterval and FrameStartTime mislabelled).
// A cold launch renders 30 frames and a tap 20: every 10th takes 40 ms (janky at 60 Hz), the
// rest 8 ms, so 50 frames, 5 janky, 50th percentile 8 ms and 90th–99th 40 ms.
TEST_P(GfxinfoPerSdkTest, LaunchAndTapFramesAsSet) {
  const int sdk = GetParam();
  ASSERT_NO_FATAL_FAILURE(Make(sdk));
  Sh("am start -W -n com.example.app/.MainActivity");
  Sh("input tap 540 1200");
  const parsers::Gfxinfo dump = Gfxinfo(" framestats");
  ASSERT_FALSE(dump.profiles.empty());
  EXPECT_EQ(dump.skipped_lines, 0u);
  const GfxinfoProfile& p = dump.profiles[0];
  EXPECT_EQ(p.package, kApp);
  EXPECT_EQ(p.total_frames, 50u);
  EXPECT_EQ(p.janky_frames, 5u);
  EXPECT_DOUBLE_EQ(*p.janky_percent, 10.0);
  EXPECT_EQ(p.percentiles_ms[0], 8);
  EXPECT_EQ(p.percentiles_ms[1], 40);
  EXPECT_EQ(p.percentiles_ms[2], 40);
  EXPECT_EQ(p.percentiles_ms[3], 40);
  EXPECT_EQ(p.slow_ui_thread, 5u);
  EXPECT_EQ(p.frame_deadline_missed, 5u);
  EXPECT_EQ(p.janky_frames_legacy.has_value(), sdk >= 31);
  EXPECT_EQ(p.gpu_percentiles_ms[0].has_value(), sdk >= 29);
  ASSERT_EQ(p.histogram.size(), 154u);
  EXPECT_EQ(p.histogram[3].ms, 8);
  EXPECT_EQ(p.histogram[3].count, 45);
  EXPECT_EQ(p.histogram[31].ms, 40);
  EXPECT_EQ(p.histogram[31].count, 5);

  const GfxinfoProfile& last = dump.profiles.back();
  ASSERT_EQ(last.framestats.size(), 1u);
  const GfxinfoFramestats& fs = last.framestats[0];
  EXPECT_EQ(fs.columns.size(), sdk <= 30 ? 16u : sdk <= 32 ? 21u : 23u);
  EXPECT_EQ(fs.names_corrected, sdk == 33 || sdk == 34);
  ASSERT_EQ(fs.rows.size(), 50u);
  const std::size_t start = *fs.Column("IntendedVsync");
  const std::size_t end = *fs.Column("FrameCompleted");
  for (std::size_t k = 0; k < fs.rows.size(); ++k) {
    const std::int64_t ms = (k + 1) % 10 == 0 ? 40 : 8;
    EXPECT_EQ(fs.rows[k][end] - fs.rows[k][start], ms * 1'000'000) << "row " << k;
    EXPECT_EQ(fs.rows[k][*fs.Column("Flags")], k == 0 ? 1 : 0) << "row " << k;
    if (k > 0) {
      EXPECT_GT(fs.rows[k][start], fs.rows[k - 1][end]);
    }
  }
  if (sdk >= 33) {
    // Read under its meaning (the parser swaps 13–14's labels back): the 60 Hz period.
    EXPECT_EQ(fs.rows[0][*fs.Column("FrameInterval")], 16'666'666);
  }
}

INSTANTIATE_TEST_SUITE_P(Android9To14, GfxinfoPerSdkTest,
                         ::testing::Values(28, 29, 30, 31, 32, 33, 34));

// JankTracker.cpp (Android 7) / ProfileData.cpp (8): no "Frame deadline missed", 14 columns.
TEST_F(AppDumpsTest, Android8FramestatsHaveFourteenColumns) {
  ASSERT_NO_FATAL_FAILURE(Make(27));
  Sh("am start -W -n com.example.app/.MainActivity");
  const parsers::Gfxinfo dump = Gfxinfo(" framestats");
  ASSERT_EQ(dump.profiles.size(), 1u);
  EXPECT_EQ(dump.profiles[0].total_frames, 30u);
  EXPECT_FALSE(dump.profiles[0].frame_deadline_missed.has_value());
  ASSERT_EQ(dump.profiles[0].framestats.size(), 1u);
  EXPECT_EQ(dump.profiles[0].framestats[0].columns.size(), 14u);
  EXPECT_EQ(dump.profiles[0].framestats[0].rows.size(), 30u);
}

// JankTracker.cpp of Android 6 (SDK 23): no 50th percentile, no HISTOGRAM; of 7 (SDK 24): both,
// and "Janky frames: 0 (nan%)" for no frames (dumpData divides without a guard) — after `reset`.
TEST_F(AppDumpsTest, Android6And7JankTrackerBlocks) {
  ASSERT_NO_FATAL_FAILURE(Make(23));
  Sh("am start -W -n com.example.app/.MainActivity");
  parsers::Gfxinfo dump = Gfxinfo("");
  ASSERT_EQ(dump.profiles.size(), 1u);
  EXPECT_EQ(dump.profiles[0].total_frames, 30u);
  EXPECT_EQ(dump.profiles[0].janky_frames, 3u);
  EXPECT_FALSE(dump.profiles[0].percentiles_ms[0].has_value());
  EXPECT_EQ(dump.profiles[0].percentiles_ms[1], 40);
  EXPECT_TRUE(dump.profiles[0].histogram.empty());

  ASSERT_NO_FATAL_FAILURE(Make(24));
  Sh("am start -W -n com.example.app/.MainActivity");
  Sh("dumpsys gfxinfo com.example.app reset");
  const std::string text = Sh("dumpsys gfxinfo com.example.app").Stdout();
  EXPECT_NE(text.find("\nJanky frames: 0 (nan%)\n"), std::string::npos) << text;
  dump = Gfxinfo("");
  ASSERT_EQ(dump.profiles.size(), 1u);
  EXPECT_EQ(dump.profiles[0].total_frames, 0u);
  EXPECT_TRUE(std::isnan(*dump.profiles[0].janky_percent));
  EXPECT_EQ(dump.profiles[0].histogram.size(), 154u);
}

// CanvasContext's frame ring holds 120 frames (RingBuffer<FrameInfo, 120>), ProfileData counts
// all; `reset` (DumpFlags::Reset, CanvasContext::resetFrameStats) prints, then clears both.
// Android 14.
TEST_F(AppDumpsTest, Android14RingKeeps120FramesAndResetClears) {
  ASSERT_NO_FATAL_FAILURE(Make(34));
  Sh("am start -W -n com.example.app/.MainActivity");
  for (int i = 0; i < 6; ++i) Sh("input swipe 100 1500 100 300 200");
  const parsers::Gfxinfo full = Gfxinfo(" framestats reset");
  ASSERT_FALSE(full.profiles.empty());
  EXPECT_EQ(full.profiles[0].total_frames, 150u);
  EXPECT_EQ(full.profiles[0].janky_frames, 15u);
  EXPECT_EQ(full.profiles.back().framestats.at(0).rows.size(), 120u);
  const parsers::Gfxinfo after = Gfxinfo(" framestats");
  ASSERT_FALSE(after.profiles.empty());
  EXPECT_EQ(after.profiles[0].total_frames, 0u);
  EXPECT_EQ(after.profiles.back().framestats.at(0).rows.size(), 0u);
  // The jank_every count goes on from the process's 150th frame: frames 160 and 170 are janky.
  Sh("input text hello%sworld");
  const parsers::Gfxinfo again = Gfxinfo("");
  EXPECT_EQ(again.profiles.at(0).total_frames, 20u);
  EXPECT_EQ(again.profiles.at(0).janky_frames, 2u);
}

// ActivityManagerService dumpGraphicsHardwareUsage / dumpApplicationMemoryUsage (Android 13):
// no process by that name.
TEST_F(AppDumpsTest, Android13NoProcessFound) {
  ASSERT_NO_FATAL_FAILURE(Make(33));
  EXPECT_EQ(Sh("dumpsys gfxinfo com.example.app").Stdout(),
            "No process found for: com.example.app\n");
  EXPECT_EQ(Sh("dumpsys meminfo com.example.app").Stdout(),
            "No process found for: com.example.app\n");
}

// The lines of `text` that start with `prefix` after leading blanks.
std::string Line(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, prefix.size(), prefix) == 0) return line;
  }
  return "";
}

// ActivityThread.java dumpMemInfoTable, Android 9 and 10: no Rss column; App Summary "Pss(KB)" only,
// "TOTAL:" beside "TOTAL SWAP PSS:" (printRow's "%21s %8d %21s %8d").
TEST_F(AppDumpsTest, Android9And10MeminfoSummaryWithoutRss) {
  ASSERT_NO_FATAL_FAILURE(Make(28));
  Sh("am start -W -n com.example.app/.MainActivity");
  const std::string text = Sh("dumpsys meminfo com.example.app").Stdout();
  EXPECT_TRUE(text.starts_with("Applications Memory Usage (in Kilobytes):\nUptime: ")) << text;
  EXPECT_NE(text.find("\n** MEMINFO in pid "), std::string::npos);
  EXPECT_EQ(Line(text, "Pss  Private"),
            "                   Pss  Private  Private  SwapPss     Heap     Heap     Heap");
  EXPECT_EQ(Line(text, "Java Heap:"), "           Java Heap:    11111");
  EXPECT_EQ(Line(text, "Native Heap:"), "         Native Heap:    22222");
  EXPECT_EQ(Line(text, "Code:"), "                Code:     3333");
  EXPECT_EQ(Line(text, "Stack:"), "               Stack:      444");
  EXPECT_EQ(Line(text, "Graphics:"), "            Graphics:     5555");
  EXPECT_EQ(Line(text, "Private Other:"), "       Private Other:      666");
  EXPECT_EQ(Line(text, "System:"), "              System:     7777");
  // TOTAL = the summary's sum; the swapped-out Pss is part of it (MemoryInfo.getTotalPss).
  EXPECT_EQ(Line(text, "TOTAL:"), "               TOTAL:    51108       TOTAL SWAP PSS:       88");
  EXPECT_TRUE(Line(text, "TOTAL ").starts_with("        TOTAL    51108")) << text;
  EXPECT_EQ(Line(text, "AppContexts:"),
            "         AppContexts:        3           Activities:        1");
  // Android 10 still prints no Rss.
  ASSERT_NO_FATAL_FAILURE(Make(29));
  Sh("am start -W -n com.example.app/.MainActivity");
  EXPECT_EQ(Line(Sh("dumpsys meminfo com.example.app").Stdout(), "Pss(KB)"),
            "                       Pss(KB)");
}

// Android 11–14 (dumpMemInfoTable with Rss): "Rss Total" column, the summary's Rss(KB) column
// and "TOTAL PSS: … TOTAL RSS: … TOTAL SWAP PSS: …" ("%21s %8d %21s %8d %21s %8d"). Each launch
// into the running process leaks activities_leak_per_launch Activities, each keeping
// leaked_activity_kb of Java heap.
TEST_F(AppDumpsTest, Android14MeminfoWithRssAndLeakingActivities) {
  ASSERT_NO_FATAL_FAILURE(Make(34));
  Sh("am start -W -n com.example.app/.MainActivity");
  std::string text = Sh("dumpsys meminfo com.example.app").Stdout();
  EXPECT_EQ(
      Line(text, "Pss  Private"),
      "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap");
  EXPECT_EQ(Line(text, "Pss(KB)"), "                       Pss(KB)                        Rss(KB)");
  EXPECT_TRUE(Line(text, "Java Heap:").starts_with("           Java Heap:    11111 "));
  EXPECT_TRUE(
      Line(text, "TOTAL PSS:").starts_with("           TOTAL PSS:    51108            TOTAL RSS: "))
      << text;
  EXPECT_TRUE(Line(text, "TOTAL PSS:").ends_with("       TOTAL SWAP PSS:       88"));
  EXPECT_EQ(Line(text, "AppContexts:"),
            "         AppContexts:        3           Activities:        1");
  Sh("input keyevent KEYCODE_BACK");
  Sh("am start -W -n com.example.app/.MainActivity");
  Sh("input keyevent KEYCODE_HOME");
  Sh("am start -W -n com.example.app/.MainActivity");
  text = Sh("dumpsys meminfo com.example.app").Stdout();
  EXPECT_EQ(Line(text, "AppContexts:"),
            "         AppContexts:        3           Activities:        5");
  // The 4 leaked Activities keep 500 KiB of Java heap each: 11111 + 2000, the total 2000 more.
  EXPECT_TRUE(Line(text, "Java Heap:").starts_with("           Java Heap:    13111 ")) << text;
  EXPECT_TRUE(Line(text, "TOTAL PSS:").starts_with("           TOTAL PSS:    53108 ")) << text;
  EXPECT_TRUE(Line(text, "System:").ends_with("System:     7777")) << text;
  // A new process starts without the leak.
  Sh("am force-stop com.example.app");
  Sh("am start -W -n com.example.app/.MainActivity");
  text = Sh("dumpsys meminfo com.example.app").Stdout();
  EXPECT_EQ(Line(text, "AppContexts:"),
            "         AppContexts:        3           Activities:        1");
  EXPECT_TRUE(Line(text, "Java Heap:").starts_with("           Java Heap:    11111 ")) << text;
}

}  // namespace
}  // namespace droidlab::devsim
