#include "analysis/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "analysis/text_format.h"

namespace droidlab::analysis {
namespace {

// Separates Compare's bootstrap stream from Summarize's.
constexpr std::uint64_t kCompareDomain = 0x636f6d7061726521ULL;  // "compare!"

// R's wilcox.test computes exact p-values below 50 samples per side; matching it lets anyone
// check a verdict with one line of R. The exact table costs O(m·n·m·n/2) additions: ~3 M at 49.
constexpr std::size_t kExactLimit = 50;

std::vector<double> FiniteSorted(std::span<const double> samples, std::size_t& dropped) {
  std::vector<double> sorted;
  sorted.reserve(samples.size());
  for (double v : samples) {
    if (std::isfinite(v)) {
      sorted.push_back(v);
    } else {
      ++dropped;
    }
  }
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// P(U <= k) under the null, for samples of m and n without ties: the number of arrangements of
// m x's and n y's with U_x = v, summed over v <= k, over C(m + n, m). Counts by the recurrence
// on the largest of the m + n values: an x there beats all j y's, a y beats nothing,
//   f(i, j, v) = f(i − 1, j, v − j) + f(i, j − 1, v),
// keeping one layer of i at a time and only v <= k. Only additions of positive counts, so the
// far tails (the p-values that matter) keep full relative precision in doubles.
double ExactLowerTail(std::size_t m, std::size_t n, std::size_t k) {
  const std::size_t width = k + 1;
  std::vector<double> previous((n + 1) * width, 0.0);  // f(i − 1, j, v) at [j·width + v]
  std::vector<double> current((n + 1) * width, 0.0);
  for (std::size_t j = 0; j <= n; ++j) previous[j * width] = 1.0;  // f(0, j, ·) = δ(v)
  for (std::size_t i = 1; i <= m; ++i) {
    std::fill(current.begin(), current.end(), 0.0);
    current[0] = 1.0;  // f(i, 0, ·) = δ(v)
    for (std::size_t j = 1; j <= n; ++j) {
      double* row = &current[j * width];
      const double* left = &current[(j - 1) * width];
      const double* up = &previous[j * width];
      for (std::size_t v = 0; v < width; ++v) row[v] = left[v] + (v >= j ? up[v - j] : 0.0);
    }
    std::swap(previous, current);
  }
  double tail = 0;
  for (std::size_t v = 0; v < width; ++v) tail += previous[n * width + v];
  double arrangements = 1;  // C(m + n, m) as a product of ratios: no overflow, ~1 ulp per step
  for (std::size_t i = 1; i <= m; ++i) {
    arrangements *= static_cast<double>(n + i) / static_cast<double>(i);
  }
  return tail / arrangements;
}

}  // namespace

std::string_view PValueMethodName(PValueMethod method) {
  switch (method) {
    case PValueMethod::kExact:
      return "exact";
    case PValueMethod::kNormalApproximation:
      return "normal_approximation";
  }
  return "unknown";
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kInsufficientData:
      return "insufficient_data";
    case Verdict::kNoSignificantChange:
      return "no_significant_change";
    case Verdict::kRegression:
      return "regression";
    case Verdict::kImprovement:
      return "improvement";
  }
  return "unknown";
}

std::optional<MannWhitneyResult> MannWhitneyU(std::span<const double> x,
                                              std::span<const double> y) {
  const std::size_t m = x.size();
  const std::size_t n = y.size();
  if (m == 0 || n == 0) return std::nullopt;

  std::vector<std::pair<double, bool>> pooled;  // (value, from x)
  pooled.reserve(m + n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  MannWhitneyResult result;
  double rank_sum_x = 0;
  double tie_term = 0;  // Σ (t³ − t) over groups of tied values
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start;
    std::size_t from_x = 0;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) {
      from_x += pooled[end].second ? 1 : 0;
      ++end;
    }
    const double t = static_cast<double>(end - start);
    const double mid_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    rank_sum_x += mid_rank * static_cast<double>(from_x);
    if (t > 1) {
      result.has_ties = true;
      tie_term += t * t * t - t;
    }
    start = end;
  }
  const double md = static_cast<double>(m);
  const double nd = static_cast<double>(n);
  result.u = rank_sum_x - md * (md + 1.0) / 2.0;

  if (!result.has_ties && m < kExactLimit && n < kExactLimit) {
    result.method = PValueMethod::kExact;
    // Without ties U is an integer; the null distribution is symmetric about m·n/2, so the
    // upper tail P(U >= u) is the lower tail at m·n − u.
    const auto u = static_cast<std::size_t>(std::llround(result.u));
    const std::size_t k = 2 * u > m * n ? m * n - u : u;
    result.p_value = std::min(1.0, 2.0 * ExactLowerTail(m, n, k));
    return result;
  }

  result.method = PValueMethod::kNormalApproximation;
  const double total = md + nd;
  const double variance =
      md * nd / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (!(variance > 0)) {
    result.p_value = 1.0;  // every value tied: the ranks carry no information
    return result;
  }
  const double centered = result.u - md * nd / 2.0;
  const double correction = centered > 0 ? 0.5 : (centered < 0 ? -0.5 : 0.0);
  const double z = (centered - correction) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(std::fabs(z) / std::sqrt(2.0)));
  return result;
}

std::string ValidateCompareOptions(const CompareOptions& options) {
  if (!(options.alpha > 0.0 && options.alpha < 1.0)) {
    return Format("alpha must be in (0, 1), got %g", options.alpha);
  }
  if (!(options.min_effect_percent >= 0.0 && std::isfinite(options.min_effect_percent))) {
    return Format("min_effect_percent must be a finite number >= 0, got %g",
                  options.min_effect_percent);
  }
  if (options.min_samples < 2) {
    return Format("min_samples must be at least 2, got %zu", options.min_samples);
  }
  return ValidateSummaryOptions(SummaryOptions{.bootstrap_resamples = options.bootstrap_resamples,
                                               .confidence = options.confidence,
                                               .seed = options.seed});
}

Comparison Compare(std::span<const double> baseline, std::span<const double> candidate,
                   const CompareOptions& options) {
  Comparison c;
  if (std::string invalid = ValidateCompareOptions(options); !invalid.empty()) {
    c.reason = "invalid options: " + invalid;
    return c;
  }
  const std::vector<double> base = FiniteSorted(baseline, c.dropped_non_finite);
  const std::vector<double> cand = FiniteSorted(candidate, c.dropped_non_finite);
  c.baseline_count = base.size();
  c.candidate_count = cand.size();

  if (!base.empty()) c.baseline_median = QuantileOfSorted(base, 0.5);
  if (!cand.empty()) c.candidate_median = QuantileOfSorted(cand, 0.5);
  if (c.baseline_median && c.candidate_median) {
    c.delta_ms = *c.candidate_median - *c.baseline_median;
    if (*c.baseline_median > 0) c.delta_percent = 100.0 * *c.delta_ms / *c.baseline_median;
  }
  if (auto mw = MannWhitneyU(cand, base)) {
    c.u_statistic = mw->u;
    c.probability_candidate_greater =
        mw->u / (static_cast<double>(cand.size()) * static_cast<double>(base.size()));
    c.p_value = mw->p_value;
    c.p_value_method = mw->method;
    c.has_ties = mw->has_ties;
  }
  if (base.size() >= 2 && cand.size() >= 2) {
    std::mt19937_64 rng(internal::SeedForSamples(
        internal::SeedForSamples(options.seed, kCompareDomain, base), kCompareDomain, cand));
    internal::BootstrapMedianSampler base_sampler(base);
    internal::BootstrapMedianSampler cand_sampler(cand);
    std::vector<double> deltas(static_cast<std::size_t>(options.bootstrap_resamples));
    for (double& d : deltas) {
      const double b = base_sampler.Draw(rng);
      d = cand_sampler.Draw(rng) - b;
    }
    std::sort(deltas.begin(), deltas.end());
    const double tail = (1.0 - options.confidence) / 2.0;
    c.delta_ci_ms = ConfidenceInterval{QuantileOfSorted(deltas, tail),
                                       QuantileOfSorted(deltas, 1.0 - tail), options.confidence};
  }

  if (base.size() < options.min_samples || cand.size() < options.min_samples) {
    c.verdict = Verdict::kInsufficientData;
    c.reason = Format(
        "insufficient data: baseline has %zu valid samples, candidate %zu; at least %zu per "
        "side are needed",
        base.size(), cand.size(), options.min_samples);
    return c;
  }

  // Every field used below is set: both sides have >= min_samples >= 2 samples.
  const double delta = *c.delta_ms;
  const double p = *c.p_value;
  const ConfidenceInterval ci = *c.delta_ci_ms;
  const std::string numbers = Format(
      "median %.1f -> %.1f (%+.1f, %s), %.0f %% CI of the change [%+.1f, %+.1f], p = %.3g "
      "(%s Mann-Whitney)",
      *c.baseline_median, *c.candidate_median, delta,
      c.delta_percent ? Format("%+.1f %%", *c.delta_percent).c_str() : "n/a %",
      100.0 * ci.level, ci.lower, ci.upper, p,
      std::string(PValueMethodName(*c.p_value_method)).c_str());

  std::string unmet;
  const auto add_unmet = [&unmet](const std::string& why) {
    unmet += unmet.empty() ? why : "; " + why;
  };
  if (!(p < options.alpha)) add_unmet(Format("p >= alpha %g", options.alpha));
  if (!c.delta_percent) {
    add_unmet("baseline median <= 0, no relative change");
  } else if (!(std::fabs(*c.delta_percent) >= options.min_effect_percent)) {
    add_unmet(Format("|change| %.1f %% < %g %%", std::fabs(*c.delta_percent),
                     options.min_effect_percent));
  }
  const bool ci_agrees = delta > 0 ? ci.lower > 0 : (delta < 0 ? ci.upper < 0 : false);
  if (!ci_agrees) add_unmet("CI of the change includes 0");

  if (!unmet.empty()) {
    c.verdict = Verdict::kNoSignificantChange;
    c.reason = "no significant change: " + unmet + "; " + numbers;
    return c;
  }
  const bool worse = options.lower_is_better ? delta > 0 : delta < 0;
  c.verdict = worse ? Verdict::kRegression : Verdict::kImprovement;
  c.reason = std::string(VerdictName(c.verdict)) + ": " + numbers;
  return c;
}

}  // namespace droidlab::analysis
