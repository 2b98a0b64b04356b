// `dumpsys gfxinfo PKG [framestats]`: the jank block of libs/hwui/JankTracker.cpp (Android 6–7)
// and libs/hwui/ProfileData.cpp dump (8+), the framestats CSV of libs/hwui/FrameInfo.cpp's
// FrameInfoNames (printed by CanvasContext / JankTracker dumpFrames), under
// ActivityManagerService's "** Graphics info for pid N [PKG] **". Per Android version.
#include "parsers/gfxinfo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

int64_t HistogramTotal(const std::vector<GfxinfoHistogramBucket>& h) {
  return std::accumulate(
      h.begin(), h.end(), int64_t{0},
      [](int64_t sum, const GfxinfoHistogramBucket& b) { return sum + b.count; });
}

// Android 6 (real, Chrome): JankTracker's own dump — 90/95/99th only, no histogram.
TEST(GfxinfoTest, Android6NoMedianNoHistogram) {
  auto r = ParseGfxinfo(ReadTestData("gfxinfo/android6_chrome_droid_monitor.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  const GfxinfoProfile& p = r->profiles[0];
  EXPECT_EQ(p.package, "com.android.chrome");
  EXPECT_EQ(p.pid, 9702);
  EXPECT_EQ(p.stats_since_ns, 9656484850794u);
  EXPECT_EQ(p.total_frames, 3u);
  EXPECT_EQ(p.janky_frames, 2u);
  EXPECT_DOUBLE_EQ(*p.janky_percent, 66.67);
  EXPECT_FALSE(p.percentiles_ms[0].has_value());  // no 50th before Android 7
  EXPECT_EQ(p.percentiles_ms[1], 101);
  EXPECT_EQ(p.percentiles_ms[3], 101);
  EXPECT_EQ(p.missed_vsync, 2u);
  EXPECT_EQ(p.high_input_latency, 0u);
  EXPECT_EQ(p.slow_ui_thread, 2u);
  EXPECT_EQ(p.slow_bitmap_uploads, 0u);
  EXPECT_EQ(p.slow_draw_commands, 1u);
  EXPECT_FALSE(p.frame_deadline_missed.has_value());
  EXPECT_TRUE(p.histogram.empty());
  EXPECT_FALSE(p.gpu_percentiles_ms[0].has_value());
  EXPECT_TRUE(p.framestats.empty());
  // Caches and memory lines are another section's, not skipped profile lines.
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 9 (real, Chrome; the paste is cut inside the histogram after 2100ms).
TEST(GfxinfoTest, Android9MedianHistogramDeadlineMissed) {
  auto r = ParseGfxinfo(ReadTestData("gfxinfo/android9_chrome_droid_monitor_excerpt.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  const GfxinfoProfile& p = r->profiles[0];
  EXPECT_EQ(p.pid, 2720);
  EXPECT_EQ(p.total_frames, 43u);
  EXPECT_EQ(p.janky_frames, 7u);
  EXPECT_DOUBLE_EQ(*p.janky_percent, 16.28);
  EXPECT_EQ(p.percentiles_ms[0], 5);
  EXPECT_EQ(p.percentiles_ms[1], 69);
  EXPECT_EQ(p.percentiles_ms[2], 150);
  EXPECT_EQ(p.percentiles_ms[3], 200);
  EXPECT_EQ(p.high_input_latency, 14u);
  EXPECT_EQ(p.frame_deadline_missed, 5u);
  EXPECT_FALSE(p.frame_deadline_missed_legacy.has_value());
  ASSERT_EQ(p.histogram.size(), 97u);
  EXPECT_EQ(p.histogram[0].ms, 5);
  EXPECT_EQ(p.histogram[0].count, 33);
  EXPECT_EQ(p.histogram.back().ms, 2100);
  // Every rendered frame is in some bucket.
  EXPECT_EQ(HistogramTotal(p.histogram), 43);
  EXPECT_TRUE(p.gpu_histogram.empty());
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 10 (built from ProfileData.cpp's dprintf sequence): GPU percentiles and histogram,
// 16 framestats columns (DequeueBufferDuration, QueueBufferDuration), a Flags=1 first frame.
TEST(GfxinfoTest, Android10GpuAndSixteenColumnFramestats) {
  auto r = ParseGfxinfo(ReadTestData("gfxinfo/android10_gpu_framestats_built.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  const GfxinfoProfile& p = r->profiles[0];
  EXPECT_EQ(p.total_frames, 120u);
  EXPECT_EQ(p.gpu_percentiles_ms[0], 2);
  EXPECT_EQ(p.gpu_percentiles_ms[3], 9);
  ASSERT_EQ(p.histogram.size(), 154u);  // 57 fine buckets + 97 slow ones, ProfileData's layout
  EXPECT_EQ(p.histogram[28].ms, 34);    // 2 ms steps after 32
  EXPECT_EQ(p.histogram[36].ms, 53);    // 4 ms steps after 48
  EXPECT_EQ(p.histogram[57].ms, 150);
  EXPECT_EQ(HistogramTotal(p.histogram), 120);
  ASSERT_EQ(p.gpu_histogram.size(), 26u);
  EXPECT_EQ(p.gpu_histogram.back().ms, 4950);
  EXPECT_EQ(HistogramTotal(p.gpu_histogram), 120);
  ASSERT_EQ(p.framestats.size(), 1u);
  const GfxinfoFramestats& fs = p.framestats[0];
  ASSERT_EQ(fs.columns.size(), 16u);  // the trailing ',' is no 17th column
  EXPECT_EQ(fs.columns[3], "OldestInputEvent");
  EXPECT_FALSE(fs.names_corrected);
  EXPECT_FALSE(fs.Column("FrameInterval").has_value());
  ASSERT_EQ(fs.rows.size(), 3u);
  EXPECT_EQ(fs.rows[0][*fs.Column("Flags")], 1);
  EXPECT_EQ(fs.rows[0][3], INT64_MAX);  // OldestInputEvent's "no input" value
  EXPECT_EQ(fs.rows[2][*fs.Column("FrameCompleted")] - fs.rows[2][*fs.Column("IntendedVsync")],
            36'666'666);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 14 layout (built): a process block, a window's block ("Window: …", 9+) with the
// 23-column framestats, and a second process of the app (a sandboxed renderer) with 0 frames.
TEST(GfxinfoTest, Android14WindowsLegacyAndSandboxedProcess) {
  auto r = ParseGfxinfo(ReadTestData("gfxinfo/android14_windows_framestats_built.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 3u);
  const GfxinfoProfile& app = r->profiles[0];
  EXPECT_EQ(app.pid, 31337);
  EXPECT_FALSE(app.description.has_value());
  EXPECT_EQ(app.janky_frames, 6u);
  EXPECT_EQ(app.janky_frames_legacy, 10u);
  EXPECT_DOUBLE_EQ(*app.janky_percent_legacy, 10.0);
  EXPECT_EQ(app.frame_deadline_missed, 6u);
  EXPECT_EQ(app.frame_deadline_missed_legacy, 10u);
  EXPECT_EQ(HistogramTotal(app.histogram), 100);
  EXPECT_TRUE(app.framestats.empty());  // printed after the window's block: the window's

  const GfxinfoProfile& window = r->profiles[1];
  EXPECT_EQ(window.pid, 31337);
  EXPECT_EQ(window.description, "com.example.app/com.example.app.MainActivity");
  EXPECT_EQ(window.stats_since_ns, 88000500000000u);
  EXPECT_EQ(window.total_frames, 4u);
  EXPECT_EQ(window.percentiles_ms[1], 40);
  ASSERT_EQ(window.framestats.size(), 1u);
  const GfxinfoFramestats& fs = window.framestats[0];
  EXPECT_EQ(fs.columns.size(), 23u);
  ASSERT_EQ(fs.rows.size(), 4u);
  // The 13–14 header says FrameInterval,FrameStartTime over values in the other order.
  EXPECT_TRUE(fs.names_corrected);
  EXPECT_EQ(fs.rows[1][*fs.Column("FrameInterval")], 11'111'111);
  EXPECT_EQ(fs.rows[1][*fs.Column("FrameStartTime")], 88000611150000);

  const GfxinfoProfile& sandbox = r->profiles[2];
  EXPECT_EQ(sandbox.pid, 31402);
  EXPECT_EQ(sandbox.package, "com.example.app:sandboxed_process0");
  EXPECT_EQ(sandbox.total_frames, 0u);
  EXPECT_DOUBLE_EQ(*sandbox.janky_percent, 0.0);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 13 (real rows, SoloX issue 249, under a header built from ProfileData's sequence): the
// paste cuts the fourth row inside its last value ("…,2"): 23 fields still, but no final ',', so
// it is known to be cut and is skipped.
TEST(GfxinfoTest, Android13RealRowsNamesCorrectedAndCutRowSkipped) {
  const std::string dump =
      "** Graphics info for pid 8123 [com.example.game] **\n\n"
      "Stats since: 255000000000ns\nTotal frames rendered: 4\nJanky frames: 0 (0.00%)\n" +
      ReadTestData("gfxinfo/android13_framestats_solox_rows.txt");
  auto r = ParseGfxinfo(dump);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  ASSERT_EQ(r->profiles[0].framestats.size(), 1u);
  const GfxinfoFramestats& fs = r->profiles[0].framestats[0];
  ASSERT_EQ(fs.rows.size(), 3u);
  EXPECT_EQ(r->skipped_lines, 1u);
  EXPECT_TRUE(fs.names_corrected);
  EXPECT_EQ(fs.rows[0][*fs.Column("FrameInterval")], 16656453);
  EXPECT_EQ(fs.rows[0][*fs.Column("FrameStartTime")], 255188826099);
  EXPECT_EQ(fs.rows[0][*fs.Column("FrameTimelineVsyncId")], 53499);
  EXPECT_EQ(fs.rows[2][*fs.Column("FrameCompleted")], 255225199953);
  EXPECT_EQ(fs.rows[2][*fs.Column("CommandSubmissionCompleted")], 255223506151);
}

// Android 6's framestats (14 columns: Oldest/NewestInputEvent, no Dequeue/Queue durations), read
// by name whatever the width.
TEST(GfxinfoTest, Android6FourteenColumnsAndColumnsReadByName) {
  auto r = ParseGfxinfo(
      "** Graphics info for pid 1 [a.b] **\n"
      "Stats since: 5ns\nTotal frames rendered: 2\n"
      "---PROFILEDATA---\n"
      "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,"
      "AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,"
      "IssueDrawCommandsStart,SwapBuffers,FrameCompleted,\n"
      "0,100,100,0,0,110,120,130,140,150,160,170,180,190,\n"
      "---PROFILEDATA---\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const GfxinfoFramestats& fs = r->profiles[0].framestats[0];
  EXPECT_EQ(fs.columns.size(), 14u);
  EXPECT_EQ(fs.rows[0][*fs.Column("FrameCompleted")], 190);
  EXPECT_FALSE(fs.Column("DequeueBufferDuration").has_value());
}

TEST(GfxinfoTest, BadLinesInsideBlocksAreCounted) {
  auto r = ParseGfxinfo(
      "** Graphics info for pid 7 [p] **\n"
      "Stats since: 12ns\n"
      "Total frames rendered: 10\n"
      "Janky frames: x (1.00%)\n"       // 1: not a count
      "90th percentile: 12\n"           // 2: no "ms"
      "42th percentile: 12ms\n"         // 3: not a percentile hwui prints
      "Number Slow teleport: 4\n"       // 4: unknown jank type
      "Number Missed Vsync: -1\n"       // 5: negative count
      "HISTOGRAM: 5ms=1 6ms=x 7ms=2\n"  // 6: one bad bucket (the others kept)
      "---PROFILEDATA---\n"
      "Flags,IntendedVsync,FrameCompleted,\n"
      "0,1,2,\n"
      "0,1,\n"                      // 7: one field short
      "0,1,2,3,\n"                  // 8: one field over
      "0,abc,2,\n"                  // 9: not an integer
      "0,9223372036854775808,2,\n"  // 10: overflows int64
      "0,5,6,\n"
      "0,5,6\n"    // 11: no final ',': cut, the 6 may be 6xx
      "0,-1,7,\n"  // kept: -1, a time the version has not got
      "0,+1,2,\n"  // 12: a '+' is no number FrameInfo prints
      "0,1 ,2,\n"  // 13: a blank
      "0,,2,\n"    // 14: an empty field
      "---PROFILEDATA---\n"
      "Caches:\n"  // another section: not counted
      "  TextureCache 1 / 2\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const GfxinfoProfile& p = r->profiles[0];
  EXPECT_FALSE(p.janky_frames.has_value());
  EXPECT_FALSE(p.percentiles_ms[1].has_value());
  EXPECT_FALSE(p.missed_vsync.has_value());
  ASSERT_EQ(p.histogram.size(), 2u);
  EXPECT_EQ(p.histogram[1].ms, 7);
  ASSERT_EQ(p.framestats[0].rows.size(), 3u);
  EXPECT_EQ(p.framestats[0].rows[1][2], 6);
  const auto last = p.framestats[0].rows[2];
  EXPECT_EQ(std::vector<int64_t>(last.begin(), last.end()), (std::vector<int64_t>{0, -1, 7}));
  EXPECT_EQ(r->skipped_lines, 14u);
}

TEST(GfxinfoTest, BadHeaderSkipsItsRowsAndCutBlockKeepsItsRows) {
  auto r = ParseGfxinfo(
      "Total frames rendered: 1\n"
      "---PROFILEDATA---\n"
      "Flags,Intended Vsync,\n"  // a name with a blank: no header to read rows by
      "0,1,\n"
      "---PROFILEDATA---\n"
      "---PROFILEDATA---\n"
      "Flags,IntendedVsync,\n"
      "0,1,\n");  // cut before the closing marker
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  EXPECT_FALSE(r->profiles[0].pid.has_value());  // a paste without the process header
  ASSERT_EQ(r->profiles[0].framestats.size(), 1u);
  EXPECT_EQ(r->profiles[0].framestats[0].rows.size(), 1u);
  EXPECT_EQ(r->skipped_lines, 2u);
}

// A block with no "Total frames rendered" is counted as its first line and its rows — once: a
// start line that was itself unreadable is already counted. Found by fuzz_gfxinfo (CI, stop 29):
// three bad "Stats since" lines and one good block reported 6 skipped lines of 4.
TEST(GfxinfoTest, AnUnreadableStartLineOfABlockWithNoTotalIsCountedOnce) {
  auto r = ParseGfxinfo(
      "Stats since: 1\n"            // no "ns": unreadable, and its block has no total
      "Stats since: xns\n"          // not a number
      "Total frames rendered: x\n"  // starts a block, unreadable
      "Stats since: 5ns\n"          // readable, but its block has no total either
      "Stats since: 6ns\n"
      "Total frames rendered: 1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  EXPECT_EQ(r->profiles[0].stats_since_ns, 6u);
  EXPECT_EQ(r->skipped_lines, 4u);
}

// Framestats printed before any stats block of their process belong to the next block; those of
// a process with no block at all are counted.
TEST(GfxinfoTest, FramestatsWithoutAProfileBlock) {
  auto r = ParseGfxinfo(
      "** Graphics info for pid 1 [a] **\n"
      "---PROFILEDATA---\nFlags,X,\n0,1,\n0,2,\n---PROFILEDATA---\n"
      "** Graphics info for pid 2 [a] **\n"
      "---PROFILEDATA---\nFlags,X,\n0,3,\n---PROFILEDATA---\n"
      "Stats since: 1ns\nTotal frames rendered: 1\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->profiles.size(), 1u);
  EXPECT_EQ(r->profiles[0].pid, 2);
  ASSERT_EQ(r->profiles[0].framestats.size(), 1u);
  EXPECT_EQ(r->profiles[0].framestats[0].rows[0][1], 3);
  EXPECT_EQ(r->skipped_lines, 2u);  // pid 1's two rows
}

TEST(GfxinfoTest, NoProfileDataIsAnError) {
  EXPECT_EQ(ParseGfxinfo("").error().code, ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParseGfxinfo("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n")
                .error()
                .code,
            ParseErrorCode::kNotThisFormat);
  // Stats cut before "Total frames rendered": no profile.
  EXPECT_EQ(ParseGfxinfo("** Graphics info for pid 3 [x] **\nStats since: 1ns\n").error().code,
            ParseErrorCode::kNotThisFormat);
  auto missing = ParseGfxinfo(
      "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n"
      "No process found for: com.nope\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ParseErrorCode::kServiceMissing);
  EXPECT_FALSE(missing.error().message.empty());
}

// Android 6–7's JankTracker::dumpData divides by totalFrameCount unguarded: with no frames it
// prints "nan%" (or "-nan%", the sign of the default NaN depends on the CPU). ProfileData (8+)
// prints 0.00. Android 7 may also print "Note: Data has been filtered!" before the block.
TEST(GfxinfoTest, Android7NoFramesPrintsNan) {
  for (const char* nan : {"nan", "-nan"}) {
    auto r = ParseGfxinfo(std::string("** Graphics info for pid 5 [a.b] **\n"
                                      "Note: Data has been filtered!\n"
                                      "Stats since: 77ns\nTotal frames rendered: 0\n"
                                      "Janky frames: 0 (") +
                          nan + "%)\n50th percentile: 0ms\nHISTOGRAM: 5ms=0 6ms=0\n");
    ASSERT_TRUE(r.ok()) << r.error().message;
    const GfxinfoProfile& p = r->profiles[0];
    EXPECT_EQ(p.stats_since_ns, 77u);
    EXPECT_EQ(p.janky_frames, 0u);
    ASSERT_TRUE(p.janky_percent.has_value());
    EXPECT_TRUE(std::isnan(*p.janky_percent));
    EXPECT_EQ(p.percentiles_ms[0], 0);
    EXPECT_EQ(r->skipped_lines, 0u) << nan;
  }
}

TEST(GfxinfoTest, CrlfAndAnEarlySlowDrawName) {
  // mapbox-gl-native PR 9616's Android 6-era paste names the last type "Slow draw".
  auto r = ParseGfxinfo(
      "Stats since: 752958278148ns\r\nTotal frames rendered: 82189\r\n"
      "Janky frames: 35335 (42.99%)\r\nNumber Slow draw: 23342\r\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->profiles[0].stats_since_ns, 752958278148u);
  EXPECT_EQ(r->profiles[0].slow_draw_commands, 23342u);
  EXPECT_EQ(r->skipped_lines, 0u);
}

}  // namespace
}  // namespace droidlab::parsers
