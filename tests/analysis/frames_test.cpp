// analysis/frames.h: frame durations from framestats (FrameCompleted − IntendedVsync, Flags == 0),
// quantiles, fixed budgets, Matrix TraceCanary's dropped-frame levels, PerfDog's jank rule.
// Every expectation below is worked out by hand in its comment.
#include "analysis/frames.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace droidlab::analysis {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kVsync60 = 16'666'667;

// Frame i, meant for vsync `base + i × 60 Hz period`, lasting `duration_ns`.
FrameTiming Frame(int i, int64_t duration_ns, int64_t flags = 0, int64_t interval_ns = 0) {
  const int64_t intended = 1'000'000'000 + i * kVsync60;
  return FrameTiming{flags, intended, intended + duration_ns, interval_ns};
}

std::vector<FrameTiming> Durations(const std::vector<int64_t>& ns) {
  std::vector<FrameTiming> out;
  for (size_t i = 0; i < ns.size(); ++i) out.push_back(Frame(static_cast<int>(i), ns[i]));
  return out;
}

// 60 Hz, no FrameInterval (before Android 13). Counted durations in vsync order, ms:
// 10 12 14 20 40 100 11 200 30; a flagged 300 ms frame (the first frame, Flags=1) and a row with
// FrameCompleted == IntendedVsync are left out. Given in reverse, to check the vsync ordering.
TEST(FramesTest, SixtyHertzWithoutFrameInterval) {
  std::vector<FrameTiming> frames = {Frame(0, 10 * kMs),
                                     Frame(1, 12 * kMs),
                                     Frame(2, 14 * kMs),
                                     Frame(3, 20 * kMs),
                                     Frame(4, 40 * kMs),
                                     Frame(5, 100 * kMs),
                                     Frame(6, 300 * kMs, kFrameFlagWindowLayoutChanged),
                                     Frame(7, 11 * kMs),
                                     Frame(8, 200 * kMs),
                                     Frame(9, 0),
                                     Frame(10, 30 * kMs)};
  std::reverse(frames.begin(), frames.end());
  const FrameAnalysis a = AnalyzeFrames(frames);
  EXPECT_EQ(a.rows, 11u);
  EXPECT_EQ(a.flagged, 1u);
  EXPECT_EQ(a.invalid, 1u);
  EXPECT_EQ(a.counted, 9u);
  EXPECT_EQ(a.refresh_period_ns, kVsync60);
  EXPECT_FALSE(a.refresh_period_from_frames);
  // Sorted: 10 11 12 14 20 30 40 100 200; type 7, h = 8p.
  EXPECT_DOUBLE_EQ(*a.p50_ms, 20.0);   // h = 4
  EXPECT_DOUBLE_EQ(*a.p90_ms, 120.0);  // h = 7.2: 100 + 0.2 × 100
  EXPECT_DOUBLE_EQ(*a.p95_ms, 160.0);  // h = 7.6
  EXPECT_DOUBLE_EQ(*a.p99_ms, 192.0);  // h = 7.92
  EXPECT_EQ(a.over_16_7ms, 5u);        // 20 40 100 200 30
  EXPECT_EQ(a.over_33ms, 3u);          // 40 100 200
  EXPECT_EQ(a.over_50ms, 2u);          // 100 200
  EXPECT_EQ(a.over_1_vsync, 5u);       // the same at 60 Hz
  EXPECT_EQ(a.over_2_vsyncs, 3u);
  EXPECT_EQ(a.over_3_vsyncs, 2u);
  // round((d − T) / T), T = 16.666667 ms: 0 0 0 0.2→0 1.4→1 4.99999988→5 0 10.99999976→11
  // 0.8→1. (Matrix's pre-7 floor(d / T) would give 0 0 0 1 2 5 0 11 1.)
  EXPECT_EQ(a.matrix.best, 7u);
  EXPECT_EQ(a.matrix.normal, 1u);  // 5
  EXPECT_EQ(a.matrix.middle, 1u);  // 11
  EXPECT_EQ(a.matrix.high, 0u);
  EXPECT_EQ(a.matrix.frozen, 0u);
  EXPECT_EQ(a.matrix.dropped_frames, 18);
  // PerfDog: 40 > 2 × 46/3 but ≤ 84; 100 > 2 × 74/3 = 49.3 and > 84: jank; 200 > 2 × 151/3 =
  // 100.7 and > 125: big jank. The flagged 300 ms frame is not one of "the three before".
  EXPECT_EQ(a.perfdog.jank, 2u);
  EXPECT_EQ(a.perfdog.big_jank, 1u);
}

// 120 Hz with FrameInterval (Android 13+): Matrix divides by 8.333333 ms, not 16.67.
// Durations ms: 8 25 75 225 400 8; the last row's FrameInterval is a timestamp (a mislabelled
// 13–14 header read without correction), so it falls back to the period of the others.
TEST(FramesTest, OneTwentyHertzFromFrameInterval) {
  constexpr int64_t k120 = 8'333'333;
  std::vector<FrameTiming> frames = {
      Frame(0, 8 * kMs, 0, k120),   Frame(1, 25 * kMs, 0, k120),
      Frame(2, 75 * kMs, 0, k120),  Frame(3, 225 * kMs, 0, k120),
      Frame(4, 400 * kMs, 0, k120), Frame(5, 8 * kMs, 0, 255188826099)};
  const FrameAnalysis a = AnalyzeFrames(frames);
  EXPECT_EQ(a.counted, 6u);
  EXPECT_EQ(a.refresh_period_ns, k120);
  EXPECT_TRUE(a.refresh_period_from_frames);
  // round((d − T) / T): 0, 2.0000001 → 2, 8.0000004 → 8, 26.000001 → 26, 47.000002 → 47, 0.
  // At 60 Hz they would be 0 0 3 12 23 0: no high, no frozen.
  EXPECT_EQ(a.matrix.best, 3u);
  EXPECT_EQ(a.matrix.normal, 1u);
  EXPECT_EQ(a.matrix.middle, 0u);
  EXPECT_EQ(a.matrix.high, 1u);
  EXPECT_EQ(a.matrix.frozen, 1u);
  EXPECT_EQ(a.matrix.dropped_frames, 83);
  // 225 > 2 × 108/3 = 72 and > 125; 400 > 2 × 325/3 = 216.7 and > 125.
  EXPECT_EQ(a.perfdog.jank, 2u);
  EXPECT_EQ(a.perfdog.big_jank, 2u);
  EXPECT_EQ(a.over_16_7ms, 4u);
  EXPECT_EQ(a.over_50ms, 3u);
  // At 120 Hz: over 8.33, 16.67 and 24.999999 ms — 25 ms is three periods and a nanosecond.
  EXPECT_EQ(a.over_1_vsync, 4u);
  EXPECT_EQ(a.over_2_vsyncs, 4u);
  EXPECT_EQ(a.over_3_vsyncs, 4u);
}

// Before Android 13 the rows carry no FrameInterval: the display's period comes from the caller
// (dumpsys SurfaceFlinger --latency), and the budgets follow it. A period no display has (0, over
// 1 s) falls back to 60 Hz.
TEST(FramesTest, TheDisplaysPeriodSetsTheBudgetsWhenRowsHaveNone) {
  const auto ms = Durations({8 * kMs, 9 * kMs, 17 * kMs, 18 * kMs, 26 * kMs});
  const FrameAnalysis at120 = AnalyzeFrames(ms, 8'333'333);
  EXPECT_EQ(at120.refresh_period_ns, 8'333'333);
  EXPECT_FALSE(at120.refresh_period_from_frames);
  EXPECT_EQ(at120.over_1_vsync, 4u);   // 9 17 18 26
  EXPECT_EQ(at120.over_2_vsyncs, 3u);  // 17 18 26
  EXPECT_EQ(at120.over_3_vsyncs, 1u);  // 26
  EXPECT_EQ(at120.over_16_7ms, 3u);    // the fixed budgets do not move
  for (int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{2'000'000'000}, INT64_MAX}) {
    const FrameAnalysis a = AnalyzeFrames(ms, bad);
    EXPECT_EQ(a.refresh_period_ns, kVsync60) << bad;
    EXPECT_EQ(a.over_1_vsync, 3u) << bad;  // 17 18 26
  }
}

TEST(FramesTest, NothingCountedGivesNullQuantiles) {
  EXPECT_FALSE(AnalyzeFrames({}).p50_ms.has_value());
  const std::vector<FrameTiming> flagged = {Frame(0, 20 * kMs, kFrameFlagSkippedFrame),
                                            Frame(1, 20 * kMs, kFrameFlagRtAnimation),
                                            Frame(2, 20 * kMs, kFrameFlagSurfaceCanvas)};
  const FrameAnalysis a = AnalyzeFrames(flagged);
  EXPECT_EQ(a.flagged, 3u);
  EXPECT_EQ(a.counted, 0u);
  EXPECT_FALSE(a.p99_ms.has_value());
  EXPECT_EQ(a.matrix.best + a.matrix.frozen, 0u);
  EXPECT_EQ(a.refresh_period_ns, kVsync60);
}

// The rule's edges: "> 2 × mean" and "> 84 ms" / "> 125 ms" are strict.
TEST(FramesTest, PerfDogThresholdsAreStrict) {
  auto jank = [](std::vector<int64_t> ms) {
    for (auto& v : ms) v *= kMs;
    return AnalyzeFrames(Durations(ms)).perfdog;
  };
  EXPECT_EQ(jank({50, 50, 50, 100}).jank, 0u);  // exactly 2 × mean
  EXPECT_EQ(jank({50, 50, 50, 101}).jank, 1u);
  EXPECT_EQ(jank({10, 10, 10, 84}).jank, 0u);  // exactly 84 ms
  EXPECT_EQ(jank({10, 10, 10, 85}).jank, 1u);
  PerfDogJank at125 = jank({10, 10, 10, 125});
  EXPECT_EQ(at125.jank, 1u);
  EXPECT_EQ(at125.big_jank, 0u);
  EXPECT_EQ(jank({10, 10, 10, 126}).big_jank, 1u);
  EXPECT_EQ(jank({500, 500, 500}).jank, 0u);  // no frame has three before it
}

// Matrix's levels at their edges, with a 10 ms period: (d − T) / T = x.5 rounds up.
TEST(FramesTest, MatrixLevelEdges) {
  std::vector<int64_t> ns = {34'999'999,  35 * kMs,  94'999'999,  95 * kMs,
                             244'999'999, 245 * kMs, 424'999'999, 425 * kMs};
  const FrameAnalysis a = AnalyzeFrames(Durations(ns), 10 * kMs);
  // dropped: 2 3 8 9 23 24 41 42
  EXPECT_EQ(a.matrix.best, 1u);
  EXPECT_EQ(a.matrix.normal, 2u);
  EXPECT_EQ(a.matrix.middle, 2u);
  EXPECT_EQ(a.matrix.high, 2u);
  EXPECT_EQ(a.matrix.frozen, 1u);
  EXPECT_EQ(a.matrix.dropped_frames, 2 + 3 + 8 + 9 + 23 + 24 + 41 + 42);
  EXPECT_EQ(a.refresh_period_ns, 10 * kMs);
}

TEST(FramesTest, FixedBudgetsAreStrict) {
  const FrameAnalysis a = AnalyzeFrames(
      Durations({16'700'000, 16'700'001, 33 * kMs, 33 * kMs + 1, 50 * kMs, 50 * kMs + 1}));
  EXPECT_EQ(a.over_16_7ms, 5u);
  EXPECT_EQ(a.over_33ms, 3u);
  EXPECT_EQ(a.over_50ms, 1u);
}

// Rows are input: extreme timestamps must not overflow into a counted frame.
TEST(FramesTest, ExtremeRowsAreLeftOutOrCountedSafely) {
  const std::vector<FrameTiming> frames = {{0, -5, 10, 0},          // negative vsync: invalid
                                           {0, 0, INT64_MAX, 0},    // huge but positive: counted
                                           {0, 10, 20, INT64_MAX},  // implausible interval: ignored
                                           {0, INT64_MAX - 1, INT64_MAX, 0}};  // 1 ns
  const FrameAnalysis a = AnalyzeFrames(frames, -1);  // a bad default falls back to 60 Hz
  EXPECT_EQ(a.invalid, 1u);
  EXPECT_EQ(a.counted, 3u);
  EXPECT_EQ(a.refresh_period_ns, kVsync60);
  EXPECT_EQ(a.matrix.frozen, 1u);
  EXPECT_EQ(a.matrix.best, 2u);
}

}  // namespace
}  // namespace droidlab::analysis
