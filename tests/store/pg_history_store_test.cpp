// The PostgreSQL writes and reads of a run's per-iteration measurements, run summaries and
// series, builds and alerts (store/pg/measurement_writes.h, build_writes.h, alert_writes.h and
// PgReader's history_reads.cpp, build_reads.cpp, alert_reads.cpp) against a real server: the same
// records written through the SQLite store and through the PostgreSQL functions read back the
// same through both readers, field by field (ids included: both number from 1), in the same
// order, with the same cursors; and the same refusals (kNotFound, kConstraint, kInvalidArgument).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/pg/alert_writes.h"
#include "store/pg/build_writes.h"
#include "store/pg/connection.h"
#include "store/pg/measurement_writes.h"
#include "store/pg/migrate.h"
#include "store/pg/reader.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/common/pg_server.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"
#include "tests/store/pg_test_queries.h"

namespace droidlab::store::pg {
namespace {

using testutil::SharedPgServer;

// ---- Field by field: what both readers must agree on ---------------------------------------

#define SAME(field) EXPECT_EQ(a.field, b.field) << where << ": ." #field

void Same(const IterationFrames& a, const IterationFrames& b, const std::string& where) {
  SAME(run_id);
  SAME(iteration);
  SAME(total_frames);
  SAME(janky_frames);
  SAME(gfx_p50_ms);
  SAME(gfx_p90_ms);
  SAME(gfx_p95_ms);
  SAME(gfx_p99_ms);
  SAME(frame_rows);
  SAME(counted);
  SAME(refresh_period_ns);
  SAME(p50_ms);
  SAME(p90_ms);
  SAME(p95_ms);
  SAME(p99_ms);
  SAME(over_16_7ms);
  SAME(over_33ms);
  SAME(over_50ms);
  SAME(over_1_vsync);
  SAME(over_2_vsyncs);
  SAME(over_3_vsyncs);
  SAME(matrix_normal);
  SAME(matrix_middle);
  SAME(matrix_high);
  SAME(matrix_frozen);
  SAME(dropped_frames);
  SAME(jank);
  SAME(big_jank);
  SAME(columns_json);
  SAME(rows_json);
}

void Same(const IterationFault& a, const IterationFault& b, const std::string& where) {
  SAME(run_id);
  SAME(iteration);
  SAME(seq);
  SAME(kind);
  SAME(time);
  SAME(at_ms);
  SAME(pid);
  SAME(process_name);
  SAME(reason);
  SAME(stack);
  SAME(duration_ms);
}

void Same(const IterationMemory& a, const IterationMemory& b, const std::string& where) {
  SAME(run_id);
  SAME(iteration);
  SAME(pid);
  SAME(total_pss_kb);
  SAME(total_rss_kb);
  SAME(total_swap_pss_kb);
  SAME(java_heap_kb);
  SAME(native_heap_kb);
  SAME(code_kb);
  SAME(stack_kb);
  SAME(graphics_kb);
  SAME(private_other_kb);
  SAME(system_kb);
  SAME(views);
  SAME(view_root_impl);
  SAME(app_contexts);
  SAME(activities);
  SAME(assets);
  SAME(asset_managers);
  SAME(local_binders);
  SAME(proxy_binders);
  SAME(death_recipients);
  SAME(webviews);
}

void Same(const RunSummary& a, const RunSummary& b, const std::string& where) {
  SAME(run_id);
  SAME(metric);
  SAME(t);
  SAME(count);
  SAME(median);
  SAME(p90);
  SAME(ci_low);
  SAME(ci_high);
  SAME(build_id);
  SAME(version_code);
  SAME(fingerprint);
  SAME(compilation);
  SAME(hot_launches);
}

void Same(const SeriesKey& a, const SeriesKey& b, const std::string& where) {
  SAME(device_model);
  SAME(mode);
  SAME(metric);
  SAME(points);
  SAME(first_t);
  SAME(last_t);
}

void Same(int64_t a, int64_t b, const std::string& where) { EXPECT_EQ(a, b) << where; }

void Same(const BuildFile& a, const BuildFile& b, const std::string& where) {
  SAME(name);
  SAME(kind);
  SAME(split);
  SAME(sha256);
  SAME(size);
}

template <class T>
void Same(const std::vector<T>& a, const std::vector<T>& b, const std::string& where);

void Same(const Build& a, const Build& b, const std::string& where) {
  SAME(id);
  SAME(sha256);
  SAME(package);
  SAME(version_code);
  SAME(version_name);
  SAME(min_sdk);
  SAME(target_sdk);
  SAME(size);
  SAME(file_name);
  SAME(created_at);
  SAME(signature);
  Same(a.files, b.files, where + " files");
}

void Same(const DeviceInstalledBuild& a, const DeviceInstalledBuild& b, const std::string& where) {
  SAME(package);
  SAME(build_id);
  SAME(version_code);
  SAME(sha256);
  SAME(install_method);
  SAME(at);
  SAME(run_id);
}

void Same(const AlertDeliveryAttempt& a, const AlertDeliveryAttempt& b, const std::string& where) {
  SAME(attempt);
  SAME(started_at);
  SAME(duration_ms);
  SAME(http_status);
  SAME(error);
}

void Same(const AlertDelivery& a, const AlertDelivery& b, const std::string& where) {
  SAME(id);
  SAME(alert_id);
  SAME(url);
  SAME(delivery_id);
  SAME(status);
  SAME(attempts);
  SAME(next_attempt_at);
  SAME(created_at);
  SAME(finished_at);
  Same(a.attempt_log, b.attempt_log, where + " attempts");
}

void Same(const Alert& a, const Alert& b, const std::string& where) {
  SAME(id);
  SAME(kind);
  SAME(package);
  SAME(model);
  SAME(mode);
  SAME(metric);
  SAME(delta);
  SAME(delta_pct);
  SAME(ci_low);
  SAME(ci_high);
  SAME(run_id);
  SAME(build_id);
  SAME(version_code);
  SAME(explained_by);
  SAME(state);
  SAME(created_at);
  SAME(resolved_at);
  Same(a.deliveries, b.deliveries, where + " deliveries");
}

void Same(const PendingAlertDelivery& a, const PendingAlertDelivery& b, const std::string& where) {
  Same(a.delivery, b.delivery, where + " delivery");
  Same(a.alert, b.alert, where + " alert");
}

void Same(const OpenRegressionCount& a, const OpenRegressionCount& b, const std::string& where) {
  SAME(package);
  SAME(model);
  SAME(count);
}

void Same(const AlertPage& a, const AlertPage& b, const std::string& where) {
  SAME(next_cursor);
  Same(a.alerts, b.alerts, where);
}

#undef SAME

template <class T>
void Same(const std::vector<T>& a, const std::vector<T>& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where << ": the number of rows";
  for (size_t i = 0; i < a.size(); ++i) Same(a[i], b[i], where + " [" + std::to_string(i) + "]");
}

// Both answers succeeded and agree; `where` names the query in a failure.
template <class T>
void ExpectSame(const StoreResult<T>& sqlite, const StoreResult<T>& pg, const std::string& where) {
  ASSERT_TRUE(sqlite.ok()) << where << " (SQLite): " << sqlite.error().message;
  ASSERT_TRUE(pg.ok()) << where << " (PostgreSQL): " << pg.error().message;
  Same(*sqlite, *pg, where);
}

// Both refused with `code`.
template <class T>
void ExpectBothRefuse(const StoreResult<T>& sqlite, const StoreResult<T>& pg, StoreErrorCode code,
                      const std::string& where) {
  ASSERT_FALSE(sqlite.ok()) << where << ": SQLite accepted it";
  ASSERT_FALSE(pg.ok()) << where << ": PostgreSQL accepted it";
  EXPECT_EQ(sqlite.error().code, code) << where << " (SQLite): " << sqlite.error().message;
  EXPECT_EQ(pg.error().code, code) << where << " (PostgreSQL): " << pg.error().message;
}

// ---- Both backends side by side ----------------------------------------------------------

// A run as both tests store it: the run, then its status and preflight.
struct TestRun {
  std::string package = "com.a";
  std::optional<std::string> model = "Pixel 7";
  std::string mode = "cold";
  std::string serial = "s1";
  int64_t created_at = 1000;
  RunStatus status = RunStatus::kSucceeded;
  std::string spec_json = "{}";
  std::optional<std::string> preflight_json = std::nullopt;
  std::optional<int64_t> started_at = std::nullopt;
};

class PgHistoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(SharedPgServer().CreateDatabase("history")); }

  void Open(const std::string& url, const std::string& sqlite_file = "droidlab.db") {
    writer_ = Connect(url);
    ASSERT_TRUE(writer_.ok());
    const auto migrated = MigratePostgres(writer_);
    ASSERT_TRUE(migrated.ok()) << migrated.error().message;
    reader_ = std::make_unique<PgReader>(Connect(url));
    sqlite_ = testutil::OpenTestStoreAt(dir_.File(sqlite_file));
    ASSERT_NE(sqlite_, nullptr);
  }

  // The run in both; both must number it the same.
  int64_t AddRun(const TestRun& run) {
    NewRun r;
    r.spec_json = run.spec_json;
    r.serial = run.serial;
    r.device_model = run.model;
    r.package = run.package;
    r.mode = run.mode;
    r.iterations = 3;
    r.created_at = run.created_at;
    auto sqlite_id = sqlite_->CreateRun(r);
    EXPECT_TRUE(sqlite_id.ok()) << sqlite_id.error().message;
    RunStatusUpdate update;
    update.run_id = sqlite_id.ok() ? *sqlite_id : 0;
    update.status = run.status;
    update.preflight_json = run.preflight_json;
    update.started_at = run.started_at;
    EXPECT_TRUE(sqlite_->UpdateRunStatus(update).ok());
    // A plain INSERT: the real InsertRun is pg/run_writes.h's, tested on its own.
    Params p;
    p.Text(r.spec_json).Text(r.serial).Optional(r.device_model).Text(r.package).Text(r.mode);
    p.Int64(r.iterations).Text(RunStatusName(run.status)).Int64(r.created_at);
    p.Optional(run.started_at).Optional(run.preflight_json);
    auto pg_id = writer_.Query(
        "INSERT INTO runs (spec, serial, device_model, package, mode, iterations, status,"
        " created_at, started_at, preflight) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        " RETURNING id",
        p, "inserting a test run");
    EXPECT_TRUE(pg_id.ok()) << pg_id.error().message;
    if (!pg_id.ok() || !sqlite_id.ok()) return -1;
    const int64_t id = pg_id->Int64(0, "id").value();
    EXPECT_EQ(id, *sqlite_id) << "both backends number runs from 1";
    return id;
  }

  // `write` on the PostgreSQL writer as the writer applies a task: inside an open transaction,
  // in a savepoint rolled back when the task fails, then committed.
  template <class Write>
  auto Pg(Write write) -> decltype(write(std::declval<Connection&>())) {
    Transaction transaction(writer_);
    EXPECT_TRUE(transaction.Begin().ok());
    EXPECT_TRUE(writer_.Execute("SAVEPOINT task", "savepoint").ok());
    auto result = write(writer_);
    if (!result.ok()) {
      EXPECT_TRUE(writer_.Execute("ROLLBACK TO SAVEPOINT task", "rollback to savepoint").ok());
    }
    EXPECT_TRUE(writer_.Execute("RELEASE SAVEPOINT task", "release").ok());
    const Status committed = transaction.Commit();
    EXPECT_TRUE(committed.ok()) << committed.error().message;
    return result;
  }

  // A query on the SQLite store's reader, everything queued before it committed.
  template <class Query>
  auto Sqlite(Query query) -> decltype(query(std::declval<Reader&>())) {
    EXPECT_TRUE(sqlite_->Flush().ok());
    return sqlite_->Read(query);
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> sqlite_;
  Connection writer_;
  std::unique_ptr<PgReader> reader_;
};

// ---- Iteration frames, faults, memory ------------------------------------------------------

IterationFrames Frames(int64_t run_id, int64_t iteration, int64_t seed) {
  IterationFrames f;
  f.run_id = run_id;
  f.iteration = iteration;
  f.total_frames = 100 + seed;
  f.janky_frames = seed % 2 == 0 ? std::optional<int64_t>(3 + seed) : std::nullopt;
  f.gfx_p50_ms = 5;
  f.gfx_p90_ms = 9 + seed;
  f.gfx_p99_ms = 40;  // p95 left NULL
  f.frame_rows = 120 + seed;
  f.counted = 118;
  f.refresh_period_ns = 16'666'667;
  f.p50_ms = 5.25 + static_cast<double>(seed);
  f.p90_ms = 1.0 / 3.0;  // every bit must come back
  f.p99_ms = 1e-300;
  f.over_16_7ms = 7;
  f.over_33ms = 2;
  f.over_50ms = seed;
  f.over_1_vsync = 8;
  f.over_3_vsyncs = 1;  // over_2_vsyncs NULL: stored before 0014
  f.matrix_normal = 90;
  f.matrix_middle = 5;
  f.matrix_high = 2;
  f.matrix_frozen = 1;
  f.dropped_frames = 4;
  f.jank = 3;
  f.big_jank = 1;
  f.columns_json = R"(["Flags","IntendedVsync","FrameCompleted"])";
  f.rows_json = "[[0," + std::to_string(1000 + seed) + ",2000],[1,3000,4000]]";
  return f;
}

IterationFault Fault(int64_t run_id, int64_t iteration, int64_t seq, std::string kind) {
  IterationFault f;
  f.run_id = run_id;
  f.iteration = iteration;
  f.seq = seq;
  f.kind = std::move(kind);
  f.time = "11-27 13:00:0" + std::to_string(seq) + ".123";
  f.at_ms = seq == 0 ? std::optional<int64_t>(123456) : std::nullopt;
  f.pid = 4242;
  f.process_name = "com.a:remote";
  f.reason = "java.lang.IllegalStateException: é\\ \"quoted\"\ttab 🚀";
  f.stack = {"at com.a.Main.onCreate(Main.java:12)", "", "\tat android.app.Activity.x"};
  if (f.kind == "anr") f.duration_ms = 5000;
  return f;
}

IterationMemory Memory(int64_t run_id, int64_t iteration, int64_t seed) {
  IterationMemory m;
  m.run_id = run_id;
  m.iteration = iteration;
  m.pid = 4242 + seed;
  m.total_pss_kb = 50'000 + seed;
  m.total_rss_kb = 90'000;
  m.java_heap_kb = 12'000;
  m.native_heap_kb = 8'000;
  m.graphics_kb = 3'000;
  m.views = 120 + seed;
  m.activities = 1;
  m.webviews = 0;  // zero is not NULL; total_swap_pss_kb and the rest stay NULL
  return m;
}

TEST_F(PgHistoryStoreTest, IterationFramesFaultsAndMemoryReadBackAsSqliteReadsThem) {
  const int64_t run = AddRun({});
  const int64_t other = AddRun({.created_at = 2000});
  // Stored out of iteration order, the other run's in between, one iteration stored twice
  // (the last wins: SQLite's INSERT OR REPLACE), within one call too.
  std::vector<IterationFrames> frames = {Frames(run, 2, 2), Frames(other, 0, 9), Frames(run, 0, 0),
                                         Frames(run, 1, 1)};
  std::vector<IterationFrames> again = {Frames(run, 1, 5), Frames(run, 1, 6)};
  std::vector<IterationFault> faults = {Fault(run, 1, 1, "crash"), Fault(run, 0, 0, "anr"),
                                        Fault(run, 1, 0, "native_crash"),
                                        Fault(other, 0, 0, "crash")};
  faults.back().stack.clear();  // no stack: "" stored, no line read back
  std::vector<IterationFault> fault_again = {Fault(run, 1, 1, "slow_dispatch")};
  std::vector<IterationMemory> memory = {Memory(run, 1, 1), Memory(run, 0, 0), Memory(other, 0, 9)};
  std::vector<IterationMemory> memory_again = {Memory(run, 0, 7)};

  for (const auto* batch : {&frames, &again}) {
    ASSERT_TRUE(sqlite_->AddIterationFrames(*batch).ok());
    const Status stored =
        Pg([&](Connection& c) { return writes::InsertIterationFrames(c, *batch); });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  }
  for (const auto* batch : {&faults, &fault_again}) {
    ASSERT_TRUE(sqlite_->AddIterationFaults(*batch).ok());
    const Status stored =
        Pg([&](Connection& c) { return writes::InsertIterationFaults(c, *batch); });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  }
  for (const auto* batch : {&memory, &memory_again}) {
    ASSERT_TRUE(sqlite_->AddIterationMemory(*batch).ok());
    const Status stored =
        Pg([&](Connection& c) { return writes::InsertIterationMemory(c, *batch); });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  }

  for (const int64_t id : {run, other, int64_t{999}}) {
    const std::string of = " of run " + std::to_string(id);
    ExpectSame(Sqlite([&](Reader& r) { return r.ListIterationFrames(id); }),
               reader_->ListIterationFrames(id), "ListIterationFrames" + of);
    ExpectSame(Sqlite([&](Reader& r) { return r.ListIterationFrameFigures(id); }),
               reader_->ListIterationFrameFigures(id), "ListIterationFrameFigures" + of);
    ExpectSame(Sqlite([&](Reader& r) { return r.ListIterationFaults(id); }),
               reader_->ListIterationFaults(id), "ListIterationFaults" + of);
    ExpectSame(Sqlite([&](Reader& r) { return r.ListIterationMemory(id); }),
               reader_->ListIterationMemory(id), "ListIterationMemory" + of);
  }

  // And what they agree on is what was written: the order, the replacements, the figures only.
  const auto listed = reader_->ListIterationFrames(run);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 3u);
  Same((*listed)[1], Frames(run, 1, 6), "the frames stored last");
  Same((*listed)[2], Frames(run, 2, 2), "iteration 2's frames");
  const auto figures = reader_->ListIterationFrameFigures(run);
  ASSERT_TRUE(figures.ok());
  EXPECT_EQ((*figures)[0].rows_json, "[]");
  EXPECT_EQ((*figures)[0].columns_json, "[]");
  EXPECT_EQ((*figures)[0].p90_ms, Frames(run, 0, 0).p90_ms);
  const auto listed_faults = reader_->ListIterationFaults(run);
  ASSERT_TRUE(listed_faults.ok());
  ASSERT_EQ(listed_faults->size(), 3u);
  Same((*listed_faults)[0], Fault(run, 0, 0, "anr"), "the first fault");
  Same((*listed_faults)[2], Fault(run, 1, 1, "slow_dispatch"), "the fault stored again");
  const auto other_faults = reader_->ListIterationFaults(other);
  ASSERT_TRUE(other_faults.ok());
  ASSERT_EQ(other_faults->size(), 1u);
  EXPECT_TRUE((*other_faults)[0].stack.empty());
  const auto listed_memory = reader_->ListIterationMemory(run);
  ASSERT_TRUE(listed_memory.ok());
  ASSERT_EQ(listed_memory->size(), 2u);
  Same((*listed_memory)[0], Memory(run, 0, 7), "the memory stored again");
}

TEST_F(PgHistoryStoreTest, LateFaultsInvalidateTheirLaunchOrStoreNothing) {
  const int64_t run = AddRun({});
  // The launches as the measuring wrote them (pg/run_writes.h's InsertLaunches is the other
  // half of this work: plain rows here). Iteration 1 is invalid already, for a reason of its own.
  Launch valid;
  valid.run_id = run;
  valid.iteration = 0;
  valid.displayed_ms = 300;
  Launch invalid = valid;
  invalid.iteration = 1;
  invalid.valid = false;
  invalid.invalid_reason = "timeout";
  ASSERT_TRUE(sqlite_->AddLaunches({valid, invalid}).ok());
  ASSERT_TRUE(writer_
                  .Execute("INSERT INTO launches (run_id, iteration, displayed_ms, valid,"
                           " invalid_reason) VALUES (" +
                               std::to_string(run) + ", 0, 300, 1, NULL), (" + std::to_string(run) +
                               ", 1, 300, 0, 'timeout')",
                           "inserting launches")
                  .ok());

  for (const int64_t iteration : {int64_t{0}, int64_t{1}}) {
    const std::vector<IterationFault> late = {Fault(run, iteration, 0, "anr"),
                                              Fault(run, iteration, 1, "crash")};
    ASSERT_TRUE(sqlite_->AddLateIterationFaults(run, iteration, late, "late anr").ok());
    const Status stored = Pg([&](Connection& c) {
      return writes::InsertLateIterationFaults(c, run, iteration, late, "late anr");
    });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  }
  ExpectSame(Sqlite([&](Reader& r) { return r.ListIterationFaults(run); }),
             reader_->ListIterationFaults(run), "the late faults");
  const auto sqlite_launches = Sqlite([&](Reader& r) { return r.ListLaunches(run); });
  ASSERT_TRUE(sqlite_launches.ok());
  auto pg_launches = writer_.Query(
      "SELECT valid, invalid_reason FROM launches WHERE run_id = $1 ORDER BY iteration",
      Params().Int64(run), "reading launches");
  ASSERT_TRUE(pg_launches.ok()) << pg_launches.error().message;
  ASSERT_EQ(pg_launches->rows(), 2);
  for (int i = 0; i < 2; ++i) {
    const Launch& l = (*sqlite_launches)[static_cast<size_t>(i)];
    EXPECT_FALSE(l.valid);
    EXPECT_EQ(pg_launches->Int64(i, "valid").value(), 0) << "iteration " << i;
    EXPECT_EQ(pg_launches->OptionalText(i, "invalid_reason").value(), l.invalid_reason);
  }
  EXPECT_EQ(pg_launches->OptionalText(1, "invalid_reason").value(), "timeout")
      << "a launch invalid already keeps its first reason";

  // A fault of another iteration under this one: refused before anything is written, by both.
  const std::vector<IterationFault> misfiled = {Fault(run, 2, 0, "anr"), Fault(run, 3, 0, "anr")};
  const Status pg_refused = Pg([&](Connection& c) {
    return writes::InsertLateIterationFaults(c, run, 2, misfiled, "late anr");
  });
  ASSERT_FALSE(pg_refused.ok());
  EXPECT_EQ(pg_refused.error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM iteration_faults WHERE iteration >= 2"), 0);
}

// ---- Run summaries and series --------------------------------------------------------------

std::vector<RunSummary> Summaries(int64_t run_id, double median, int64_t count = 10) {
  std::vector<RunSummary> rows;
  for (const char* metric : {"total_time_ms", "displayed_ms", "fully_drawn_ms"}) {
    RunSummary s;
    s.run_id = run_id;
    s.metric = metric;
    s.t = -1;  // ignored: the store takes the run's created_at
    s.build_id = 4;
    s.version_code = 1200;
    s.fingerprint = "google/panther/panther:14/UQ1A/1:user/release-keys";
    s.compilation = "speed-profile";
    if (run_id % 2 == 0) s.hot_launches = run_id % 4;  // 0, 2, or unknown (odd runs)
    if (std::string(metric) != "fully_drawn_ms") {  // nothing counted: a row, not a point
      const double m = std::string(metric) == "total_time_ms" ? median + 5 : median;
      s.count = count;
      s.median = m;
      s.p90 = m + 40.125;
      s.ci_low = m - 8;
      s.ci_high = m + 1.0 / 7.0;
    }
    rows.push_back(std::move(s));
  }
  return rows;
}

TEST_F(PgHistoryStoreTest, SummariesAndSeriesReadBackAsSqliteReadsThem) {
  // Models whose byte order is not a dictionary's ("Zeta" < "pixel 6"), and an unknown one.
  std::vector<int64_t> runs;
  runs.push_back(AddRun({.created_at = 3000}));
  runs.push_back(AddRun({.created_at = 1000}));
  runs.push_back(AddRun({.created_at = 3000}));  // a tie in t: then by run id
  runs.push_back(AddRun({.model = "pixel 6", .created_at = 2000}));
  runs.push_back(AddRun({.model = "Zeta", .created_at = 2000}));
  runs.push_back(AddRun({.model = std::nullopt, .created_at = 2500}));
  runs.push_back(AddRun({.mode = "warm", .created_at = 2000}));
  runs.push_back(AddRun({.package = "com.b", .created_at = 2000}));
  const int64_t unsummarised = AddRun({.created_at = 4000});
  const int64_t failed = AddRun({.created_at = 4000, .status = RunStatus::kFailed});
  const int64_t no_counted = AddRun({.created_at = 5000});
  (void)failed;
  auto add = [&](std::vector<RunSummary> rows) {
    ASSERT_TRUE(sqlite_->AddRunSummaries(rows).ok());
    const Status stored = Pg([&](Connection& c) { return writes::InsertRunSummaries(c, rows); });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  };
  for (size_t i = 0; i < runs.size(); ++i) add(Summaries(runs[i], 500.0 + static_cast<double>(i)));
  add(Summaries(no_counted, 0, 0));
  add(Summaries(runs[1], 111.5));  // replaces that run's rows
  add(Summaries(999, 1.0));        // no such run: nothing stored

  for (const auto& model : std::vector<std::optional<std::string>>{"Pixel 7", "pixel 6", "Zeta",
                                                                   std::nullopt, "Pixel 9"}) {
    for (const char* metric : {"displayed_ms", "total_time_ms", "fully_drawn_ms"}) {
      SeriesQuery q;
      q.package = "com.a";
      q.device_model = model;
      q.mode = "cold";
      q.metric = metric;
      const std::string where = std::string("Series ") + model.value_or("(unknown)") + " " + metric;
      ExpectSame(Sqlite([&](Reader& r) { return r.Series(q); }), reader_->Series(q), where);
      q.since = 1000;
      q.until = 2999;
      ExpectSame(Sqlite([&](Reader& r) { return r.Series(q); }), reader_->Series(q),
                 where + " in [1000, 2999]");
    }
  }
  SeriesQuery q;
  q.package = "com.a";
  q.device_model = "Pixel 7";
  q.mode = "cold";
  q.metric = "displayed_ms";
  const auto series = reader_->Series(q);
  ASSERT_TRUE(series.ok());
  ASSERT_EQ(series->size(), 3u) << "count 0 is not a point";
  EXPECT_EQ((*series)[0].run_id, runs[1]);
  EXPECT_EQ((*series)[0].t, 1000);
  EXPECT_EQ((*series)[0].median, 111.5);
  EXPECT_EQ((*series)[1].run_id, runs[0]);
  EXPECT_EQ((*series)[2].run_id, runs[2]);

  for (const char* package : {"com.a", "com.b", "com.none"}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.SeriesOfPackage(package); }),
               reader_->SeriesOfPackage(package), std::string("SeriesOfPackage ") + package);
  }
  const auto keys = reader_->SeriesOfPackage("com.a");
  ASSERT_TRUE(keys.ok());
  ASSERT_FALSE(keys->empty());
  EXPECT_FALSE(keys->front().device_model.has_value()) << "the unknown model ('') first";
  for (const int64_t id : {runs[0], runs[1], no_counted, unsummarised, int64_t{999}}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.RunSummaries(id); }), reader_->RunSummaries(id),
               "RunSummaries of run " + std::to_string(id));
  }
  for (const auto& [after, limit] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 100}, {0, 1}, {runs.back(), 100}, {unsummarised, 100}, {0, -1}, {0, 0}}) {
    ExpectSame(
        Sqlite([&](Reader& r) { return r.RunsWithoutSummaries(after, limit); }),
        reader_->RunsWithoutSummaries(after, limit),
        "RunsWithoutSummaries after " + std::to_string(after) + " limit " + std::to_string(limit));
  }
  const auto owed = reader_->RunsWithoutSummaries(0, 100);
  ASSERT_TRUE(owed.ok());
  EXPECT_EQ(*owed, std::vector<int64_t>{unsummarised}) << "succeeded runs only";
}

// ---- Builds --------------------------------------------------------------------------------

NewBuild MakeBuild(std::string sha256, int64_t created_at, std::vector<BuildFile> files) {
  NewBuild b;
  b.sha256 = std::move(sha256);
  b.package = "com.a";
  b.version_code = created_at / 10;
  b.version_name = "1.0." + std::to_string(created_at);
  b.min_sdk = 26;
  b.size = 1000 + created_at;
  b.file_name = "app-release.apk";
  b.created_at = created_at;
  b.files = std::move(files);
  b.signature = "CN=Lab, O=droidlab";
  return b;
}

BuildFile File(std::string name, std::string kind, std::string sha256,
               std::optional<std::string> split = std::nullopt) {
  return BuildFile{std::move(name), std::move(kind), std::move(split), std::move(sha256), 77};
}

TEST_F(PgHistoryStoreTest, BuildsReadBackAsSqliteReadsThem) {
  std::vector<NewBuild> builds = {
      MakeBuild("aa", 100, {File("base.apk", "base", "f1")}),
      MakeBuild("bb", 300,
                {File("base.apk", "base", "f2"),
                 File("split_config.arm64.apk", "split", "f1", "config.arm64_v8a"),
                 File("base.dm", "dm", "f3")}),
      MakeBuild("cc", 300, {}),  // the same created_at: newest first is then by id
      MakeBuild("aa", 500, {File("other.apk", "base", "f9")}),  // the same bytes again
  };
  builds[2].signature.reset();
  builds[2].version_name.reset();
  builds[2].min_sdk.reset();
  builds[2].target_sdk = 34;
  for (const NewBuild& build : builds) {
    const auto sqlite_added = sqlite_->AddBuild(build);
    const auto pg_added = Pg([&](Connection& c) { return writes::InsertBuild(c, build); });
    ASSERT_TRUE(sqlite_added.ok()) << sqlite_added.error().message;
    ASSERT_TRUE(pg_added.ok()) << pg_added.error().message;
    EXPECT_EQ(pg_added->id, sqlite_added->id) << build.sha256;
    EXPECT_EQ(pg_added->created, sqlite_added->created) << build.sha256;
  }
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM builds"), 3);
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM build_files WHERE build_id = 1"), 1)
      << "the same sha256 again keeps the first build's files";

  // Runs that name builds, and preflights that recorded what was installed.
  AddRun({.status = RunStatus::kQueued, .spec_json = R"({"build": 2})"});
  AddRun({.status = RunStatus::kRunning, .spec_json = R"({"build": 3, "baseline_build": 2})"});
  AddRun({.status = RunStatus::kSucceeded, .spec_json = R"({"build": 1})"});
  AddRun({.status = RunStatus::kQueued, .spec_json = R"({"build": "1"})"});  // a string: not 1
  const std::string installed_2 =
      R"({"build": {"id": 2, "version_code": 30, "sha256": "bb", "install_method": "abb_exec"}})";
  AddRun({.package = "com.b", .serial = "s9", .preflight_json = installed_2, .started_at = 7});
  AddRun({.package = "com.b", .serial = "s9", .preflight_json = R"({"build": null})"});
  AddRun({.package = "Com.c", .serial = "s9", .preflight_json = R"({"build": {"id": 1}})"});
  AddRun({.package = "com.a", .serial = "s9", .preflight_json = R"({"build": {"id": 3}})"});
  AddRun({.package = "com.a", .serial = "s9", .preflight_json = R"({"other": 1})"});
  AddRun({.package = "com.a", .serial = "s8", .preflight_json = installed_2});

  ExpectSame(Sqlite([&](Reader& r) { return r.ListBuilds(); }), reader_->ListBuilds(),
             "ListBuilds");
  for (const int64_t id : {1, 2, 3}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.GetBuild(id); }), reader_->GetBuild(id),
               "GetBuild " + std::to_string(id));
    ExpectSame(Sqlite([&](Reader& r) { return r.CountRunsUsingBuild(id); }),
               reader_->CountRunsUsingBuild(id), "CountRunsUsingBuild " + std::to_string(id));
  }
  for (const char* sha256 : {"aa", "bb", "cc"}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.GetBuildBySha256(sha256); }),
               reader_->GetBuildBySha256(sha256), std::string("GetBuildBySha256 ") + sha256);
  }
  for (const char* sha256 : {"f1", "f2", "f3", "f9", "aa"}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.CountBuildsWithFile(sha256); }),
               reader_->CountBuildsWithFile(sha256), std::string("CountBuildsWithFile ") + sha256);
  }
  for (const int64_t before : {100, 101, 301, 1000}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.ListBuildsCreatedBefore(before); }),
               reader_->ListBuildsCreatedBefore(before),
               "ListBuildsCreatedBefore " + std::to_string(before));
  }
  for (const char* serial : {"s9", "s8", "s1", "none"}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.InstalledBuildsOnDevice(serial); }),
               reader_->InstalledBuildsOnDevice(serial),
               std::string("InstalledBuildsOnDevice ") + serial);
  }
  EXPECT_EQ(reader_->CountRunsUsingBuild(2).value(), 2);
  EXPECT_EQ(reader_->CountBuildsWithFile("f1").value(), 2);
  const auto on_s9 = reader_->InstalledBuildsOnDevice("s9");
  ASSERT_TRUE(on_s9.ok());
  ASSERT_EQ(on_s9->size(), 3u);
  EXPECT_EQ((*on_s9)[0].package, "Com.c") << "byte order";
  EXPECT_EQ((*on_s9)[2].build_id, 2) << "com.b's newest run with a build";
  EXPECT_EQ((*on_s9)[2].install_method, "abb_exec");

  ExpectBothRefuse(Sqlite([&](Reader& r) { return r.GetBuild(42); }), reader_->GetBuild(42),
                   StoreErrorCode::kNotFound, "GetBuild 42");
  ExpectBothRefuse(Sqlite([&](Reader& r) { return r.GetBuildBySha256("zz"); }),
                   reader_->GetBuildBySha256("zz"), StoreErrorCode::kNotFound,
                   "GetBuildBySha256 zz");

  // Deleting takes the files' rows with the build; a second time there is nothing to delete.
  ASSERT_TRUE(sqlite_->DeleteBuild(2).ok());
  const Status deleted = Pg([](Connection& c) { return writes::DeleteBuild(c, 2); });
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM build_files WHERE build_id = 2"), 0);
  ExpectSame(Sqlite([&](Reader& r) { return r.ListBuilds(); }), reader_->ListBuilds(),
             "ListBuilds after a delete");
  ExpectSame(Sqlite([&](Reader& r) { return r.CountBuildsWithFile("f1"); }),
             reader_->CountBuildsWithFile("f1"), "CountBuildsWithFile after a delete");
  ExpectBothRefuse(StoreResult<Ok>(sqlite_->DeleteBuild(2)),
                   Pg([](Connection& c) { return writes::DeleteBuild(c, 2); }),
                   StoreErrorCode::kNotFound, "DeleteBuild 2 again");
}

// ---- Alerts --------------------------------------------------------------------------------

NewAlert MakeAlert(std::string kind, std::string package, std::string model,
                   std::optional<double> delta, int64_t created_at) {
  NewAlert a;
  a.kind = std::move(kind);
  a.package = std::move(package);
  a.model = std::move(model);
  a.mode = "cold";
  a.metric = "displayed_ms";
  a.delta = delta;
  if (delta) {
    a.delta_pct = *delta / 5;
    a.ci_low = *delta / 10;
    a.ci_high = *delta / 3;
  }
  a.run_id = 7;
  a.version_code = 1200;
  a.created_at = created_at;
  return a;
}

AlertAttemptRecord Attempt(int64_t delivery, int64_t attempt, std::string after,
                           std::optional<int64_t> next, std::optional<int64_t> http_status) {
  AlertAttemptRecord r;
  r.delivery_id = delivery;
  r.attempt.attempt = attempt;
  r.attempt.started_at = 10'000 + attempt;
  r.attempt.duration_ms = 250;
  r.attempt.http_status = http_status;
  if (!http_status || *http_status >= 400) r.attempt.error = "HTTP 503, \"busy\"";
  r.status_after = std::move(after);
  r.next_attempt_at = next;
  return r;
}

TEST_F(PgHistoryStoreTest, AlertsReadBackAsSqliteReadsThemAndRefuseAlike) {
  struct Raised {
    NewAlert alert;
    std::vector<NewAlertDelivery> deliveries;
  };
  std::vector<Raised> raised;
  raised.push_back({MakeAlert("regression", "com.a", "Pixel 7", 12.5, 100),
                    {{"https://hooks/1", "d-1"}, {"https://hooks/2", "d-2"}}});
  raised.back().alert.explained_by = {"fingerprint", "a \"quoted\" \\ back\nline\x01", "é 🚀"};
  raised.push_back({MakeAlert("change_point", "com.a", "pixel 6", -3.0, 200), {}});
  raised.push_back(
      {MakeAlert("change_point", "Com.b", "Pixel 7", 4.0, 300), {{"https://hooks/1", "d-3"}}});
  raised.push_back({MakeAlert("change_point", "com.a", "Pixel 7", std::nullopt, 400),
                    {{"https://hooks/1", "d-4"}}});
  raised.back().alert.build_id = 3;
  raised.push_back({MakeAlert("regression", "com.a", "Pixel 7", 1.0, 500), {}});
  for (const Raised& r : raised) {
    const auto sqlite_id = sqlite_->CreateAlert(r.alert, r.deliveries);
    const auto pg_id =
        Pg([&](Connection& c) { return writes::InsertAlert(c, r.alert, r.deliveries); });
    ASSERT_TRUE(sqlite_id.ok()) << sqlite_id.error().message;
    ASSERT_TRUE(pg_id.ok()) << pg_id.error().message;
    EXPECT_EQ(*pg_id, *sqlite_id);
  }
  // A delivery id taken already: both refuse, and the alert is not stored either.
  const Raised twice{MakeAlert("regression", "com.a", "Pixel 7", 2.0, 600),
                     {{"https://hooks/3", "d-5"}, {"https://hooks/1", "d-1"}}};
  ExpectBothRefuse(sqlite_->CreateAlert(twice.alert, twice.deliveries), Pg([&](Connection& c) {
                     return writes::InsertAlert(c, twice.alert, twice.deliveries);
                   }),
                   StoreErrorCode::kConstraint, "a delivery id given twice");
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM alerts"), 5);
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM alert_deliveries"), 4);

  // Attempts in order while pending; the rest refused alike.
  auto both = [&](const AlertAttemptRecord& record) {
    const Status sqlite_done = sqlite_->RecordAlertAttempt(record);
    const Status pg_done = Pg([&](Connection& c) { return writes::RecordAlertAttempt(c, record); });
    return std::make_pair(sqlite_done, pg_done);
  };
  for (const auto& record :
       {Attempt(1, 1, "pending", 20'000, 503), Attempt(1, 2, "delivered", std::nullopt, 204),
        Attempt(2, 1, "pending", std::nullopt, std::nullopt),
        Attempt(3, 1, "failed", std::nullopt, 410)}) {
    const auto [sqlite_done, pg_done] = both(record);
    ASSERT_TRUE(sqlite_done.ok()) << sqlite_done.error().message;
    ASSERT_TRUE(pg_done.ok()) << pg_done.error().message;
  }
  for (const auto& [record, why] : std::vector<std::pair<AlertAttemptRecord, std::string>>{
           {Attempt(1, 3, "delivered", std::nullopt, 204), "a delivered one"},
           {Attempt(2, 1, "pending", 30'000, 503), "attempt 1 replayed"},
           {Attempt(2, 3, "pending", 30'000, 503), "attempt 3 before 2"},
           {Attempt(99, 1, "delivered", std::nullopt, 204), "an unknown delivery"}}) {
    const auto [sqlite_done, pg_done] = both(record);
    ExpectBothRefuse(sqlite_done, pg_done, StoreErrorCode::kNotFound, why);
  }
  EXPECT_EQ(Count(writer_, "SELECT count(*) FROM alert_delivery_attempts"), 4);

  ASSERT_TRUE(sqlite_->ResolveAlert(2, 900).ok());
  const Status resolved = Pg([](Connection& c) { return writes::ResolveAlert(c, 2, 900); });
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  for (const int64_t id : {2, 42}) {
    ExpectBothRefuse(sqlite_->ResolveAlert(id, 901),
                     Pg([&](Connection& c) { return writes::ResolveAlert(c, id, 901); }),
                     StoreErrorCode::kNotFound, "resolving alert " + std::to_string(id));
  }

  // Every page, with every filter, the same cursors.
  for (const std::optional<std::string>& state :
       {std::optional<std::string>(), std::optional<std::string>("open"),
        std::optional<std::string>("resolved")}) {
    for (const int64_t limit : {1, 2, 50}) {
      AlertQuery query;
      query.state = state;
      query.limit = limit;
      for (int page = 0; page < 10; ++page) {
        const std::string where = "ListAlerts " + state.value_or("any") + " limit " +
                                  std::to_string(limit) + " page " + std::to_string(page);
        const auto sqlite_page = Sqlite([&](Reader& r) { return r.ListAlerts(query); });
        ExpectSame(sqlite_page, reader_->ListAlerts(query), where);
        if (!sqlite_page.ok() || sqlite_page->next_cursor.empty()) break;
        query.cursor = sqlite_page->next_cursor;
      }
    }
  }
  for (const int64_t id : {1, 2, 4}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.GetAlert(id); }), reader_->GetAlert(id),
               "GetAlert " + std::to_string(id));
  }
  const auto first = reader_->GetAlert(1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->explained_by, raised[0].alert.explained_by);
  ASSERT_EQ(first->deliveries.size(), 2u);
  EXPECT_EQ(first->deliveries[0].attempt_log.size(), 2u);
  for (const int64_t limit : {1, 2, 100, -1}) {
    ExpectSame(Sqlite([&](Reader& r) { return r.PendingAlertDeliveries(limit); }),
               reader_->PendingAlertDeliveries(limit),
               "PendingAlertDeliveries " + std::to_string(limit));
  }
  const auto pending = reader_->PendingAlertDeliveries(100);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].delivery.id, 2) << "no next attempt time comes first, as in SQLite";
  EXPECT_TRUE((*pending)[0].alert.deliveries.empty());
  ExpectSame(Sqlite([&](Reader& r) { return r.OpenRegressionCounts(); }),
             reader_->OpenRegressionCounts(), "OpenRegressionCounts");

  // The refusals of the reads.
  ExpectBothRefuse(Sqlite([&](Reader& r) { return r.GetAlert(42); }), reader_->GetAlert(42),
                   StoreErrorCode::kNotFound, "GetAlert 42");
  auto query = [](std::string cursor, int64_t limit, std::optional<std::string> state) {
    AlertQuery q;
    q.cursor = std::move(cursor);
    q.limit = limit;
    q.state = std::move(state);
    return q;
  };
  for (const auto& [bad, why] : std::vector<std::pair<AlertQuery, std::string>>{
           {query("a1zz", 50, std::nullopt), "a cursor not of this list"},
           {query("r10000000000000001", 50, std::nullopt), "another list's cursor"},
           {query("", 0, std::nullopt), "limit 0"},
           {query("", 1001, std::nullopt), "limit 1001"},
           {query("", 50, "closed"), "an unknown state"}}) {
    ExpectBothRefuse(Sqlite([&](Reader& r) { return r.ListAlerts(bad); }), reader_->ListAlerts(bad),
                     StoreErrorCode::kInvalidArgument, why);
  }
}

// ---- Byte order whatever the server's collation --------------------------------------------

// The same reads on a database whose default collation is a dictionary's (ICU en-US: "pixel 6"
// before "Zeta"): text is ordered bytewise, as SQLite orders it.
TEST_F(PgHistoryStoreTest, TextIsInByteOrderOnADatabaseWithADictionaryCollation) {
  testutil::PgServer& server = SharedPgServer();
  const std::string database = "history_icu";
  try {
    server.Execute("postgres", "CREATE DATABASE " + database +
                                   " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
                                   " LOCALE 'C.UTF-8'");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no ICU collation on this server: " << e.what();
  }
  sqlite_.reset();
  Open(server.SocketUrl(database), "icu.db");
  ASSERT_FALSE(HasFailure());
  // The collation does order otherwise here, so the test can fail.
  EXPECT_EQ(Count(writer_, "SELECT ('pixel 6' < 'Zeta')::int"), 1);

  for (const char* model : {"Zeta", "pixel 6", "Pixel 7", "ändern"}) {
    const int64_t run = AddRun({.package = "com.a", .model = model});
    auto rows = Summaries(run, 100);
    rows[0].metric = "Zz_metric";  // byte order puts it before displayed_ms
    ASSERT_TRUE(sqlite_->AddRunSummaries(rows).ok());
    ASSERT_TRUE(Pg([&](Connection& c) { return writes::InsertRunSummaries(c, rows); }).ok());
    ExpectSame(Sqlite([&](Reader& r) { return r.RunSummaries(run); }), reader_->RunSummaries(run),
               std::string("RunSummaries ") + model);
    for (const char* package : {"com.a", "Com.a", "zed"}) {
      const NewAlert alert = MakeAlert("regression", package, model, 1.0, 100);
      ASSERT_TRUE(sqlite_->CreateAlert(alert, {}).ok());
      ASSERT_TRUE(Pg([&](Connection& c) { return writes::InsertAlert(c, alert, {}); }).ok());
    }
    AddRun({.package = std::string("Pkg ") + model,
            .serial = "s9",
            .preflight_json = R"({"build": {"id": 1}})"});
  }
  ExpectSame(Sqlite([&](Reader& r) { return r.SeriesOfPackage("com.a"); }),
             reader_->SeriesOfPackage("com.a"), "SeriesOfPackage");
  ExpectSame(Sqlite([&](Reader& r) { return r.OpenRegressionCounts(); }),
             reader_->OpenRegressionCounts(), "OpenRegressionCounts");
  ExpectSame(Sqlite([&](Reader& r) { return r.InstalledBuildsOnDevice("s9"); }),
             reader_->InstalledBuildsOnDevice("s9"), "InstalledBuildsOnDevice");
}

}  // namespace
}  // namespace droidlab::store::pg
