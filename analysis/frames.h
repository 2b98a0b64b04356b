// Jank figures of one window's frames, from `dumpsys gfxinfo PKG framestats` rows (the caller
// maps parsers::GfxinfoFramestats columns by name onto FrameTiming; analysis/ reads no text).
// Pure and deterministic; thread-safe. Sources and definitions in analysis/README.md ("Frames").
//
// A frame's duration is FrameCompleted − IntendedVsync: from the vsync the frame was meant for
// to the render thread's end of work — the span hwui's own jank tracker measures
// (libs/hwui/JankTracker.cpp finishFrame, sFrameStart = IntendedVsync). Only rows with Flags == 0
// are counted: developer.android.com's framestats guide says a non-zero Flags marks a frame that
// is expected to be slow (WindowLayoutChanged = 1: the first frame or a relayout), an animation
// on the render thread (RTAnimation = 2), a Surface.lockHardwareCanvas frame (SurfaceCanvas = 4)
// or a frame that was skipped (SkippedFrame = 8) — libs/hwui/FrameInfo.h FrameInfoFlags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace droidlab::analysis {

// libs/hwui/FrameInfo.h, FrameInfoFlags.
inline constexpr int64_t kFrameFlagWindowLayoutChanged = 1;
inline constexpr int64_t kFrameFlagRtAnimation = 2;
inline constexpr int64_t kFrameFlagSurfaceCanvas = 4;
inline constexpr int64_t kFrameFlagSkippedFrame = 8;

// 60 Hz, as Matrix's Constants.DEFAULT_FRAME_DURATION (16666667 ns): the period used when the
// rows carry no FrameInterval (before Android 13).
inline constexpr int64_t kDefaultRefreshPeriodNs = 16'666'667;

struct FrameTiming {
  int64_t flags = 0;
  int64_t intended_vsync_ns = 0;
  int64_t frame_completed_ns = 0;
  int64_t frame_interval_ns = 0;  // FrameInterval (Android 13+); 0 when the version lacks it
};

// Tencent Matrix TraceCanary's levels of one frame (FrameTracer, Android 7+ path): dropped =
// round(max(0, (duration − T) / T)), T the vsync period; best < 3 ≤ normal < 9 ≤ middle < 24 ≤
// high < 42 ≤ frozen.
struct MatrixDropLevels {
  size_t best = 0;
  size_t normal = 0;
  size_t middle = 0;
  size_t high = 0;
  size_t frozen = 0;
  int64_t dropped_frames = 0;  // Σ dropped over the counted frames (Matrix's dropSum, all levels)
};

// PerfDog's rule, over the counted frames in IntendedVsync order: a frame is a jank when its
// duration is > 2 × the mean of the three frames before it and > 84 ms (two frames of 24 fps
// film); a big jank when > 2 × that mean and > 125 ms (three). Big janks are janks too. The
// first three frames have no three before them and are never janks.
struct PerfDogJank {
  size_t jank = 0;
  size_t big_jank = 0;
};

struct FrameAnalysis {
  size_t rows = 0;     // frames given
  size_t flagged = 0;  // Flags != 0: left out
  size_t invalid = 0;  // Flags == 0 but FrameCompleted ≤ IntendedVsync: left out
  size_t counted = 0;  // the frames every figure below is over
  // The vsync period: the median of the counted frames' plausible FrameInterval (in (0, 1 s]),
  // else the default. Per frame, Matrix's dropped count uses the frame's own FrameInterval when
  // plausible (a variable-refresh display changes it), else this period.
  int64_t refresh_period_ns = kDefaultRefreshPeriodNs;
  bool refresh_period_from_frames = false;
  // Quantiles of the counted durations in ms, type 7 (analysis/statistics.h QuantileOfSorted);
  // null when nothing was counted.
  std::optional<double> p50_ms;
  std::optional<double> p90_ms;
  std::optional<double> p95_ms;
  std::optional<double> p99_ms;
  // Counted frames strictly over these fixed budgets (60 Hz's 16.7 ms, two and three periods).
  size_t over_16_7ms = 0;
  size_t over_33ms = 0;
  size_t over_50ms = 0;
  // Counted frames strictly over one, two and three vsync periods of the display they were
  // drawn for (the frame's own FrameInterval when plausible, else refresh_period_ns, as Matrix's
  // levels): the same as the fixed budgets at 60 Hz, half of them at 120 Hz.
  size_t over_1_vsync = 0;
  size_t over_2_vsyncs = 0;
  size_t over_3_vsyncs = 0;
  MatrixDropLevels matrix;
  PerfDogJank perfdog;
};

// Any order in; frames are put in IntendedVsync order for PerfDog's rule (a stable sort, so
// equal vsyncs keep their input order). `default_refresh_period_ns` (the display's, when the rows
// carry none) must be in (0, 1 s], else the 60 Hz default is used.
FrameAnalysis AnalyzeFrames(std::span<const FrameTiming> frames,
                            int64_t default_refresh_period_ns = kDefaultRefreshPeriodNs);

}  // namespace droidlab::analysis
