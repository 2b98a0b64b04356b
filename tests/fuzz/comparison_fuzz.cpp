// libFuzzer target for analysis/: Summarize, MannWhitneyU and Compare over samples read from the
// input (the first byte splits it into a baseline and a candidate; each further 8 bytes are one
// IEEE-754 double, so NaN, ±inf, −0, denormals and huge values all come up). Invariants checked:
// counts add up to the finite samples, min <= median <= p90 <= max, a CI is ordered and lies
// within the samples' range, p in (0, 1], U in [0, m·n], and a verdict of regression or
// improvement only with enough samples and p below alpha.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/statistics.h"

namespace {

using droidlab::analysis::Compare;
using droidlab::analysis::CompareOptions;
using droidlab::analysis::MannWhitneyU;
using droidlab::analysis::Summarize;
using droidlab::analysis::SummaryOptions;
using droidlab::analysis::Verdict;

std::vector<double> Doubles(const uint8_t* data, size_t size) {
  std::vector<double> out;
  for (size_t i = 0; i + sizeof(double) <= size; i += sizeof(double)) {
    double v;
    std::memcpy(&v, data + i, sizeof v);
    out.push_back(v);
  }
  return out;
}

std::vector<double> Finite(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

void CheckSummary(const std::vector<double>& samples) {
  SummaryOptions options;
  options.bootstrap_resamples = 100;  // the minimum: keeps each input fast
  const auto s = Summarize(samples, options);
  if (s.count + s.dropped_non_finite != samples.size()) std::abort();
  if (s.count == 0) {
    if (s.median || s.min || s.max || s.median_ci) std::abort();
    return;
  }
  if (!s.min || !s.median || !s.p90 || !s.max) std::abort();
  if (!(*s.min <= *s.median && *s.median <= *s.p90 && *s.p90 <= *s.max)) std::abort();
  if (s.count >= 2 && s.median_ci) {
    if (!(s.median_ci->lower <= s.median_ci->upper)) std::abort();
    if (s.median_ci->lower < *s.min || s.median_ci->upper > *s.max) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 8 * 256) return 0;  // a few hundred samples: enough for every path
  const size_t split = std::min<size_t>(size - 1, size_t{data[0]} * 8);
  const auto baseline = Doubles(data + 1, split);
  const auto candidate = Doubles(data + 1 + split, size - 1 - split);

  CheckSummary(baseline);
  CheckSummary(candidate);

  const auto x = Finite(candidate);
  const auto y = Finite(baseline);
  const auto mw = MannWhitneyU(x, y);
  if (mw.has_value() != (!x.empty() && !y.empty())) std::abort();
  if (mw) {
    const double mn = static_cast<double>(x.size()) * static_cast<double>(y.size());
    if (!(mw->u >= 0 && mw->u <= mn)) std::abort();
    if (!(mw->p_value > 0 && mw->p_value <= 1)) std::abort();
  }

  CompareOptions options;
  options.bootstrap_resamples = 100;
  const auto c = Compare(baseline, candidate, options);
  if (c.reason.empty()) std::abort();
  if (c.baseline_count + c.candidate_count + c.dropped_non_finite !=
      baseline.size() + candidate.size()) {
    std::abort();
  }
  if (c.verdict == Verdict::kRegression || c.verdict == Verdict::kImprovement) {
    if (c.baseline_count < options.min_samples || c.candidate_count < options.min_samples) {
      std::abort();
    }
    if (!c.p_value || !(*c.p_value < options.alpha)) std::abort();
    if (!c.delta_ci_ms || !(c.delta_ci_ms->lower <= c.delta_ci_ms->upper)) std::abort();
  }
  return 0;
}
