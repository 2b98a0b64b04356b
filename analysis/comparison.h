// Comparison of a candidate run with a baseline run of the same package, device model and mode:
// the number a nightly run acts on.
//
// Why a verdict needs three things at once. Naive comparisons flag noise as regressions: a
// published A/A test (the same APK measured twice, see issue 5) reported "+12.7 ms, p = 0.011"
// — statistically "almost significant" and practically nothing. Two failure modes cause that:
//   1. Testing at 5 % over many metrics and nights: 1 comparison in 20 of identical builds is
//      "significant". So alpha defaults to 1 %.
//   2. Iteration-level tests see only the noise between launches of one run, not the shifts
//      between runs (device temperature, a background dexopt, page cache state). With 20+
//      iterations a 1–2 % run-to-run shift becomes "significant". No test on iterations can
//      see that variance, so a practical threshold does: the medians must differ by at least
//      min_effect_percent (5 % by default), and the bootstrap CI of their difference must
//      exclude 0, on top of p < alpha.
// Jetpack Macrobenchmark summarizes a run by the min / median / max of timeToInitialDisplayMs
// over its iterations; we compare medians too, and take the p-value from a rank test
// (Mann–Whitney), which needs no normality and is barely moved by the 2–3× cold-launch outliers
// real devices produce.
//
// False-positive rate. If the baseline and candidate iterations are independent draws from one
// continuous distribution (an A/A pair with no run-to-run shift), the Mann–Whitney p-value is
// below alpha with probability at most alpha, whatever the distribution: the exact test is
// distribution-free, and its discreteness makes it conservative (attained size 0.95 % at
// 20 v 20, 0.96 % at 30 v 30). The verdict needs more than p < alpha, so
//   P(regression or improvement | A/A) <= alpha = 1 %, about half of it each way.
// Measured (5,000 simulated A/A pairs, 20 lognormal launches each, 800 ms, σ = 8 %): 0.72 %
// (0.34 % regression, 0.38 % improvement); with 10 % of launches 3× slower in both runs, 0.94 %;
// at 30 iterations, 0.74 % (20,000 pairs). At σ = 8 % the 5 % threshold rarely binds (with 20
// iterations a p below 1 % nearly always comes with a gap of medians above 5 %); it is the guard against run-to-run shifts, which
// the bound above does not cover and which grow more "significant" the more iterations a run
// has — a shift of s % between two A/A runs cannot become a verdict until |s| nears 5 %.
//
// Power (same simulation, 5,000 pairs). A true +10 % is a regression in 79 % of runs at 20
// iterations, 88 % at 25, 94 % at 30, 96 % at 35, 98 % at 40; a true −10 % an improvement in
// 88 % at 20, 97 % at 30, 99 % at 40. At 20 iterations and σ = 8 % no test at a 1 % two-sided
// level can pass ~88 % (a z-test on log-times with a known σ: Φ(ln 1.1 / (0.08·√(2/20)) −
// 2.576)); the Mann–Whitney test alone reaches 82 %, and the CI and 5 % criteria cost 3 points.
// Schedule 40 iterations when a 10 % change must be caught >= 95 % of the time.
//
// Pure and deterministic, like statistics.h (the bootstrap seed derives from the samples).
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "analysis/statistics.h"

namespace droidlab::analysis {

enum class PValueMethod {
  // The exact null distribution of U (every arrangement of the m + n ranks equally likely),
  // used when there are no ties and both sides have < 50 samples, as R's wilcox.test does.
  kExact,
  // Normal approximation with tie-corrected variance and a 0.5 continuity correction
  // (R's wilcox.test(correct = TRUE) with ties or with >= 50 samples on a side).
  kNormalApproximation,
};

std::string_view PValueMethodName(PValueMethod method);  // "exact", "normal_approximation"

struct MannWhitneyResult {
  // U of x: the number of pairs (x_i, y_j) with x_i > y_j, ties counting 1/2. It equals R's W in
  // wilcox.test(x, y). In [0, m·n]; m·n/2 when the samples do not differ in location.
  double u = 0;
  double p_value = 1;  // two-sided, in (0, 1]
  PValueMethod method = PValueMethod::kExact;
  bool has_ties = false;  // any value shared by two or more samples, within or across sides
};

// Two-sided Mann–Whitney U test (Wilcoxon rank-sum) of x against y; the same numbers as R's
// wilcox.test(x, y, exact = NULL, correct = TRUE). Ties get mid-ranks. Exact p: 2·min(P(U <= u),
// P(U >= u)), capped at 1. Normal: z = (u − m·n/2 − sign·0.5) / σ with
// σ² = m·n/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1))), N = m + n, t = the size of each tie group;
// p = erfc(|z|/√2). When every value is tied σ = 0, and p is 1 (no evidence of any difference;
// R would give NaN). Inputs must be finite (Compare drops the others). nullopt if either is empty.
std::optional<MannWhitneyResult> MannWhitneyU(std::span<const double> x,
                                              std::span<const double> y);

enum class Verdict {
  kInsufficientData,     // fewer than min_samples valid samples on a side, or invalid options
  kNoSignificantChange,  // some criterion below failed; `reason` says which
  kRegression,           // p < alpha, |Δ%| >= min_effect_percent, CI of Δ excludes 0, worse
  kImprovement,          // the same, better
};

// "insufficient_data", "no_significant_change", "regression", "improvement" — the strings the
// store and the API use.
std::string_view VerdictName(Verdict verdict);

struct CompareOptions {
  double alpha = 0.01;              // significance level of the two-sided Mann–Whitney test
  double min_effect_percent = 5.0;  // |Δ of medians| as % of the baseline median, at least
  std::size_t min_samples = 10;     // valid samples per side, at least (>= 2)
  int bootstrap_resamples = 2000;   // for the CI of Δ; in [100, 1'000'000]
  double confidence = 0.95;         // of the CI of Δ; in (0, 1)
  // Launch times: a larger candidate median is a regression. False for throughput-like metrics.
  bool lower_is_better = true;
  std::uint64_t seed = 0;  // mixed into the derived bootstrap seed, as in SummaryOptions
};

// An empty string when valid, else one line naming the bad field and its bounds.
std::string ValidateCompareOptions(const CompareOptions& options);

// Units: every *_ms field is in the unit of the samples (milliseconds for all launch metrics).
// Δ is always candidate − baseline: positive means the candidate is slower.
struct Comparison {
  Verdict verdict = Verdict::kInsufficientData;
  // One line a person can act on: the numbers behind the verdict and, for
  // no_significant_change / insufficient_data, the criterion that was not met.
  std::string reason;

  std::size_t baseline_count = 0;   // finite samples used
  std::size_t candidate_count = 0;  // finite samples used
  std::size_t dropped_non_finite = 0;  // NaN / ±inf left out, both sides together

  std::optional<double> baseline_median;   // type-7 median; null when that side is empty
  std::optional<double> candidate_median;
  std::optional<double> delta_ms;          // candidate_median − baseline_median
  // 100 · delta_ms / baseline_median; null when the baseline median is <= 0 (a relative change
  // from zero has no meaning), which also rules out regression / improvement.
  std::optional<double> delta_percent;
  // Percentile-bootstrap CI of delta_ms: each of the `bootstrap_resamples` rounds resamples the
  // baseline and the candidate independently, with replacement, at their own sizes, and takes
  // the difference of the two medians; the interval is the type-7 (1 ∓ confidence)/2 quantiles
  // of those differences. Null when a side has fewer than 2 samples or options are invalid.
  std::optional<ConfidenceInterval> delta_ci_ms;

  // Mann–Whitney U of the candidate against the baseline (the candidate's wins; see
  // MannWhitneyResult) and U / (m·n): the probability that a random candidate launch is slower
  // than a random baseline launch (0.5 = no difference), a unit-free effect size.
  std::optional<double> u_statistic;
  std::optional<double> probability_candidate_greater;
  std::optional<double> p_value;  // two-sided
  std::optional<PValueMethod> p_value_method;
  bool has_ties = false;
};

// Compares `candidate` with `baseline` (each any order; NaN / ±inf dropped and counted).
// Statistics are filled in whenever they can be computed, even when the verdict is
// insufficient_data, so a dashboard can show them. The verdict is regression or improvement
// only when all of: both sides have >= min_samples; p_value < alpha; |delta_percent| >=
// min_effect_percent; delta_ci_ms lies entirely on the same side of 0 as delta_ms. Which of the
// two depends on the sign of delta_ms and lower_is_better. With invalid options nothing is
// computed: the verdict is insufficient_data and `reason` starts with "invalid options: ".
Comparison Compare(std::span<const double> baseline, std::span<const double> candidate,
                   const CompareOptions& options = {});

}  // namespace droidlab::analysis
