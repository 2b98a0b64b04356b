#include "analysis/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace droidlab::analysis {
namespace {

// Separates the bootstrap stream of Summarize from Compare's, so the two never share draws.
constexpr std::uint64_t kSummaryDomain = 0x73756d6d61727921ULL;  // "summary!"

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

namespace internal {

std::uint64_t SeedForSamples(std::uint64_t seed, std::uint64_t domain,
                             std::span<const double> sorted) {
  std::uint64_t h = SplitMix64(seed ^ SplitMix64(domain));
  h = SplitMix64(h ^ sorted.size());
  for (double v : sorted) {
    // +0.0 and -0.0 compare equal and sort in either order; hash them alike.
    const double normalized = v == 0.0 ? 0.0 : v;
    h = SplitMix64(h ^ std::bit_cast<std::uint64_t>(normalized));
  }
  return h;
}

std::uint64_t UniformIndex(std::mt19937_64& rng, std::uint64_t n) {
  // Reject the top partial block of the 2^64 range so every residue is equally likely.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % n;
  for (;;) {
    const std::uint64_t r = rng();
    if (r < limit) return r % n;
  }
}

// The point a fraction f of the way from a to b (a <= b): a + f·(b − a), exact when a == b and
// monotone in f. When b − a overflows (finite a and b near ∓DBL_MAX, found by fuzz_comparison)
// (1 − f)·a + f·b, which cannot; always within [a, b].
double Interpolate(double a, double b, double f) {
  const double span = b - a;
  const double v = std::isfinite(span) ? a + f * span : (1.0 - f) * a + f * b;
  return std::clamp(v, a, b);
}

BootstrapMedianSampler::BootstrapMedianSampler(std::span<const double> sorted)
    : sorted_(sorted), counts_(sorted.size(), 0) {}

double BootstrapMedianSampler::Draw(std::mt19937_64& rng) {
  const std::size_t n = sorted_.size();
  std::fill(counts_.begin(), counts_.end(), 0U);
  for (std::size_t i = 0; i < n; ++i) ++counts_[UniformIndex(rng, n)];
  // Ranks (0-based) of the middle of the resample: equal for odd n.
  const std::size_t lo_rank = (n - 1) / 2;
  const std::size_t hi_rank = n / 2;
  std::size_t seen = 0;
  double lo_value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t next = seen + counts_[i];
    if (seen <= lo_rank && lo_rank < next) lo_value = sorted_[i];
    if (seen <= hi_rank && hi_rank < next) return Interpolate(lo_value, sorted_[i], 0.5);
    seen = next;
  }
  return lo_value;  // unreachable: the counts add up to n > hi_rank
}

}  // namespace internal

double QuantileOfSorted(std::span<const double> sorted, double p) {
  const std::size_t n = sorted.size();
  if (n == 1) return sorted[0];
  const double h = static_cast<double>(n - 1) * p;
  const double lo_index = std::floor(h);
  const auto lo = static_cast<std::size_t>(lo_index);
  if (lo + 1 >= n) return sorted[n - 1];
  return internal::Interpolate(sorted[lo], sorted[lo + 1], h - lo_index);
}

std::string ValidateSummaryOptions(const SummaryOptions& options) {
  char line[160];
  if (options.bootstrap_resamples < 100 || options.bootstrap_resamples > 1'000'000) {
    std::snprintf(line, sizeof line, "bootstrap_resamples must be in [100, 1000000], got %d",
                  options.bootstrap_resamples);
    return line;
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    std::snprintf(line, sizeof line, "confidence must be in (0, 1), got %g", options.confidence);
    return line;
  }
  return {};
}

Summary Summarize(std::span<const double> samples, const SummaryOptions& options) {
  Summary summary;
  std::vector<double> sorted;
  sorted.reserve(samples.size());
  for (double v : samples) {
    if (std::isfinite(v)) {
      sorted.push_back(v);
    } else {
      ++summary.dropped_non_finite;
    }
  }
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  summary.count = n;
  if (n == 0) return summary;

  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.median = QuantileOfSorted(sorted, 0.5);
  summary.p90 = QuantileOfSorted(sorted, 0.9);
  double sum = 0;
  for (double v : sorted) sum += v;
  const double mean = sum / static_cast<double>(n);
  summary.mean = mean;
  if (n == 1) return summary;

  // Two-pass: the deviations from the mean, not E[x²] − E[x]², which cancels catastrophically
  // for values like 800 ± 0.1.
  double squares = 0;
  for (double v : sorted) squares += (v - mean) * (v - mean);
  summary.stddev = std::sqrt(squares / static_cast<double>(n - 1));

  if (!ValidateSummaryOptions(options).empty()) return summary;
  std::mt19937_64 rng(internal::SeedForSamples(options.seed, kSummaryDomain, sorted));
  internal::BootstrapMedianSampler sampler(sorted);
  std::vector<double> medians(static_cast<std::size_t>(options.bootstrap_resamples));
  for (double& m : medians) m = sampler.Draw(rng);
  std::sort(medians.begin(), medians.end());
  const double tail = (1.0 - options.confidence) / 2.0;
  summary.median_ci = ConfidenceInterval{QuantileOfSorted(medians, tail),
                                         QuantileOfSorted(medians, 1.0 - tail),
                                         options.confidence};
  return summary;
}

}  // namespace droidlab::analysis
