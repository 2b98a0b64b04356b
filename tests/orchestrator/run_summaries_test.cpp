// Run summaries (orchestrator/lab/run_summaries.h): what a series point of a run holds — the
// counted launches only, a side-by-side run's candidate build only, the conditions the run
// measured under — and how it gets into the store: at a run's end, and by the back-fill for runs
// that succeeded before schema 0009, on a database made by the binary before it.
#include "orchestrator/lab/run_summaries.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "schema/migrations.h"
#include "store/open.h"
#include "store/sqlite.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;

store::Launch MakeLaunch(int64_t run_id, int64_t iteration, int64_t displayed) {
  store::Launch l;
  l.run_id = run_id;
  l.iteration = iteration;
  l.displayed_ms = displayed;
  l.total_time_ms = displayed + 5;
  return l;
}

const store::RunSummary& Metric(const std::vector<store::RunSummary>& rows,
                                const std::string& metric) {
  for (const auto& r : rows) {
    if (r.metric == metric) return r;
  }
  ADD_FAILURE() << "no " << metric;
  return rows.front();
}

TEST(RunSummariesTest, EveryMetricOverTheCountedLaunchesWithTheRunsConditions) {
  store::Run run;
  run.id = 7;
  run.created_at = 1234;
  run.spec_json = R"({"serial":"S","package":"com.a","mode":"cold","iterations":5,"build":12})";
  run.fingerprint = "google/panther/panther:14/UQ1A/1:user/release-keys";
  run.preflight_json = R"({"package":{"version_code":1200,"compiler_filter":"verify"},)"
                       R"("compilation":{"requested":"speed-profile","reached":"speed-profile"}})";
  std::vector<store::Launch> launches = {MakeLaunch(7, 1, 9000), MakeLaunch(7, 2, 500),
                                         MakeLaunch(7, 3, 520), MakeLaunch(7, 4, 510),
                                         MakeLaunch(7, 5, 8000)};
  launches[0].warmup = true;  // never counted
  launches[4].valid = false;  // never counted
  launches[2].fully_drawn_ms = 900;
  // Measured hotter than the run's limits (its spec names none: thermal "light", 38 °C): one
  // counted launch by its thermal status, one by its battery; the warm-up's does not count.
  launches[0].thermal_status = "critical";
  launches[1].thermal_status = "severe";
  launches[3].battery_temp_tenths_c = 455;
  launches[2].thermal_status = "light";
  launches[2].battery_temp_tenths_c = 300;
  const auto rows = SummarizeRunForSeries(run, launches);
  ASSERT_EQ(rows.size(), SeriesMetrics().size());
  const auto& displayed = Metric(rows, "displayed_ms");
  EXPECT_EQ(displayed.run_id, 7);
  EXPECT_EQ(displayed.t, 1234);
  EXPECT_EQ(displayed.count, 3);
  EXPECT_EQ(displayed.median, 510.0);
  EXPECT_DOUBLE_EQ(*displayed.p90, 518.0);  // type 7 over {500, 510, 520}
  ASSERT_TRUE(displayed.ci_low && displayed.ci_high);
  EXPECT_GE(*displayed.ci_low, 500.0);
  EXPECT_LE(*displayed.ci_high, 520.0);
  EXPECT_EQ(displayed.build_id, 12);
  EXPECT_EQ(displayed.version_code, 1200);
  EXPECT_EQ(displayed.fingerprint, run.fingerprint);
  EXPECT_EQ(displayed.compilation, "speed-profile");  // reached, not the preflight's verify
  EXPECT_EQ(displayed.hot_launches, 2);
  EXPECT_EQ(Metric(rows, "fully_drawn_ms").hot_launches, 2) << "the run's, on every row";
  EXPECT_EQ(Metric(rows, "total_time_ms").median, 515.0);
  const auto& fully_drawn = Metric(rows, "fully_drawn_ms");
  EXPECT_EQ(fully_drawn.count, 1);
  EXPECT_EQ(fully_drawn.median, 900.0);
  EXPECT_FALSE(fully_drawn.ci_low.has_value());  // one launch: no interval
}

store::IterationFrames FramesOf(int64_t run_id, int64_t iteration, double p90, double p99,
                                int64_t janky, int64_t total) {
  store::IterationFrames f;
  f.run_id = run_id;
  f.iteration = iteration;
  f.p90_ms = p90;
  f.p99_ms = p99;
  f.janky_frames = janky;
  f.total_frames = total;
  return f;
}

// The jank figures are series metrics too: each counted iteration's own, matched by iteration
// (frames of a warm-up or an invalid launch count for nothing, an iteration without frames gives
// no value), janky_pct from hwui's counts.
TEST(RunSummariesTest, JankFiguresAreSummarisedOverTheCountedIterationsFrames) {
  store::Run run;
  run.id = 8;
  run.created_at = 99;
  std::vector<store::Launch> launches = {MakeLaunch(8, 1, 900), MakeLaunch(8, 2, 500),
                                         MakeLaunch(8, 3, 510), MakeLaunch(8, 4, 520),
                                         MakeLaunch(8, 5, 530)};
  launches[0].warmup = true;
  launches[4].valid = false;
  // Out of order on purpose; iteration 3 has none.
  const std::vector<store::IterationFrames> frames = {
      FramesOf(8, 4, 20.0, 40.0, 5, 50), FramesOf(8, 1, 99.0, 199.0, 40, 40),
      FramesOf(8, 2, 10.0, 30.0, 1, 50), FramesOf(8, 5, 77.0, 88.0, 50, 50)};
  IterationTables tables;
  tables.frames = frames;
  // The memory too: iteration 2 and 4 (counted), 1 (a warm-up); 3 has none.
  for (const auto& [iteration, pss] : {std::pair<int64_t, int64_t>{2, 61000}, {4, 63000}, {1, 1}}) {
    store::IterationMemory m;
    m.run_id = 8;
    m.iteration = iteration;
    m.total_pss_kb = pss;
    tables.memory.push_back(m);
  }
  const auto rows = SummarizeRunForSeries(run, launches, tables);
  ASSERT_EQ(rows.size(), SeriesMetrics().size());
  const auto& pss = Metric(rows, "pss_kb");
  EXPECT_EQ(pss.count, 2);
  EXPECT_EQ(pss.median, 62000.0);
  const auto& p90 = Metric(rows, "frame_p90_ms");
  EXPECT_EQ(p90.count, 2);
  EXPECT_EQ(p90.median, 15.0);
  EXPECT_EQ(Metric(rows, "frame_p99_ms").median, 35.0);
  const auto& janky = Metric(rows, "janky_pct");
  EXPECT_EQ(janky.count, 2);
  EXPECT_DOUBLE_EQ(*janky.median, 6.0);  // 2 % and 10 %
  EXPECT_EQ(Metric(rows, "displayed_ms").count, 3);
  // Without frames: the launch metrics as before, the frame metrics empty.
  const auto without = SummarizeRunForSeries(run, launches);
  EXPECT_EQ(Metric(without, "frame_p90_ms").count, 0);
  EXPECT_EQ(Metric(without, "displayed_ms").count, 3);
  EXPECT_EQ(CountedMetricValues("janky_pct", launches, tables), (std::vector<double>{2.0, 10.0}));
  EXPECT_TRUE(IsSeriesMetric("frame_p99_ms"));
  EXPECT_FALSE(IsSeriesMetric("frame_p75_ms"));
}


// A side-by-side run measures its baseline build too, in ABBA blocks: its series point is its
// own build's launches (by the plan: iterations 2 and 3 here), its candidate install's
// versionCode and compilation state.
TEST(RunSummariesTest, ASideBySideRunIsItsCandidateBuildOnly) {
  store::Run run;
  run.id = 9;
  run.spec_json = R"({"serial":"S","package":"com.a","mode":"cold","iterations":2,"build":8,)"
                  R"("baseline_build":7,"block":1})";
  run.preflight_json =
      R"({"package":{"version_code":100},"side_by_side":{"baseline_build":7,"candidate_build":8,)"
      R"("block":1,"installs":[{"arm":"baseline","version_code":100,"compilation_reached":"speed"},)"
      R"({"arm":"candidate","version_code":101,"compilation_reached":"speed-profile"}]}})";
  std::vector<store::Launch> launches = {MakeLaunch(9, 1, 500), MakeLaunch(9, 2, 700),
                                         MakeLaunch(9, 3, 710), MakeLaunch(9, 4, 510)};
  for (auto& l : launches) l.build_id = l.displayed_ms < 600 ? 7 : 8;
  const auto rows = SummarizeRunForSeries(run, launches);
  const auto& displayed = Metric(rows, "displayed_ms");
  EXPECT_EQ(displayed.count, 2);
  EXPECT_EQ(displayed.median, 705.0);
  EXPECT_EQ(displayed.build_id, 8);
  EXPECT_EQ(displayed.version_code, 101);
  EXPECT_EQ(displayed.compilation, "speed-profile");
}

// A calibration run (issue 15 §3) is an A/A of a build, often not tonight's: the noise floor's,
// no point of a series — its rows are written with count 0, so the back-fill does not redo it.
TEST(RunSummariesTest, ACalibrationRunIsNoPoint) {
  store::Run run;
  run.id = 10;
  run.spec_json = R"({"serial":"S","package":"com.a","mode":"cold","iterations":2,"build":8,)"
                  R"("baseline_build":8,"block":2,"kind":"calibration"})";
  std::vector<store::Launch> launches = {MakeLaunch(10, 1, 500), MakeLaunch(10, 2, 510),
                                         MakeLaunch(10, 3, 505), MakeLaunch(10, 4, 515)};
  for (auto& l : launches) l.build_id = 8;
  const auto rows = SummarizeRunForSeries(run, launches);
  ASSERT_EQ(rows.size(), SeriesMetrics().size());
  for (const auto& r : rows) EXPECT_EQ(r.count, 0) << r.metric;
}

TEST(RunSummariesTest, ARunWithNothingCountedHasRowsWithCountZero) {
  store::Run run;
  run.id = 3;
  run.spec_json = "{}";
  std::vector<store::Launch> launches = {MakeLaunch(3, 1, 500)};
  launches[0].valid = false;
  const auto rows = SummarizeRunForSeries(run, launches);
  ASSERT_EQ(rows.size(), SeriesMetrics().size());
  for (const auto& r : rows) {
    EXPECT_EQ(r.count, 0) << r.metric;
    EXPECT_FALSE(r.median || r.p90 || r.ci_low || r.ci_high) << r.metric;
  }
}

TEST(RunSummariesTest, MetricNames) {
  EXPECT_TRUE(IsSeriesMetric("displayed_ms"));
  EXPECT_TRUE(IsSeriesMetric("fully_drawn_ms"));
  EXPECT_TRUE(IsSeriesMetric("total_time_ms"));
  EXPECT_FALSE(IsSeriesMetric("wait_time_ms"));
  EXPECT_FALSE(IsSeriesMetric(""));
}

class RunSummariesStoreTest : public ::testing::Test {
 protected:
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

  std::vector<store::RunSummary> Series(store::Store& st, const std::string& metric) {
    store::SeriesQuery q;
    q.package = "com.a";
    q.device_model = "Pixel 7";
    q.mode = "cold";
    q.metric = metric;
    auto points = st.Read([&](store::Reader& r) { return r.Series(q); });
    EXPECT_TRUE(points.ok()) << points.error().message;
    return points.ok() ? *points : std::vector<store::RunSummary>{};
  }

  testutil::TempDir dir_;
  asio::io_context io_;
};

TEST_F(RunSummariesStoreTest, RecordedFromWhatTheStoreHolds) {
  auto st = testutil::OpenTestStore(dir_);
  ASSERT_TRUE(st);
  store::NewRun run;
  run.spec_json = "{}";
  run.serial = "s1";
  run.device_model = "Pixel 7";
  run.package = "com.a";
  run.mode = "cold";
  run.iterations = 3;
  run.created_at = 5000;
  auto id = st->CreateRun(run);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(
      st->AddLaunches({MakeLaunch(*id, 1, 400), MakeLaunch(*id, 2, 420), MakeLaunch(*id, 3, 440)})
          .ok());
  ASSERT_TRUE(st->Flush().ok());
  const store::Status recorded = Await(RecordRunSummaries(store::AsyncStore(*st), *id));
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  const auto points = Series(*st, "displayed_ms");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].run_id, *id);
  EXPECT_EQ(points[0].t, 5000);
  EXPECT_EQ(points[0].median, 420.0);
  EXPECT_EQ(points[0].count, 3);
  EXPECT_TRUE(Series(*st, "fully_drawn_ms").empty());
}

// Runs that succeeded under schema 8 (no run_summaries) get their points from the back-fill
// once the daemon that knows 0009 opens the file; runs that did not succeed get none, a run
// with nothing counted gets rows but no point, and a second back-fill finds nothing to do.
TEST_F(RunSummariesStoreTest, RunsFinishedBeforeTheMigrationAreBackfilled) {
  const std::string path = dir_.File("droidlab.db");
  {
    const auto all = schema::Migrations();
    auto old = store::OpenWriterDatabase(path, {}, all.subspan(0, 8));
    ASSERT_TRUE(old.ok()) << old.error().message;
    ASSERT_TRUE(
        old->Execute(
               "INSERT INTO runs (id, spec, serial, device_model, package, mode, iterations, "
               "status,"
               " created_at, fingerprint, preflight) VALUES"
               " (1, '{}', 's1', 'Pixel 7', 'com.a', 'cold', 3, 'succeeded', 1000, 'fp/1',"
               "  '{\"package\":{\"version_code\":41}}'),"
               " (2, '{}', 's1', 'Pixel 7', 'com.a', 'cold', 3, 'failed', 2000, NULL, NULL),"
               " (3, '{}', 's1', 'Pixel 7', 'com.a', 'cold', 3, 'succeeded', 3000, 'fp/2', NULL),"
               " (4, '{}', 's1', 'Pixel 7', 'com.a', 'cold', 3, 'succeeded', 4000, NULL, NULL);"
               "INSERT INTO launches (run_id, iteration, displayed_ms, valid, warmup) VALUES"
               " (1, 1, 300, 1, 0), (1, 2, 310, 1, 0), (1, 3, 900, 1, 1),"
               " (2, 1, 100, 1, 0),"
               " (3, 1, 350, 1, 0), (3, 2, 360, 1, 0), (3, 3, 370, 1, 0),"
               " (4, 1, 200, 0, 0)",
               "seeding a schema-8 history")
            .ok());
  }
  store::StoreOptions options;
  options.path = path;
  auto opened = store::Store::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto st = std::move(opened).value();
  EXPECT_TRUE(Series(*st, "displayed_ms").empty());  // migrated, nothing summarised yet

  const BackfillResult done = Await(BackfillRunSummaries(store::AsyncStore(*st), /*page=*/2));
  EXPECT_FALSE(done.error) << *done.error;
  EXPECT_EQ(done.runs, 3);  // 1, 3 and 4; not the failed one
  const auto points = Series(*st, "displayed_ms");
  ASSERT_EQ(points.size(), 2u);  // run 4 counted nothing
  EXPECT_EQ(points[0].run_id, 1);
  EXPECT_EQ(points[0].median, 305.0);  // its warm-up left out
  EXPECT_EQ(points[0].version_code, 41);
  EXPECT_EQ(points[0].fingerprint, "fp/1");
  EXPECT_EQ(points[1].run_id, 3);
  EXPECT_EQ(points[1].median, 360.0);
  EXPECT_EQ(st->Read([](store::Reader& r) { return r.RunSummaries(4); })->size(),
            SeriesMetrics().size());
  EXPECT_TRUE(st->Read([](store::Reader& r) { return r.RunSummaries(2); })->empty());

  const BackfillResult again = Await(BackfillRunSummaries(store::AsyncStore(*st)));
  EXPECT_FALSE(again.error);
  EXPECT_EQ(again.runs, 0);
}

}  // namespace
}  // namespace droidlab::orchestrator
