// An iteration's frames from `dumpsys gfxinfo PKG framestats` (orchestrator/run/
// frames_collector.h): hwui's figures from the app's process block, droidlab's over the
// framestats rows of every block of that process, the rows kept under their header's names.
// The dump follows Android 14's print order (libs/hwui JankTracker / ProfileData,
// CanvasContext::dumpFrames: the process block, then each window's block with its rows;
// FrameInfoNames' swapped FrameInterval / FrameStartTime labels, put back by the parser).
#include "orchestrator/run/frames_collector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

using nlohmann::json;

TEST(FramesCollectorTest, TheAppsProcessFramesJudgedAndKeptAsPrinted) {
  auto dump = parsers::ParseGfxinfo(
      testutil::ReadTestData("gfxinfo/android14_windows_framestats_built.txt"));
  ASSERT_TRUE(dump) << dump.error().message;
  auto frames = IterationFramesOf(*dump, "com.example.app", 7, 3);
  ASSERT_TRUE(frames) << frames.error();
  EXPECT_EQ(frames->run_id, 7);
  EXPECT_EQ(frames->iteration, 3);
  // hwui's own, of the process (not the window's 4, nor the sandboxed process's 0).
  EXPECT_EQ(frames->total_frames, 100);
  EXPECT_EQ(frames->janky_frames, 6);
  EXPECT_EQ(frames->gfx_p50_ms, 8);
  EXPECT_EQ(frames->gfx_p99_ms, 40);
  // The window's four rows: the first has Flags 1 (a layout), left out; the others last
  // 8, 40 and 8 ms (FrameCompleted − IntendedVsync) at a 90 Hz FrameInterval (11.1 ms).
  EXPECT_EQ(frames->frame_rows, 4);
  EXPECT_EQ(frames->counted, 3);
  EXPECT_EQ(frames->refresh_period_ns, 11'111'111);
  EXPECT_DOUBLE_EQ(*frames->p50_ms, 8.0);
  EXPECT_DOUBLE_EQ(*frames->p90_ms, 8.0 + 0.8 * 32.0);  // type 7 over {8, 8, 40}
  EXPECT_EQ(frames->over_16_7ms, 1);
  EXPECT_EQ(frames->over_33ms, 1);
  EXPECT_EQ(frames->over_50ms, 0);
  // Matrix: round((40 − 11.1) / 11.1) = 3 dropped: "normal"; PerfDog: no frame has three before.
  EXPECT_EQ(frames->matrix_normal, 1);
  EXPECT_EQ(frames->dropped_frames, 3);
  EXPECT_EQ(frames->jank, 0);

  const json columns = json::parse(frames->columns_json);
  ASSERT_TRUE(columns.is_array());
  EXPECT_EQ(columns[0], "Flags");
  EXPECT_EQ(columns[10], "FrameStartTime");  // put back in the values' order
  EXPECT_EQ(columns[11], "FrameInterval");
  const json rows = json::parse(frames->rows_json);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1][0], 0);
  EXPECT_EQ(rows[1][11], 11'111'111);
  EXPECT_EQ(rows[1][2], 88000611111111);
}

TEST(FramesCollectorTest, ADumpWithoutThePackageHasNoFrames) {
  auto dump = parsers::ParseGfxinfo(
      testutil::ReadTestData("gfxinfo/android14_windows_framestats_built.txt"));
  ASSERT_TRUE(dump);
  auto none = IterationFramesOf(*dump, "com.other", 7, 1);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "gfxinfo has no profile data of com.other");
}

}  // namespace
}  // namespace droidlab::orchestrator
