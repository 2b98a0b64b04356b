#include "analysis/comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace droidlab::analysis {
namespace {

// ---- Mann–Whitney U ----------------------------------------------------------------------

// The example of R's ?wilcox.test (Hollander & Wolfe 1973, p. 69): permeability constants of
// the placental membrane at term (x) and at 12–26 weeks (y). R prints
//   wilcox.test(x, y, alternative = "g")  →  W = 35, p-value = 0.1272
// so the two-sided exact p is 2 · 382/3003 = 0.2544122544…
TEST(ComparisonMannWhitneyTest, RDocumentationExample) {
  const std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  const auto r = MannWhitneyU(x, y);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->u, 35);
  EXPECT_EQ(r->method, PValueMethod::kExact);
  EXPECT_FALSE(r->has_ties);
  EXPECT_NEAR(r->p_value, 2.0 * 382.0 / 3003.0, 1e-12);
  // Swapping the sides mirrors U about m·n/2 and keeps the two-sided p.
  const auto swapped = MannWhitneyU(y, x);
  EXPECT_EQ(swapped->u, 50 - 35);
  EXPECT_NEAR(swapped->p_value, r->p_value, 1e-12);
}

TEST(ComparisonMannWhitneyTest, SmallestCasesByHand) {
  // m = n = 2: the 6 arrangements have U = 0, 1, 2, 2, 3, 4; U = 0 → 2 · 1/6.
  EXPECT_NEAR(MannWhitneyU(std::vector<double>{1, 2}, std::vector<double>{3, 4})->p_value,
              1.0 / 3.0, 1e-15);
  EXPECT_NEAR(MannWhitneyU(std::vector<double>{1, 3}, std::vector<double>{2, 4})->p_value,
              2.0 * 2.0 / 6.0, 1e-15);  // U = 1: P(U <= 1) = 2/6
  // m = n = 3, complete separation: 2 · 1/20.
  const auto separated = MannWhitneyU(std::vector<double>{4, 5, 6}, std::vector<double>{1, 2, 3});
  EXPECT_EQ(separated->u, 9);
  EXPECT_NEAR(separated->p_value, 0.1, 1e-15);
  // One sample each: U is 0 or 1 with probability 1/2; p = min(1, 2 · 1/2).
  EXPECT_EQ(MannWhitneyU(std::vector<double>{1}, std::vector<double>{2})->p_value, 1.0);
  // m = n = 2 with U = 2 = m·n/2: p = min(1, 2 · 4/6).
  EXPECT_EQ(MannWhitneyU(std::vector<double>{1, 4}, std::vector<double>{2, 3})->p_value, 1.0);
}

TEST(ComparisonMannWhitneyTest, EmptySideHasNoTest) {
  EXPECT_FALSE(MannWhitneyU({}, std::vector<double>{1, 2}));
  EXPECT_FALSE(MannWhitneyU(std::vector<double>{1}, {}));
}

// An independent oracle for the exact branch: enumerate every choice of m ranks out of m + n
// and count those with U on either side of the observed one.
double BruteForceTwoSidedP(int m, int n, int u_observed) {
  std::uint64_t le = 0;
  std::uint64_t ge = 0;
  std::uint64_t total = 0;
  for (std::uint32_t mask = 0; mask < (1U << (m + n)); ++mask) {
    if (__builtin_popcount(mask) != m) continue;
    int rank_sum = 0;
    for (int i = 0; i < m + n; ++i) {
      if (mask & (1U << i)) rank_sum += i + 1;
    }
    const int u = rank_sum - m * (m + 1) / 2;
    ++total;
    le += u <= u_observed ? 1 : 0;
    ge += u >= u_observed ? 1 : 0;
  }
  return std::min(1.0, 2.0 * static_cast<double>(std::min(le, ge)) / static_cast<double>(total));
}

TEST(ComparisonMannWhitneyTest, ExactMatchesEnumerationForEverySmallCase) {
  for (int m = 1; m <= 8; ++m) {
    for (int n = 1; n <= 8; ++n) {
      for (int u = 0; u <= m * n; ++u) {
        // Build samples with exactly U(x) = u: y = 0..n−1 and x_i placed after (u_i) y's.
        std::vector<double> x;
        std::vector<double> y;
        for (int j = 0; j < n; ++j) y.push_back(j);
        int left = u;
        for (int i = 0; i < m; ++i) {
          const int take = std::min(n, left);
          x.push_back(take - 0.5 + 0.001 * i);  // above `take` y's, no ties
          left -= take;
        }
        ASSERT_EQ(left, 0) << m << " " << n << " " << u;
        const auto r = MannWhitneyU(x, y);
        ASSERT_EQ(r->u, u);
        ASSERT_EQ(r->method, PValueMethod::kExact);
        EXPECT_NEAR(r->p_value, BruteForceTwoSidedP(m, n, u), 1e-12)
            << "m=" << m << " n=" << n << " u=" << u;
      }
    }
  }
}

TEST(ComparisonMannWhitneyTest, TiesUseTheCorrectedNormalApproximation) {
  // Pooled and ranked: 1(x)=1; 2(x,x,y)=3; 3(x,y)=5.5; 4(x)=7; 5, 6, 7(y)=8, 9, 10.
  // R_x = 1 + 3 + 3 + 5.5 + 7 = 19.5, U = 19.5 − 15 = 4.5; Σ(t³ − t) = 24 + 6 = 30;
  // σ² = 25/12 · (11 − 30/90) = 22.2̄; z = (4.5 − 12.5 + 0.5)/σ = −1.590990;
  // p = erfc(1.590990/√2) = 0.1116118 (R: wilcox.test(x, y) with its ties warning).
  const auto r = MannWhitneyU(std::vector<double>{1, 2, 2, 3, 4}, std::vector<double>{2, 3, 5, 6, 7});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->has_ties);
  EXPECT_EQ(r->method, PValueMethod::kNormalApproximation);
  EXPECT_DOUBLE_EQ(r->u, 4.5);
  EXPECT_NEAR(r->p_value, 0.11161176829829222, 1e-12);

  // Unequal sizes with heavier ties: U = 3, z = −2.164529, p = 0.0304238.
  const auto heavy = MannWhitneyU(std::vector<double>{1, 1, 2, 2, 3},
                                  std::vector<double>{2, 3, 3, 4, 4, 4});
  EXPECT_DOUBLE_EQ(heavy->u, 3);
  EXPECT_NEAR(heavy->p_value, 0.03042378414846274, 1e-12);
}

TEST(ComparisonMannWhitneyTest, FiftyOrMoreSamplesUseTheNormalApproximation) {
  // x = 0..59, y = 30..89: U = 450 of 3600; z = (450 − 1800 + 0.5)/√(3600·121/12) = −7.083407.
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(30 + i);
  }
  // Values 30..59 are on both sides: ties, so the normal approximation whatever the size.
  const auto tied = MannWhitneyU(x, y);
  EXPECT_EQ(tied->method, PValueMethod::kNormalApproximation);
  EXPECT_DOUBLE_EQ(tied->u, 450);
  EXPECT_NEAR(tied->p_value, 1.4065275903970681e-12, 1e-20);

  for (double& v : y) v += 0.5;
  const auto distinct = MannWhitneyU(x, y);
  EXPECT_FALSE(distinct->has_ties);
  EXPECT_EQ(distinct->method, PValueMethod::kNormalApproximation);  // m, n >= 50
  EXPECT_DOUBLE_EQ(distinct->u, 435);  // against y = 30.5 …, x = 31 … 59 beat 1 … 29: Σ = 435
}

TEST(ComparisonMannWhitneyTest, AllTiedMeansNoEvidence) {
  const std::vector<double> same(12, 800.0);
  const auto r = MannWhitneyU(same, same);
  EXPECT_EQ(r->u, 72);
  EXPECT_EQ(r->p_value, 1.0);
  EXPECT_EQ(r->method, PValueMethod::kNormalApproximation);
}

TEST(ComparisonMannWhitneyTest, ExactAtTheLargestExactSize) {
  // 49 v 49, complete separation: p = 2 / C(98, 49), about 3.9e-29; far tails keep precision.
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 0; i < 49; ++i) {
    x.push_back(100 + i);
    y.push_back(i);
  }
  const auto r = MannWhitneyU(x, y);
  EXPECT_EQ(r->method, PValueMethod::kExact);
  double c = 1;  // C(98, 49)
  for (int i = 1; i <= 49; ++i) c = c * (49 + i) / i;
  EXPECT_NEAR(r->p_value / (2.0 / c), 1.0, 1e-12);
}

// ---- Compare: deterministic cases --------------------------------------------------------

std::vector<double> Ramp(double start, int n, double step = 1.0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + step * i);
  return v;
}

TEST(ComparisonTest, VerdictNames) {
  EXPECT_EQ(VerdictName(Verdict::kRegression), "regression");
  EXPECT_EQ(VerdictName(Verdict::kImprovement), "improvement");
  EXPECT_EQ(VerdictName(Verdict::kNoSignificantChange), "no_significant_change");
  EXPECT_EQ(VerdictName(Verdict::kInsufficientData), "insufficient_data");
  EXPECT_EQ(PValueMethodName(PValueMethod::kExact), "exact");
  EXPECT_EQ(PValueMethodName(PValueMethod::kNormalApproximation), "normal_approximation");
}

TEST(ComparisonTest, ClearRegression) {
  const std::vector<double> base = Ramp(800, 20);       // median 809.5
  const std::vector<double> cand = Ramp(900, 20);       // median 909.5
  const Comparison c = Compare(base, cand);
  EXPECT_EQ(c.verdict, Verdict::kRegression) << c.reason;
  EXPECT_EQ(c.baseline_count, 20U);
  EXPECT_EQ(c.candidate_count, 20U);
  EXPECT_DOUBLE_EQ(*c.baseline_median, 809.5);
  EXPECT_DOUBLE_EQ(*c.candidate_median, 909.5);
  EXPECT_DOUBLE_EQ(*c.delta_ms, 100);
  EXPECT_DOUBLE_EQ(*c.delta_percent, 100.0 * 100.0 / 809.5);
  EXPECT_EQ(*c.u_statistic, 400);
  EXPECT_EQ(*c.probability_candidate_greater, 1.0);
  EXPECT_EQ(*c.p_value_method, PValueMethod::kExact);
  double arrangements = 1;  // C(40, 20) = 137846528820
  for (int i = 1; i <= 20; ++i) arrangements = arrangements * (20 + i) / i;
  EXPECT_NEAR(*c.p_value / (2.0 / arrangements), 1.0, 1e-12);
  // Bootstrap medians of each ramp stay within its middle values: Δ stays near 100.
  EXPECT_GT(c.delta_ci_ms->lower, 90);
  EXPECT_LT(c.delta_ci_ms->upper, 110);
  EXPECT_EQ(c.reason.rfind("regression: median 809.5 -> 909.5 (+100.0, +12.4 %)", 0), 0U)
      << c.reason;
}

TEST(ComparisonTest, ClearImprovementAndDirection) {
  const std::vector<double> base = Ramp(900, 20);
  const std::vector<double> cand = Ramp(800, 20);
  const Comparison c = Compare(base, cand);
  EXPECT_EQ(c.verdict, Verdict::kImprovement) << c.reason;
  EXPECT_DOUBLE_EQ(*c.delta_ms, -100);
  EXPECT_LT(c.delta_ci_ms->upper, 0);
  EXPECT_EQ(*c.u_statistic, 0);
  // For a metric where higher is better (frames per second), the same numbers are a regression.
  const Comparison fps = Compare(base, cand, CompareOptions{.lower_is_better = false});
  EXPECT_EQ(fps.verdict, Verdict::kRegression) << fps.reason;
}

// The A/A trap from issue 5: "+12.7 ms, p = 0.011". With many iterations and a small run-to-run
// shift, the rank test is confident, but 1.6 % is no change anyone should act on.
TEST(ComparisonTest, SignificantButSmallIsNoSignificantChange) {
  const std::vector<double> base = Ramp(790, 60, 0.35);  // 790 … 810.65
  std::vector<double> cand = base;
  for (double& v : cand) v += 12.7;
  const Comparison c = Compare(base, cand);
  ASSERT_LT(*c.p_value, 0.01);
  EXPECT_NEAR(*c.delta_ms, 12.7, 1e-9);
  EXPECT_LT(*c.delta_percent, 5.0);
  EXPECT_GT(c.delta_ci_ms->lower, 0);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
  EXPECT_NE(c.reason.find("|change| 1.6 % < 5 %"), std::string::npos) << c.reason;
  EXPECT_EQ(c.reason.find("p >= alpha"), std::string::npos) << c.reason;
}

TEST(ComparisonTest, LargeButNoisyIsNoSignificantChange) {
  // Medians 20 % apart, but the two runs overlap almost entirely.
  const std::vector<double> base{400, 1500, 600, 1400, 800, 1300, 700, 1200, 500, 1100};
  const std::vector<double> cand{450, 1550, 650, 1450, 1000, 1350, 1050, 1250, 550, 1150};
  const Comparison c = Compare(base, cand);
  EXPECT_GE(*c.delta_percent, 5.0);
  EXPECT_GE(*c.p_value, 0.01);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
  EXPECT_NE(c.reason.find("p >= alpha 0.01"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("CI of the change includes 0"), std::string::npos) << c.reason;
}

TEST(ComparisonTest, IdenticalRunsAreNoSignificantChange) {
  const std::vector<double> same = Ramp(800, 20, 3);
  const Comparison c = Compare(same, same);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
  EXPECT_EQ(*c.delta_ms, 0);
  EXPECT_EQ(*c.delta_percent, 0);
  EXPECT_EQ(*c.u_statistic, 200);
  EXPECT_EQ(*c.probability_candidate_greater, 0.5);
  EXPECT_TRUE(c.has_ties);  // every value appears on both sides
  EXPECT_EQ(*c.p_value_method, PValueMethod::kNormalApproximation);
  EXPECT_NEAR(*c.p_value, 1.0, 1e-12);  // z = 0 exactly

  const std::vector<double> constant(20, 800.0);
  const Comparison flat = Compare(constant, constant);
  EXPECT_EQ(flat.verdict, Verdict::kNoSignificantChange);
  EXPECT_EQ(*flat.p_value, 1.0);
  EXPECT_EQ(flat.delta_ci_ms->lower, 0);
  EXPECT_EQ(flat.delta_ci_ms->upper, 0);
}

TEST(ComparisonTest, TooFewSamplesIsInsufficientDataButNumbersAreShown) {
  const std::vector<double> base = Ramp(800, 9);
  const std::vector<double> cand = Ramp(1600, 20);
  const Comparison c = Compare(base, cand);
  EXPECT_EQ(c.verdict, Verdict::kInsufficientData);
  EXPECT_EQ(c.reason,
            "insufficient data: baseline has 9 valid samples, candidate 20; at least 10 per side "
            "are needed");
  EXPECT_DOUBLE_EQ(*c.baseline_median, 804);
  EXPECT_TRUE(c.p_value);
  EXPECT_TRUE(c.delta_ci_ms);
  // The same data passes once the floor is lowered.
  EXPECT_EQ(Compare(base, cand, CompareOptions{.min_samples = 9}).verdict, Verdict::kRegression);
}

TEST(ComparisonTest, EmptyAndSingleSamples) {
  const Comparison none = Compare({}, {});
  EXPECT_EQ(none.verdict, Verdict::kInsufficientData);
  EXPECT_FALSE(none.baseline_median);
  EXPECT_FALSE(none.delta_ms);
  EXPECT_FALSE(none.p_value);
  EXPECT_FALSE(none.delta_ci_ms);

  const std::vector<double> one{800};
  const std::vector<double> two{790, 830};
  const Comparison c = Compare(one, two, CompareOptions{.min_samples = 2});
  EXPECT_EQ(c.verdict, Verdict::kInsufficientData);
  EXPECT_DOUBLE_EQ(*c.delta_ms, 10);
  EXPECT_TRUE(c.p_value);
  EXPECT_FALSE(c.delta_ci_ms);  // one baseline sample: no bootstrap

  const Comparison pairs = Compare(two, std::vector<double>{900, 950},
                                   CompareOptions{.min_samples = 2});
  EXPECT_EQ(*pairs.p_value, 1.0 / 3.0);  // the smallest p two against two can reach
  EXPECT_EQ(pairs.verdict, Verdict::kNoSignificantChange);
}

TEST(ComparisonTest, NonFiniteSamplesAreDroppedAndCounted) {
  std::vector<double> base = Ramp(800, 10);
  std::vector<double> cand = Ramp(800, 10);
  base.push_back(std::numeric_limits<double>::quiet_NaN());
  cand.push_back(std::numeric_limits<double>::infinity());
  const Comparison c = Compare(base, cand);
  EXPECT_EQ(c.baseline_count, 10U);
  EXPECT_EQ(c.candidate_count, 10U);
  EXPECT_EQ(c.dropped_non_finite, 2U);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
}

TEST(ComparisonTest, NonPositiveBaselineMedianHasNoRelativeChange) {
  const std::vector<double> base(10, 0.0);
  const std::vector<double> cand = Ramp(100, 10);
  const Comparison c = Compare(base, cand);
  EXPECT_FALSE(c.delta_percent);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
  EXPECT_NE(c.reason.find("baseline median <= 0"), std::string::npos) << c.reason;
}

TEST(ComparisonTest, InvalidOptionsAreRefused) {
  EXPECT_EQ(ValidateCompareOptions({}), "");
  EXPECT_EQ(ValidateCompareOptions(CompareOptions{.alpha = 0}), "alpha must be in (0, 1), got 0");
  EXPECT_EQ(ValidateCompareOptions(CompareOptions{.min_samples = 1}),
            "min_samples must be at least 2, got 1");
  EXPECT_EQ(ValidateCompareOptions(CompareOptions{.min_effect_percent = -1}),
            "min_effect_percent must be a finite number >= 0, got -1");
  EXPECT_EQ(ValidateCompareOptions(CompareOptions{.bootstrap_resamples = 5}),
            "bootstrap_resamples must be in [100, 1000000], got 5");
  const Comparison c = Compare(Ramp(800, 20), Ramp(900, 20), CompareOptions{.alpha = 2});
  EXPECT_EQ(c.verdict, Verdict::kInsufficientData);
  EXPECT_EQ(c.reason, "invalid options: alpha must be in (0, 1), got 2");
  EXPECT_FALSE(c.p_value);
}

TEST(ComparisonTest, DeterministicAndOrderIndependent) {
  std::vector<double> base{812, 790, 845, 801, 799, 830, 808, 795, 820, 811, 803, 826};
  std::vector<double> cand{850, 861, 838, 872, 845, 859, 866, 841, 853, 880, 847, 858};
  const Comparison a = Compare(base, cand);
  const Comparison b = Compare(base, cand);
  EXPECT_EQ(a.delta_ci_ms->lower, b.delta_ci_ms->lower);
  EXPECT_EQ(a.delta_ci_ms->upper, b.delta_ci_ms->upper);
  std::reverse(base.begin(), base.end());
  std::rotate(cand.begin(), cand.begin() + 4, cand.end());
  const Comparison permuted = Compare(base, cand);
  EXPECT_EQ(permuted.delta_ci_ms->lower, a.delta_ci_ms->lower);
  EXPECT_EQ(permuted.delta_ci_ms->upper, a.delta_ci_ms->upper);
  EXPECT_EQ(permuted.reason, a.reason);
}

// ---- Compare: simulated A/A and A/B runs ----------------------------------------------------

// Launch times of one run: lognormal around `median_ms` with log-σ `spread` (σ = 0.08 gives a
// coefficient of variation of ~8 %), and with probability `outlier_probability` a launch that
// took `outlier_factor` times as long (a cold launch that hit a GC or a page-cache miss).
// Box–Muller over mt19937_64 rather than std::normal_distribution, whose output the standard
// leaves to the library: the fixed seeds give the same runs everywhere.
class LaunchModel {
 public:
  explicit LaunchModel(std::uint64_t seed) : rng_(seed) {}

  std::vector<double> Run(double median_ms, int iterations, double spread = 0.08,
                          double outlier_probability = 0, double outlier_factor = 3) {
    std::vector<double> v;
    for (int i = 0; i < iterations; ++i) {
      double t = median_ms * std::exp(spread * Normal());
      if (Uniform() < outlier_probability) t *= outlier_factor;
      v.push_back(t);
    }
    return v;
  }

 private:
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  double Normal() {
    const double kPi = 3.14159265358979323846;
    return std::sqrt(-2.0 * std::log(1.0 - Uniform())) * std::cos(2.0 * kPi * Uniform());
  }
  std::mt19937_64 rng_;
};

struct Tally {
  int regression = 0;
  int improvement = 0;
  int no_change = 0;
  int insufficient = 0;
  int p_below_alpha = 0;       // what a p-value-only rule would have flagged
  int p_below_5_percent = 0;   // … at the customary 5 %
  int total = 0;
  void Add(const Comparison& c) {
    ++total;
    regression += c.verdict == Verdict::kRegression ? 1 : 0;
    improvement += c.verdict == Verdict::kImprovement ? 1 : 0;
    no_change += c.verdict == Verdict::kNoSignificantChange ? 1 : 0;
    insufficient += c.verdict == Verdict::kInsufficientData ? 1 : 0;
    p_below_alpha += *c.p_value < 0.01 ? 1 : 0;
    p_below_5_percent += *c.p_value < 0.05 ? 1 : 0;
  }
  double Rate(int n) const { return static_cast<double>(n) / total; }
  void Print(const char* scenario) const {
    std::printf(
        "[ %s ] %d pairs: regression %d, improvement %d, no change %d, insufficient %d; "
        "p < 0.01 alone %d, p < 0.05 alone %d\n",
        scenario, total, regression, improvement, no_change, insufficient, p_below_alpha,
        p_below_5_percent);
  }
};

constexpr int kPairs = 500;
// The verdict's false-positive rate is at most alpha = 1 % (see comparison.h); measured over
// 5,000 pairs it is 0.72 %. 500 pairs estimate it to ±0.45 % (1σ at 1 %), so the bound checked
// on them is 2 %: a rate of 1 % gives more than 10 of 500 with probability 1.4 %, and these
// seeds are fixed, so the test is either right or wrong, never flaky.
constexpr double kFalsePositiveBound = 0.02;

Tally Simulate(std::uint64_t seed, double candidate_factor, int iterations,
               double outlier_probability = 0) {
  LaunchModel model(seed);
  Tally tally;
  for (int i = 0; i < kPairs; ++i) {
    const std::vector<double> base = model.Run(800, iterations, 0.08, outlier_probability);
    const std::vector<double> cand =
        model.Run(800 * candidate_factor, iterations, 0.08, outlier_probability);
    tally.Add(Compare(base, cand));
  }
  return tally;
}

TEST(ComparisonSimulationTest, AaRunsStayWithinTheStatedFalsePositiveRate) {
  const Tally t = Simulate(0xA0A0, 1.0, 20);
  t.Print("A/A, 20 iterations, sigma 8 %");
  RecordProperty("false_positives", t.regression + t.improvement);
  EXPECT_EQ(t.insufficient, 0);
  EXPECT_LE(t.Rate(t.regression + t.improvement), kFalsePositiveBound);
  // The p-value alone behaves as a level-alpha test should (binomial 500 · 1 %: ≤ 12 at 4σ)…
  EXPECT_LE(t.p_below_alpha, 12);
  // … and the customary p < 0.05 would flag about one identical build in twenty.
  EXPECT_GE(t.p_below_5_percent, 10);
}

TEST(ComparisonSimulationTest, HeavyTailedAaRunsStayWithinTheStatedRate) {
  // 10 % of launches in both runs take 3× as long: the means jump around, the verdict must not.
  const Tally t = Simulate(0xA0A1, 1.0, 20, 0.10);
  t.Print("A/A, 20 iterations, 10 % 3x outliers");
  EXPECT_LE(t.Rate(t.regression + t.improvement), kFalsePositiveBound);
}

TEST(ComparisonSimulationTest, OutliersInOneRunDoNotFlipAnAaVerdict) {
  // The same distribution, but the candidate run had 2 cold-start outliers at 3× (e.g. the
  // first launches after install): a mean-based rule would cry regression (+20 % in the mean).
  LaunchModel model(0xA0A2);
  Tally t;
  int mean_up_20_percent = 0;
  for (int i = 0; i < kPairs; ++i) {
    const std::vector<double> base = model.Run(800, 20);
    std::vector<double> cand = model.Run(800, 20);
    cand[0] *= 3;
    cand[1] *= 3;
    double base_sum = 0;
    double cand_sum = 0;
    for (double v : base) base_sum += v;
    for (double v : cand) cand_sum += v;
    mean_up_20_percent += cand_sum >= 1.15 * base_sum ? 1 : 0;
    t.Add(Compare(base, cand));
  }
  t.Print("A/A, 2 of 20 candidate launches at 3x");
  EXPECT_GE(mean_up_20_percent, kPairs * 9 / 10);
  EXPECT_LE(t.Rate(t.regression + t.improvement), kFalsePositiveBound);
}

// Power. With σ = 8 % and 20 iterations a +10 % shift is 1.19 σ: no test at a 1 % two-sided
// level can catch it in more than ~88 % of runs (a z-test on log-times with σ known:
// Φ(ln 1.1 / (0.08·√(2/20)) − 2.576) = Φ(1.19)). The Mann–Whitney test alone reaches 82 %, the
// full verdict (5 % and CI criteria too) 79 % (5,000 pairs). So the brief's "95 % at 20
// iterations" cannot be met by any test at this alpha; the floor here guards against a verdict
// that loses its power, and the 40-iteration test below shows the count that does reach 95 %.
TEST(ComparisonSimulationTest, TenPercentSlowerIsARegressionAtTwentyIterations) {
  const Tally t = Simulate(0xB0B0, 1.10, 20);
  t.Print("+10 %, 20 iterations");
  RecordProperty("regressions", t.regression);
  EXPECT_EQ(t.improvement, 0);
  EXPECT_GE(t.Rate(t.regression), 0.75);
}

TEST(ComparisonSimulationTest, TenPercentFasterIsAnImprovementAtTwentyIterations) {
  const Tally t = Simulate(0xB0B1, 0.90, 20);
  t.Print("-10 %, 20 iterations");
  RecordProperty("improvements", t.improvement);
  EXPECT_EQ(t.regression, 0);
  EXPECT_GE(t.Rate(t.improvement), 0.75);
}

// The iteration count that catches a 10 % change in >= 95 % of nightly runs at σ = 8 %:
// measured over 5,000 pairs, +10 % is a regression in 93.7 % at 30 iterations, 95.9 % at 35,
// 97.9 % at 40.
TEST(ComparisonSimulationTest, TenPercentShiftsAreCaughtAtFortyIterations) {
  const Tally slower = Simulate(0xB0B2, 1.10, 40);
  slower.Print("+10 %, 40 iterations");
  EXPECT_GE(slower.Rate(slower.regression), 0.95);
  const Tally faster = Simulate(0xB0B3, 0.90, 40);
  faster.Print("-10 %, 40 iterations");
  EXPECT_GE(faster.Rate(faster.improvement), 0.95);
  const Tally same = Simulate(0xB0B4, 1.0, 40);
  same.Print("A/A, 40 iterations");
  EXPECT_LE(same.Rate(same.regression + same.improvement), kFalsePositiveBound);
}

}  // namespace
}  // namespace droidlab::analysis
