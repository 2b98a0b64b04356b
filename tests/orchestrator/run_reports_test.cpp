// RunReports over a real SQLite store: a run's report (summaries over its valid launches only)
// and its comparison with a baseline — the previous successful run of the same package, model
// and mode, or a named one — without HTTP (the API and the scheduler ask the same service).
#include "orchestrator/lab/run_reports.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;

class RunReportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  // A run of `model` with one launch per value in `displayed` (valid), plus one invalid launch
  // of 99,999 ms that no summary or comparison may see; `succeeded` or left queued.
  int64_t AddRun(const std::string& model, const std::string& mode, int64_t created_at,
                 const std::vector<int64_t>& displayed, bool succeeded = true) {
    store::NewRun run;
    run.spec_json = "{}";
    run.serial = "SERIAL1";
    run.device_model = model;
    run.package = "com.example.app";
    run.mode = mode;
    run.iterations = static_cast<int64_t>(displayed.size()) + 1;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok());
    std::vector<store::Launch> launches;
    for (size_t i = 0; i < displayed.size(); ++i) {
      store::Launch l;
      l.run_id = *id;
      l.iteration = static_cast<int64_t>(i);
      l.displayed_ms = displayed[i];
      l.total_time_ms = displayed[i] + 5;
      launches.push_back(l);
    }
    store::Launch invalid;
    invalid.run_id = *id;
    invalid.iteration = static_cast<int64_t>(displayed.size());
    invalid.displayed_ms = 99'999;
    invalid.valid = false;
    invalid.invalid_reason = "LaunchState WARM, not COLD";
    launches.push_back(invalid);
    EXPECT_TRUE(store_->AddLaunches(std::move(launches)).ok());
    if (succeeded) {
      store::RunStatusUpdate done;
      done.run_id = *id;
      done.status = store::RunStatus::kSucceeded;
      done.started_at = created_at;
      done.finished_at = created_at + 1;
      EXPECT_TRUE(store_->UpdateRunStatus(done).ok());
    }
    EXPECT_TRUE(store_->Flush().ok());
    return *id;
  }

  // Runs `op` on the test's io_context to its end (results are not default-constructible,
  // so no use_future).
  template <class T>
  T Await(asio::awaitable<T> op) {
    std::optional<T> result;
    auto keep = [](asio::awaitable<T> inner, std::optional<T>& out) -> asio::awaitable<void> {
      out.emplace(co_await std::move(inner));
    };
    asio::co_spawn(io_, keep(std::move(op), result), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
    io_.run();
    io_.restart();
    return std::move(*result);
  }

  static std::vector<int64_t> Around(int64_t median, int n = 12) {
    std::vector<int64_t> v;
    for (int i = 0; i < n; ++i) v.push_back(median - n / 2 + i);
    return v;
  }

  testutil::TempDir dir_;
  // Before the store, so that it goes after it: a store call left outstanding completes into it
  // from the writer's thread until the store's close joins that thread (run_queue_test.cpp).
  asio::io_context io_;
  std::unique_ptr<store::Store> store_;
};

TEST_F(RunReportsTest, ReportSummarisesTheValidLaunchesOnly) {
  const int64_t id = AddRun("Pixel 7", "cold", 1'000, {700, 800, 900});
  RunReports reports(*store_);
  auto report = Await(reports.Report(id));
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->run.id, id);
  EXPECT_EQ(report->launches.recorded, 4);
  EXPECT_EQ(report->launches.valid, 3);
  ASSERT_TRUE(report->launches.displayed_ms);
  EXPECT_EQ(report->launches.displayed_ms->count, 3u);
  EXPECT_DOUBLE_EQ(*report->launches.displayed_ms->median, 800);
  EXPECT_DOUBLE_EQ(*report->launches.displayed_ms->max, 900);  // not the invalid 99,999
  ASSERT_TRUE(report->launches.total_time_ms);
  EXPECT_DOUBLE_EQ(*report->launches.total_time_ms->median, 805);
  EXPECT_FALSE(report->launches.fully_drawn_ms);  // no launch reported it
  EXPECT_FALSE(report->progress);                 // no queue
}

// Issue 14 §3: warm-up launches are stored and counted as such, never in a statistic.
TEST(LaunchSummariesTest, WarmupsAreLeftOutOfEveryStatistic) {
  std::vector<store::Launch> launches(5);
  for (size_t i = 0; i < launches.size(); ++i) {
    launches[i].iteration = static_cast<int64_t>(i) + 1;
    launches[i].displayed_ms = 500 + static_cast<int64_t>(i);
  }
  launches[0].warmup = true;
  launches[0].displayed_ms = 5'000;  // the first, slow launch a warm-up exists to absorb
  launches[1].warmup = true;
  launches[1].displayed_ms = 4'000;
  const LaunchSummaries s = SummarizeLaunches(launches);
  EXPECT_EQ(s.recorded, 5);
  EXPECT_EQ(s.valid, 3);
  EXPECT_EQ(s.warmup, 2);
  ASSERT_TRUE(s.displayed_ms);
  EXPECT_EQ(s.displayed_ms->count, 3u);
  EXPECT_DOUBLE_EQ(*s.displayed_ms->max, 504);
  EXPECT_EQ(ValidDisplayedMs(launches), (std::vector<double>{502, 503, 504}));
}

TEST_F(RunReportsTest, ReportOfAMissingRunIsNotFound) {
  RunReports reports(*store_);
  auto report = Await(reports.Report(42));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, store::StoreErrorCode::kNotFound);
}

TEST_F(RunReportsTest, ThePreviousBaselineIsTheLatestEarlierSuccessOfTheSameModelAndMode) {
  const int64_t older = AddRun("Pixel 7", "cold", 1'000, Around(800));
  const int64_t baseline = AddRun("Pixel 7", "cold", 2'000, Around(800));
  AddRun("Pixel 8", "cold", 2'500, Around(500));         // another model
  AddRun("Pixel 7", "warm", 2'600, Around(300));         // another mode
  AddRun("Pixel 7", "cold", 2'700, Around(400), false);  // did not succeed
  const int64_t candidate = AddRun("Pixel 7", "cold", 3'000, Around(1'000));
  RunReports reports(*store_);

  auto previous = Await(reports.CompareWithBaseline(candidate, std::nullopt));
  ASSERT_TRUE(previous.ok()) << previous.error().message;
  EXPECT_EQ(previous->candidate.id, candidate);
  EXPECT_EQ(previous->baseline.id, baseline);
  EXPECT_EQ(previous->metric, "displayed_ms");
  EXPECT_EQ(previous->comparison.verdict, analysis::Verdict::kRegression);
  EXPECT_EQ(previous->comparison.candidate_count, 12u);  // the invalid launch left out
  EXPECT_DOUBLE_EQ(*previous->comparison.delta_ms, 200);

  auto named = Await(reports.CompareWithBaseline(candidate, older));
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->baseline.id, older);
}

// Issue 14 §4: a regression measured across an OTA is no verdict unless asked for.
TEST_F(RunReportsTest, AcrossAnOtaTheComparisonIsNotComparableUnlessAllowed) {
  // Left queued by AddRun and ended here with their builds' fingerprints: an ended run keeps
  // what it ended with.
  const int64_t baseline = AddRun("Pixel 7", "cold", 2'000, Around(800), false);
  const int64_t candidate = AddRun("Pixel 7", "cold", 3'000, Around(1'000), false);
  for (const auto& [id, fingerprint] :
       {std::pair{baseline, "google/panther/panther:13/T/1:user/release-keys"},
        std::pair{candidate, "google/panther/panther:14/U/2:user/release-keys"}}) {
    store::RunStatusUpdate update;
    update.run_id = id;
    update.status = store::RunStatus::kSucceeded;
    update.fingerprint = fingerprint;
    ASSERT_TRUE(store_->UpdateRunStatus(update).ok());
  }
  ASSERT_TRUE(store_->Flush().ok());
  RunReports reports(*store_);
  auto blocked = Await(reports.CompareWithBaseline(candidate, std::nullopt));
  ASSERT_TRUE(blocked.ok()) << blocked.error().message;
  EXPECT_EQ(blocked->baseline.id, baseline);
  EXPECT_FALSE(blocked->comparability.comparable);
  EXPECT_TRUE(blocked->not_comparable());
  EXPECT_EQ(blocked->comparison.verdict, analysis::Verdict::kRegression);  // the statistics' own
  auto allowed = Await(reports.CompareWithBaseline(candidate, std::nullopt, true));
  ASSERT_TRUE(allowed.ok());
  EXPECT_FALSE(allowed->not_comparable());
}

TEST_F(RunReportsTest, NoEarlierRunToCompareWithSaysWhich) {
  const int64_t first = AddRun("Pixel 7", "cold", 1'000, Around(800));
  RunReports reports(*store_);
  auto comparison = Await(reports.CompareWithBaseline(first, std::nullopt));
  ASSERT_FALSE(comparison.ok());
  EXPECT_EQ(comparison.error().code, store::StoreErrorCode::kNotFound);
  EXPECT_EQ(comparison.error().message,
            "no earlier successful run of com.example.app (cold) on Pixel 7 to compare with");
  auto missing = Await(reports.CompareWithBaseline(first, 77));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, store::StoreErrorCode::kNotFound);
}

}  // namespace
}  // namespace droidlab::orchestrator
