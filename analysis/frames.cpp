#include "analysis/frames.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/statistics.h"

namespace droidlab::analysis {
namespace {

// Matrix TraceCanary, trace/constants/Constants.java: DEFAULT_DROPPED_NORMAL 3, MIDDLE 9,
// HIGH 24, FROZEN 42 (frames dropped).
constexpr int64_t kMatrixNormal = 3;
constexpr int64_t kMatrixMiddle = 9;
constexpr int64_t kMatrixHigh = 24;
constexpr int64_t kMatrixFrozen = 42;

// PerfDog: 1000 ms / 24 × 2, which PerfDog states as 84 ms, and 1000 ms / 24 × 3 = 125 ms.
constexpr int64_t kPerfDogJankNs = 84'000'000;
constexpr int64_t kPerfDogBigJankNs = 125'000'000;

constexpr int64_t kOver16_7Ns = 16'700'000;
constexpr int64_t kOver33Ns = 33'000'000;
constexpr int64_t kOver50Ns = 50'000'000;

// A FrameInterval outside (0, 1 s] is not a display's vsync period: a row from a header whose
// names were not put back (parsers/gfxinfo.h, Android 13–14), or garbage.
bool PlausibleInterval(int64_t ns) { return ns > 0 && ns <= 1'000'000'000; }

struct Counted {
  int64_t intended_vsync_ns;
  int64_t duration_ns;
  int64_t interval_ns;  // 0 when the row had no plausible one
};

// Matrix's FrameTracer (Android 7+ path): droppedFrames = max(0, (total − T) / T), filed by
// Math.round. Done in integers — q, r of (d − T) / T, rounded half up as Math.round does — so no
// float decides a frame on a threshold; d and T are positive here.
int64_t MatrixDroppedFrames(int64_t duration_ns, int64_t period_ns) {
  if (duration_ns <= period_ns) return 0;
  const int64_t over = duration_ns - period_ns;
  const int64_t q = over / period_ns;
  const int64_t r = over % period_ns;
  return q + (r >= period_ns - r ? 1 : 0);  // 2r ≥ T without overflowing 2r
}

void AddMatrixLevel(int64_t dropped, MatrixDropLevels& m) {
  // Saturating: rows are input, and a frame of INT64_MAX ns over a 1 ns period drops ~2^63.
  m.dropped_frames =
      dropped > INT64_MAX - m.dropped_frames ? INT64_MAX : m.dropped_frames + dropped;
  if (dropped >= kMatrixFrozen) {
    ++m.frozen;
  } else if (dropped >= kMatrixHigh) {
    ++m.high;
  } else if (dropped >= kMatrixMiddle) {
    ++m.middle;
  } else if (dropped >= kMatrixNormal) {
    ++m.normal;
  } else {
    ++m.best;
  }
}

}  // namespace

FrameAnalysis AnalyzeFrames(std::span<const FrameTiming> frames,
                            int64_t default_refresh_period_ns) {
  FrameAnalysis out;
  out.rows = frames.size();
  out.refresh_period_ns = PlausibleInterval(default_refresh_period_ns) ? default_refresh_period_ns
                                                                     : kDefaultRefreshPeriodNs;

  std::vector<Counted> counted;
  counted.reserve(frames.size());
  for (const FrameTiming& f : frames) {
    if (f.flags != 0) {
      ++out.flagged;
      continue;
    }
    // Subtract only when it cannot overflow: both are device timestamps, but rows are input.
    if (f.frame_completed_ns <= f.intended_vsync_ns || f.intended_vsync_ns < 0) {
      ++out.invalid;
      continue;
    }
    const int64_t interval = PlausibleInterval(f.frame_interval_ns) ? f.frame_interval_ns : 0;
    counted.push_back({f.intended_vsync_ns, f.frame_completed_ns - f.intended_vsync_ns, interval});
  }
  out.counted = counted.size();
  if (counted.empty()) return out;

  std::vector<int64_t> intervals;
  for (const Counted& c : counted) {
    if (c.interval_ns > 0) intervals.push_back(c.interval_ns);
  }
  if (!intervals.empty()) {
    // The lower median: a period that some frame really had, not a mean of two rates.
    auto mid = intervals.begin() + static_cast<std::ptrdiff_t>((intervals.size() - 1) / 2);
    std::nth_element(intervals.begin(), mid, intervals.end());
    out.refresh_period_ns = *mid;
    out.refresh_period_from_frames = true;
  }

  std::vector<double> durations_ms;
  durations_ms.reserve(counted.size());
  for (const Counted& c : counted) {
    durations_ms.push_back(static_cast<double>(c.duration_ns) / 1e6);
    if (c.duration_ns > kOver16_7Ns) ++out.over_16_7ms;
    if (c.duration_ns > kOver33Ns) ++out.over_33ms;
    if (c.duration_ns > kOver50Ns) ++out.over_50ms;
    const int64_t period = c.interval_ns > 0 ? c.interval_ns : out.refresh_period_ns;
    if (c.duration_ns > period) ++out.over_1_vsync;
    if (c.duration_ns > 2 * period) ++out.over_2_vsyncs;
    if (c.duration_ns > 3 * period) ++out.over_3_vsyncs;
    AddMatrixLevel(MatrixDroppedFrames(c.duration_ns, period), out.matrix);
  }
  std::sort(durations_ms.begin(), durations_ms.end());
  out.p50_ms = QuantileOfSorted(durations_ms, 0.50);
  out.p90_ms = QuantileOfSorted(durations_ms, 0.90);
  out.p95_ms = QuantileOfSorted(durations_ms, 0.95);
  out.p99_ms = QuantileOfSorted(durations_ms, 0.99);

  std::stable_sort(counted.begin(), counted.end(), [](const Counted& a, const Counted& b) {
    return a.intended_vsync_ns < b.intended_vsync_ns;
  });
  for (size_t i = 3; i < counted.size(); ++i) {
    const int64_t d = counted[i].duration_ns;
    // d > 2 × (a + b + c) / 3, compared as 3d > 2(a + b + c): no division rounds a frame to
    // either side (exact in double below 2^53 ns, 104 days). Double, not int64, because rows
    // are input and three int64 durations can overflow a sum.
    const double prev3 = static_cast<double>(counted[i - 1].duration_ns) +
                         static_cast<double>(counted[i - 2].duration_ns) +
                         static_cast<double>(counted[i - 3].duration_ns);
    if (3.0 * static_cast<double>(d) <= 2.0 * prev3) continue;
    if (d > kPerfDogJankNs) ++out.perfdog.jank;
    if (d > kPerfDogBigJankNs) ++out.perfdog.big_jank;
  }
  return out;
}

}  // namespace droidlab::analysis
