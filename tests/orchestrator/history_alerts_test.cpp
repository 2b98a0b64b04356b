// The alerts a run's end raises and resolves (orchestrator/lab/history_alerts.h), as pure
// decisions: which open alerts a settled change point that lowers the series resolves.
#include "orchestrator/lab/history_alerts.h"

#include <gtest/gtest.h>

#include <vector>

namespace droidlab::orchestrator {
namespace {

RunVerdict SeriesOf(const std::string& package, const std::string& model) {
  RunVerdict verdict;
  verdict.run.id = 40;
  verdict.run.package = package;
  verdict.run.device_model = model;
  verdict.run.mode = "cold";
  return verdict;
}

// A slowdown of a series from `before` to `after` ms, first seen at run `run_id`.
store::Alert Slowdown(int64_t id, const std::string& package, double before, double after,
                      int64_t run_id, const std::string& kind = "regression") {
  store::Alert alert;
  alert.id = id;
  alert.state = "open";
  alert.kind = kind;
  alert.package = package;
  alert.model = "Pixel 7";
  alert.mode = "cold";
  alert.metric = "displayed_ms";
  alert.delta = after - before;
  alert.delta_pct = 100 * (after / before - 1);
  alert.run_id = run_id;
  return alert;
}

analysis::ChangePoint Settled(int64_t run_id, double before, double after) {
  analysis::ChangePoint change;
  change.run_id = run_id;
  change.median_before = before;
  change.median_after = after;
  change.delta = after - before;
  change.delta_percent = 100 * (after / before - 1);
  change.settled = true;
  return change;
}

TEST(HistoryAlertsTest, AFixBackToTheOldLevelResolvesTheSlowdownsOfItsSeriesOnly) {
  const RunVerdict verdict = SeriesOf("com.example.a", "Pixel 7");
  std::vector<store::Alert> open = {
      Slowdown(1, "com.example.a", 800, 960, 10),                  // 800 → 960: midpoint 880
      Slowdown(2, "com.example.a", 800, 960, 11, "change_point"),  // the same, as change point
      Slowdown(3, "com.example.b", 800, 960, 10),                  // another package
      Slowdown(4, "com.example.a", 800, 960, 30),                  // after the fix: still open
  };
  open.push_back(Slowdown(5, "com.example.a", 800, 960, 10));
  open.back().model = "Pixel 8";  // another phone model
  open.push_back(Slowdown(6, "com.example.a", 800, 960, 10));
  open.back().mode = "warm";

  EXPECT_EQ(AlertsRecoveredBy(verdict, Settled(25, 960, 810), open), (std::vector<int64_t>{1, 2}));
}

TEST(HistoryAlertsTest, APartialRecoveryOrAFasterChangeElsewhereLeavesTheAlertOpen) {
  const RunVerdict verdict = SeriesOf("com.example.a", "Pixel 7");
  const std::vector<store::Alert> open = {Slowdown(1, "com.example.a", 800, 960, 10)};
  EXPECT_TRUE(AlertsRecoveredBy(verdict, Settled(25, 960, 900), open).empty());  // 900 > 880
  EXPECT_EQ(AlertsRecoveredBy(verdict, Settled(25, 960, 870), open), (std::vector<int64_t>{1}));

  // Only a settled change that lowers the series resolves.
  analysis::ChangePoint unsettled = Settled(25, 960, 800);
  unsettled.settled = false;
  EXPECT_TRUE(AlertsRecoveredBy(verdict, unsettled, open).empty());
  EXPECT_TRUE(AlertsRecoveredBy(verdict, Settled(25, 700, 800), open).empty());
}

TEST(HistoryAlertsTest, AnAlertWithoutItsSizeOrForASpeedUpIsNeverResolvedByAFix) {
  const RunVerdict verdict = SeriesOf("com.example.a", "Pixel 7");
  std::vector<store::Alert> open = {Slowdown(1, "com.example.a", 960, 800, 10)};  // faster
  open.push_back(Slowdown(2, "com.example.a", 800, 960, 10));
  open.back().delta_pct.reset();
  open.push_back(Slowdown(3, "com.example.a", 800, 960, 10));
  open.back().state = "resolved";
  EXPECT_TRUE(AlertsRecoveredBy(verdict, Settled(25, 960, 700), open).empty());
}

}  // namespace
}  // namespace droidlab::orchestrator
