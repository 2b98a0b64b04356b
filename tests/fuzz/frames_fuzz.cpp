// libFuzzer target for analysis/frames.h AnalyzeFrames over arbitrary rows (each 32 bytes of
// input: flags, IntendedVsync, FrameCompleted, FrameInterval as int64; the first 8 bytes, if
// any are left, the default period). Invariants: every row is flagged, invalid or counted; every
// counted frame has one Matrix level; PerfDog's big janks are janks and need three frames before;
// the budgets nest; quantiles are ordered and null only when nothing was counted; the period is
// positive.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "analysis/frames.h"

namespace {

int64_t Read(const uint8_t* p) {
  int64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using droidlab::analysis::FrameTiming;
  int64_t default_period = droidlab::analysis::kDefaultRefreshPeriodNs;
  if (size % 32 >= 8) default_period = Read(data + size - size % 32);
  std::vector<FrameTiming> frames;
  for (size_t i = 0; i + 32 <= size; i += 32) {
    frames.push_back(
        {Read(data + i), Read(data + i + 8), Read(data + i + 16), Read(data + i + 24)});
  }
  const auto a = droidlab::analysis::AnalyzeFrames(frames, default_period);
  if (a.rows != frames.size()) std::abort();
  if (a.flagged + a.invalid + a.counted != a.rows) std::abort();
  const auto& m = a.matrix;
  if (m.best + m.normal + m.middle + m.high + m.frozen != a.counted) std::abort();
  if (m.dropped_frames < 0) std::abort();
  if (a.perfdog.big_jank > a.perfdog.jank) std::abort();
  if (a.perfdog.jank > (a.counted > 3 ? a.counted - 3 : 0)) std::abort();
  if (a.over_50ms > a.over_33ms || a.over_33ms > a.over_16_7ms || a.over_16_7ms > a.counted) {
    std::abort();
  }
  if (a.refresh_period_ns <= 0) std::abort();
  if (a.p50_ms.has_value() != (a.counted > 0)) std::abort();
  if (a.counted > 0 && !(*a.p50_ms <= *a.p90_ms && *a.p90_ms <= *a.p95_ms &&
                         *a.p95_ms <= *a.p99_ms && *a.p50_ms > 0)) {
    std::abort();
  }
  return 0;
}
