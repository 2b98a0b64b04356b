// analysis/leak.h: the suspected-leak rule over a run's memory counts, each figure worked out by
// hand (the least-squares slope of y on the iteration numbers: Σ(x−x̄)(y−ȳ) / Σ(x−x̄)²).
#include "analysis/leak.h"

#include <gtest/gtest.h>

#include <vector>

namespace droidlab::analysis {
namespace {

// Iterations 1..n of one pid with these Activities counts (ViewRootImpl 1, AppContexts 3).
std::vector<MemoryCounts> Activities(const std::vector<int64_t>& counts, int64_t pid = 500) {
  std::vector<MemoryCounts> out;
  int64_t iteration = 1;
  for (int64_t c : counts) out.push_back({iteration++, pid, c, 1, 3});
  return out;
}

TEST(LeakTest, OneActivityMorePerLaunchIsSuspected) {
  const auto series = Activities({1, 2, 3, 4, 5});
  const LeakVerdict v = CheckActivityLeak(series);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  ASSERT_TRUE(v.suspected);
  EXPECT_EQ(v.suspected->metric, "activities");
  EXPECT_EQ(v.suspected->from, 1);
  EXPECT_EQ(v.suspected->to, 5);
  EXPECT_DOUBLE_EQ(v.suspected->slope_per_iteration, 1.0);
  EXPECT_EQ(v.suspected->first_iteration, 1);
  EXPECT_EQ(v.suspected->last_iteration, 5);
  EXPECT_EQ(v.suspected->pid, 500);
}

TEST(LeakTest, AFlatCountIsNoLeak) {
  const auto series = Activities({1, 1, 1, 1, 1});
  const LeakVerdict v = CheckActivityLeak(series);
  EXPECT_EQ(v.check, LeakCheck::kNoLeak);
  EXPECT_FALSE(v.suspected);
}

TEST(LeakTest, ACountThatDropsWasReleased) {
  // Rose by 3 with slope 0.6 — but fell once on the way: released, not retained.
  const auto series = Activities({1, 2, 3, 2, 4});
  EXPECT_EQ(CheckActivityLeak(series).check, LeakCheck::kNoLeak);
}

TEST(LeakTest, OneStepThenFlatIsNoLeakBySlope) {
  // 1,3,3,3,3,3,3: rose by 2, non-decreasing; x̄ = 4, ȳ = 19/7; Σ(x−x̄)(y−ȳ) = 6 (only the first
  // point is off the flat part: (1−4)(1−19/7) = 36/7, and the rest sum to 6/7), Σ(x−x̄)² = 28:
  // slope 3/14 ≈ 0.214 ≤ 0.5. A screen opened once and kept is not a leak.
  const auto series = Activities({1, 3, 3, 3, 3, 3, 3});
  EXPECT_EQ(CheckActivityLeak(series).check, LeakCheck::kNoLeak);
  LeakRule lax;
  lax.min_slope = 0.2;  // the same series over a lower bar: the slope is what said no
  const LeakVerdict v = CheckActivityLeak(series, lax);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  EXPECT_NEAR(v.suspected->slope_per_iteration, 3.0 / 14.0, 1e-12);
}

TEST(LeakTest, ARiseBelowTheMinimumIsNoLeak) {
  // 1,1,2: slope 0.5 exactly (not above) and a rise of 1 (< 2).
  EXPECT_EQ(CheckActivityLeak(Activities({1, 1, 2})).check, LeakCheck::kNoLeak);
  // 1,2,3: rise 2, slope 1 — the smallest series the default rule suspects.
  EXPECT_EQ(CheckActivityLeak(Activities({1, 2, 3})).check, LeakCheck::kSuspected);
}

TEST(LeakTest, TooFewIterationsIsNotApplicable) {
  EXPECT_EQ(CheckActivityLeak(Activities({1, 5})).check, LeakCheck::kNotApplicable);
  EXPECT_EQ(CheckActivityLeak(std::vector<MemoryCounts>{}).check, LeakCheck::kNotApplicable);
}

TEST(LeakTest, ColdRunsWithANewPidEachIterationAreNotApplicable) {
  // Growing counts, but each from a new process: nothing was retained across launches.
  std::vector<MemoryCounts> series;
  for (int64_t i = 1; i <= 6; ++i) series.push_back({i, 1000 + i, i, 1, 3});
  const LeakVerdict v = CheckActivityLeak(series);
  EXPECT_EQ(v.check, LeakCheck::kNotApplicable);
  EXPECT_FALSE(v.suspected);
}

TEST(LeakTest, TheLongestStretchOfOneProcessIsJudged) {
  // Iterations 1-2 in pid 7 (counts 9, 9), then the app restarted: 3-7 in pid 8, growing by 2.
  std::vector<MemoryCounts> series = {{1, 7, 9, 1, 3}, {2, 7, 9, 1, 3}};
  for (int64_t i = 3; i <= 7; ++i) series.push_back({i, 8, 1 + 2 * (i - 3), 1, 3});
  const LeakVerdict v = CheckActivityLeak(series);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  EXPECT_EQ(v.suspected->pid, 8);
  EXPECT_EQ(v.suspected->from, 1);
  EXPECT_EQ(v.suspected->to, 9);
  EXPECT_EQ(v.suspected->first_iteration, 3);
  EXPECT_EQ(v.suspected->last_iteration, 7);
  EXPECT_DOUBLE_EQ(v.suspected->slope_per_iteration, 2.0);
}

TEST(LeakTest, ViewRootImplThenAppContextsWhenActivitiesStayFlat) {
  std::vector<MemoryCounts> series;
  for (int64_t i = 1; i <= 4; ++i) series.push_back({i, 9, 1, 1, 3 + i});
  LeakVerdict v = CheckActivityLeak(series);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  EXPECT_EQ(v.suspected->metric, "app_contexts");
  EXPECT_EQ(v.suspected->from, 4);
  EXPECT_EQ(v.suspected->to, 7);

  for (int64_t i = 1; i <= 4; ++i) series[i - 1].view_root_impl = i;
  v = CheckActivityLeak(series);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  EXPECT_EQ(v.suspected->metric, "view_root_impl");  // before app_contexts
}

TEST(LeakTest, IterationNumbersNotPositionsMakeTheSlope) {
  // Iterations 1, 2, 5, 6 (3 and 4 had no memory read): 1, 2, 5, 6 activities is one per
  // launch, slope 1 — by position it would look like 1.8.
  const std::vector<MemoryCounts> series = {
      {1, 3, 1, 1, 3}, {2, 3, 2, 1, 3}, {5, 3, 5, 1, 3}, {6, 3, 6, 1, 3}};
  const LeakVerdict v = CheckActivityLeak(series);
  ASSERT_EQ(v.check, LeakCheck::kSuspected);
  EXPECT_DOUBLE_EQ(v.suspected->slope_per_iteration, 1.0);
}

TEST(LeakTest, AVersionWithoutTheCountSaysNothingOfIt) {
  std::vector<MemoryCounts> series = Activities({1, 2, 3, 4});
  series[2].activities = std::nullopt;
  EXPECT_EQ(CheckActivityLeak(series).check, LeakCheck::kNoLeak);
}

TEST(LeakTest, CheckNames) {
  EXPECT_STREQ(LeakCheckName(LeakCheck::kNotApplicable), "not_applicable");
  EXPECT_STREQ(LeakCheckName(LeakCheck::kNoLeak), "no_leak");
  EXPECT_STREQ(LeakCheckName(LeakCheck::kSuspected), "suspected");
}

}  // namespace
}  // namespace droidlab::analysis
