// Run summaries and series (schema 0009) through the store's public API on a real file: the
// summaries filed under their run's package, model, mode and time, a series read as one range of
// the primary key in time order with its filters, the runs still to summarise, retention.
// What a summary holds (counted launches, a side-by-side run's candidate only) is the
// orchestrator's and tested there (tests/orchestrator/run_summaries_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/open.h"
#include "store/sql/run_summaries.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

using testutil::TempDir;

class SeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.path = testutil::TestStoreLocation(dir_);
    auto opened = Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened).value();
  }

  int64_t AddRun(int64_t created_at, std::optional<std::string> model = "Pixel 7",
                 std::string mode = "cold", std::string package = "com.a",
                 RunStatus status = RunStatus::kSucceeded) {
    NewRun run;
    run.spec_json = "{}";
    run.serial = "s1";
    run.device_model = std::move(model);
    run.package = std::move(package);
    run.mode = std::move(mode);
    run.iterations = 3;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok()) << id.error().message;
    RunStatusUpdate update;
    update.run_id = *id;
    update.status = status;
    EXPECT_TRUE(store_->UpdateRunStatus(update).ok());
    return *id;
  }

  // The run's summaries of every metric: `median` for displayed_ms, +5 for total_time_ms,
  // nothing counted for fully_drawn_ms.
  void Summarise(int64_t run_id, double median, int64_t count = 10) {
    std::vector<RunSummary> rows;
    for (const char* metric : {"displayed_ms", "fully_drawn_ms", "total_time_ms"}) {
      RunSummary s;
      s.run_id = run_id;
      s.metric = metric;
      s.build_id = 4;
      s.version_code = 1200;
      s.fingerprint = "google/panther/panther:14/UQ1A/1:user/release-keys";
      s.compilation = "speed-profile";
      if (std::string(metric) != "fully_drawn_ms") {
        const double m = std::string(metric) == "total_time_ms" ? median + 5 : median;
        s.count = count;
        s.median = m;
        s.p90 = m + 40;
        s.ci_low = m - 8;
        s.ci_high = m + 9;
      }
      rows.push_back(std::move(s));
    }
    ASSERT_TRUE(store_->AddRunSummaries(std::move(rows)).ok());
  }

  std::vector<RunSummary> Series(SeriesQuery q) {
    auto points = store_->Read([&](Reader& r) { return r.Series(q); });
    EXPECT_TRUE(points.ok()) << points.error().message;
    return points.ok() ? *points : std::vector<RunSummary>{};
  }

  static SeriesQuery Query(std::string metric = "displayed_ms") {
    SeriesQuery q;
    q.package = "com.a";
    q.device_model = "Pixel 7";
    q.mode = "cold";
    q.metric = std::move(metric);
    return q;
  }

  static std::vector<int64_t> Ids(const std::vector<RunSummary>& points) {
    std::vector<int64_t> ids;
    for (const auto& p : points) ids.push_back(p.run_id);
    return ids;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(SeriesTest, ASeriesIsOnePackageModelModeAndMetricInTimeOrder) {
  // Created out of id order: the series is in created_at order, then run id.
  const int64_t late = AddRun(3000);
  const int64_t early = AddRun(1000);
  const int64_t tie = AddRun(3000);
  const int64_t other_model = AddRun(2000, "Pixel 8");
  const int64_t other_mode = AddRun(2000, "Pixel 7", "warm");
  const int64_t other_package = AddRun(2000, "Pixel 7", "cold", "com.b");
  for (int64_t id : {late, early, tie, other_model, other_mode, other_package}) {
    Summarise(id, 500.0 + static_cast<double>(id));
  }
  const auto points = Series(Query());
  EXPECT_EQ(Ids(points), (std::vector<int64_t>{early, late, tie}));
  ASSERT_EQ(points.size(), 3u);
  const RunSummary& p = points[0];
  EXPECT_EQ(p.t, 1000);  // the run's created_at, taken from the run by the store
  EXPECT_EQ(p.metric, "displayed_ms");
  EXPECT_EQ(p.count, 10);
  EXPECT_EQ(p.median, 500.0 + static_cast<double>(early));
  EXPECT_EQ(p.p90, *p.median + 40);
  EXPECT_EQ(p.ci_low, *p.median - 8);
  EXPECT_EQ(p.ci_high, *p.median + 9);
  EXPECT_EQ(p.build_id, 4);
  EXPECT_EQ(p.version_code, 1200);
  EXPECT_EQ(p.fingerprint, "google/panther/panther:14/UQ1A/1:user/release-keys");
  EXPECT_EQ(p.compilation, "speed-profile");

  const auto total = Series(Query("total_time_ms"));
  ASSERT_EQ(total.size(), 3u);
  EXPECT_EQ(total[0].median, 505.0 + static_cast<double>(early));

  auto q = Query();
  q.device_model = "Pixel 8";
  EXPECT_EQ(Ids(Series(q)), (std::vector<int64_t>{other_model}));
  q = Query();
  q.mode = "warm";
  EXPECT_EQ(Ids(Series(q)), (std::vector<int64_t>{other_mode}));
}

TEST_F(SeriesTest, SinceAndUntilAreInclusiveBoundsOnTheRunsTime) {
  std::vector<int64_t> ids;
  for (int64_t t : {1000, 2000, 3000, 4000}) {
    ids.push_back(AddRun(t));
    Summarise(ids.back(), 500);
  }
  auto q = Query();
  q.since = 2000;
  q.until = 3000;
  EXPECT_EQ(Ids(Series(q)), (std::vector<int64_t>{ids[1], ids[2]}));
  q.since = 3001;
  q.until = 3999;
  EXPECT_TRUE(Series(q).empty());
}

// A run with no counted launch of a metric keeps its row (so the back-fill does not come back
// to it) but is no point of that metric's series.
TEST_F(SeriesTest, ARunWithNothingCountedIsNoPoint) {
  const int64_t measured = AddRun(1000);
  const int64_t empty = AddRun(2000);
  Summarise(measured, 500);
  Summarise(empty, 0, /*count=*/0);
  {
    std::vector<RunSummary> rows;
    for (const char* metric : {"displayed_ms", "fully_drawn_ms", "total_time_ms"}) {
      RunSummary s;
      s.run_id = empty;
      s.metric = metric;
      rows.push_back(s);
    }
    ASSERT_TRUE(store_->AddRunSummaries(rows).ok());  // replaces: count 0, nulls
  }
  EXPECT_EQ(Ids(Series(Query())), (std::vector<int64_t>{measured}));
  EXPECT_TRUE(Series(Query("fully_drawn_ms")).empty());
  auto stored = store_->Read([&](Reader& r) { return r.RunSummaries(empty); });
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 3u);
  EXPECT_EQ((*stored)[0].count, 0);
  EXPECT_FALSE((*stored)[0].median.has_value());
  auto missing = store_->Read([&](Reader& r) { return r.RunsWithoutSummaries(0, 100); });
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());
}

TEST_F(SeriesTest, SummarisingARunAgainReplacesItsRows) {
  const int64_t id = AddRun(1000);
  Summarise(id, 500);
  Summarise(id, 800);
  const auto points = Series(Query());
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].median, 800.0);
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.RunSummaries(id); })->size(), 3u);
}

TEST_F(SeriesTest, ARunWithAnUnknownModelIsItsOwnSeries) {
  const int64_t unknown = AddRun(1000, std::nullopt);
  const int64_t known = AddRun(2000);
  Summarise(unknown, 500);
  Summarise(known, 600);
  auto q = Query();
  q.device_model.reset();
  EXPECT_EQ(Ids(Series(q)), (std::vector<int64_t>{unknown}));
  EXPECT_EQ(Ids(Series(Query())), (std::vector<int64_t>{known}));
  auto keys = store_->Read([&](Reader& r) { return r.SeriesOfPackage("com.a"); });
  ASSERT_TRUE(keys.ok()) << keys.error().message;
  // fully_drawn_ms has no points: not listed. The unknown model first.
  ASSERT_EQ(keys->size(), 4u);
  EXPECT_FALSE((*keys)[0].device_model.has_value());
  EXPECT_EQ((*keys)[0].metric, "displayed_ms");
  EXPECT_EQ((*keys)[0].points, 1);
  EXPECT_EQ((*keys)[2].device_model, "Pixel 7");
  EXPECT_EQ((*keys)[2].mode, "cold");
  EXPECT_EQ((*keys)[2].first_t, 2000);
  EXPECT_EQ((*keys)[3].metric, "total_time_ms");
}

TEST_F(SeriesTest, RunsWithoutSummariesAreTheSucceededOnesInIdOrder) {
  const int64_t a = AddRun(1000);
  const int64_t failed = AddRun(1100, "Pixel 7", "cold", "com.a", RunStatus::kFailed);
  const int64_t b = AddRun(1200);
  const int64_t c = AddRun(1300);
  Summarise(b, 500);
  auto missing = store_->Read([&](Reader& r) { return r.RunsWithoutSummaries(0, 100); });
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_EQ(*missing, (std::vector<int64_t>{a, c}));
  auto after_a = store_->Read([&](Reader& r) { return r.RunsWithoutSummaries(a, 1); });
  EXPECT_EQ(*after_a, (std::vector<int64_t>{c}));
  (void)failed;
}

// A summary of a run that is gone (deleted by retention between its reading and its writing)
// inserts nothing; retention deletes a run's summaries with it.
TEST_F(SeriesTest, SummariesGoWithTheirRun) {
  std::vector<RunSummary> orphan(1);
  orphan[0].run_id = 999;
  orphan[0].metric = "displayed_ms";
  orphan[0].count = 3;
  orphan[0].median = 1;
  ASSERT_TRUE(store_->AddRunSummaries(orphan).ok());
  EXPECT_TRUE(store_->Read([&](Reader& r) { return r.RunSummaries(999); })->empty());

  const int64_t old_run = AddRun(1000);
  const int64_t new_run = AddRun(5000);
  Summarise(old_run, 500);
  Summarise(new_run, 500);
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(1000);
  policy.now_ms = 5000;
  ASSERT_TRUE(store_->Prune(policy).ok());
  EXPECT_EQ(Ids(Series(Query())), (std::vector<int64_t>{new_run}));
  EXPECT_TRUE(store_->Read([&](Reader& r) { return r.RunSummaries(old_run); })->empty());
}

// The series query (the statement the reader runs) is a range of the primary key in its order:
// no sort, no other table.
TEST_F(SeriesTest, TheSeriesQueryIsOneRangeOfThePrimaryKey) {
  DROIDLAB_SQLITE_ONLY("SQLite's query plans");
  auto db = OpenReaderDatabase(store_->path(), 1000);
  ASSERT_TRUE(db.ok());
  auto plan = [&](const char* statement) {
    auto st = db->Prepare(std::string("EXPLAIN QUERY PLAN ") + statement);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    std::string text;
    while (st->StepOnce() == Statement::Step::kRow) text += st->ColumnString(3) + "; ";
    return text;
  };
  const std::string series = plan(sql::kSeries);
  EXPECT_NE(series.find("PRIMARY KEY (package=? AND device_model=? AND mode=? AND metric=? AND"
                        " t>? AND t<?)"),
            std::string::npos)
      << series;
  EXPECT_EQ(series.find("TEMP B-TREE"), std::string::npos) << series;
  const std::string missing = plan(sql::kRunsWithoutSummaries);
  EXPECT_NE(missing.find("run_summaries_by_run"), std::string::npos) << missing;
}

}  // namespace
}  // namespace droidlab::store
