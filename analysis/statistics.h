// Per-run summary statistics of launch samples (displayed_ms, fully_drawn_ms, TotalTime, …):
// count, min, median, mean, p90, max, sample standard deviation and a bootstrap confidence
// interval of the median.
//
// Why the median and a CI of it, not the mean ± stddev: launch times are right-skewed and carry
// outliers (a cold launch that hit a GC, a page-cache miss, a thermal blip is 2–3× the others).
// Jetpack Macrobenchmark reports min / median / max of timeToInitialDisplayMs per run for the
// same reason, and judges regressions on the median. The mean and stddev are kept for
// dashboards that want them, never for verdicts (see comparison.h).
//
// Everything here is a pure, deterministic function of its inputs: no I/O, no globals, no clock.
// The bootstrap draws from a std::mt19937_64 whose seed is derived from the samples themselves
// (SeedForSamples below), so the same data always yields the same interval, on every host and
// standard library (we never use std::uniform_int_distribution, whose output the standard
// leaves to the implementation). Thread-safe: every function may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace droidlab::analysis {

// A two-sided confidence interval [lower, upper] at `level` (0.95 = 95 %).
struct ConfidenceInterval {
  double lower = 0;
  double upper = 0;
  double level = 0;
};

struct SummaryOptions {
  // Percentile-bootstrap resamples for the CI of the median. 2,000 keeps the Monte-Carlo error
  // of a 95 % endpoint well below the spacing of launch samples (Efron & Tibshirani recommend
  // ≥ 1,000 for percentile intervals); it costs ~0.5 ms for 20 samples (40,000 draws).
  int bootstrap_resamples = 2000;
  double confidence = 0.95;  // in (0, 1)
  // Mixed into the derived seed. 0 for the documented default; change it only to check that a
  // conclusion does not hinge on one bootstrap stream.
  std::uint64_t seed = 0;
};

// Every statistic is over the finite samples only; NaN and ±inf are dropped and counted in
// dropped_non_finite (a collector bug must show, not vanish nor poison the mean).
//   count == 0: every optional is null.
//   count == 1: min = median = mean = p90 = max = the sample; stddev and median_ci are null (a
//               spread of one value is undefined, and a bootstrap of one value is a point that
//               would pretend to certainty).
//   count >= 2: every field is set (median_ci is null only when the options are invalid).
struct Summary {
  std::size_t count = 0;               // finite samples summarized
  std::size_t dropped_non_finite = 0;  // NaN / ±inf samples left out
  std::optional<double> min;
  std::optional<double> median;  // Quantile(0.5): the mean of the two middle values for even n
  std::optional<double> mean;    // arithmetic mean
  std::optional<double> p90;     // Quantile(0.9), type 7 (see QuantileOfSorted)
  std::optional<double> max;
  std::optional<double> stddev;  // sample standard deviation, divisor n − 1 (two-pass)
  // Percentile-bootstrap CI of the median: resample the n samples with replacement
  // `bootstrap_resamples` times, take each resample's median, and report the type-7 quantiles
  // (1 − confidence)/2 and (1 + confidence)/2 of those medians. With few samples it can only
  // land on sample values (or midpoints of two), and under-covers for n < ~10: trust it as a
  // guide to the spread, not as an exact 95 %.
  std::optional<ConfidenceInterval> median_ci;
};

// An empty string when valid, else one line naming the bad field and its bounds:
// bootstrap_resamples in [100, 1'000'000], confidence in (0, 1).
std::string ValidateSummaryOptions(const SummaryOptions& options);

// Summarizes `samples` (any order). With invalid options the CI is null; the rest is computed.
Summary Summarize(std::span<const double> samples, const SummaryOptions& options = {});

// The p-quantile (p in [0, 1]) of `sorted` (ascending, non-empty, finite) by linear
// interpolation between order statistics: Hyndman & Fan type 7, the default of R's quantile()
// and of numpy.percentile/quantile, so dashboard users can reproduce every number. With
// h = (n − 1)·p, lo = floor(h): sorted[lo] + (h − lo)·(sorted[lo + 1] − sorted[lo]).
// Example: {1, 2, 3, 4} → p90 = 3.7, median = 2.5.
double QuantileOfSorted(std::span<const double> sorted, double p);

namespace internal {

// Shared by Summarize and Compare; not part of the module's API.

// The bootstrap seed: SplitMix64 folded over `seed`, a per-use `domain` constant and the
// IEEE-754 bits of each sorted sample (−0 counted as +0). Depends on the multiset of samples,
// not on their order, so re-reading a run from the store in another order gives the same CI.
std::uint64_t SeedForSamples(std::uint64_t seed, std::uint64_t domain,
                             std::span<const double> sorted);

// Draws bootstrap resamples of a sorted sample and returns each resample's median, in O(n) per
// resample and without sorting: it draws n indices, counts them, and walks the counts to the
// middle rank(s). Because `sorted` is ascending, the median of the drawn values is the value
// at the median drawn index.
class BootstrapMedianSampler {
 public:
  explicit BootstrapMedianSampler(std::span<const double> sorted);
  double Draw(std::mt19937_64& rng);

 private:
  std::span<const double> sorted_;
  std::vector<std::uint32_t> counts_;
};

// Uniform in [0, n), unbiased (rejection sampling), identical on every standard library.
std::uint64_t UniformIndex(std::mt19937_64& rng, std::uint64_t n);

}  // namespace internal

}  // namespace droidlab::analysis
