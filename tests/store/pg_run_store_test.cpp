// The PostgreSQL writes of runs, their rows, devices, restores and schedules (store/pg/*_writes.h),
// one retention step (store/pg/retention.h) and PgReader's reads of them (store/pg/reader.cpp),
// against SQLite's: the same records written through the SQLite Store and through the
// PostgreSQL functions read back the same from both readers, field by field, ids, orders and
// cursors included; the same calls fail with the same codes (kNotFound, kConstraint,
// kInvalidArgument); retention deletes the same runs and history rows.
#include <algorithm>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/looper_stats_columns.h"
#include "store/pg/connection.h"
#include "store/pg/device_writes.h"
#include "store/pg/migrate.h"
#include "store/pg/reader.h"
#include "store/pg/retention.h"
#include "store/pg/run_writes.h"
#include "store/pg/schedule_writes.h"
#include "store/store.h"
#include "tests/common/pg_server.h"
#include "tests/common/temp_dir.h"
#include "tests/store/pg_test_queries.h"

namespace droidlab::store::pg {
namespace {

using testutil::SharedPgServer;

// ---- Records as text, every field named: two lists compare equal when every field of every
// record does, and a failure shows the field that differs.

std::string Show(int64_t v) { return std::to_string(v); }
std::string Show(bool v) { return v ? "true" : "false"; }
std::string Show(double v) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}
std::string Show(const std::string& v) { return "\"" + v + "\""; }
std::string Show(RunStatus v) { return RunStatusName(v); }
// Declared before the templates that call them (the records are not in this namespace: no ADL).
std::string Show(const Run& v);
template <class T>
std::string Show(const std::optional<T>& v) {
  return v ? Show(*v) : "null";
}

#define FIELD(name) +std::string(" " #name "=") + Show(v.name)

std::string Show(const Device& v) {
  return std::string("device") FIELD(serial) FIELD(model) FIELD(manufacturer) FIELD(sdk)
      FIELD(release) FIELD(abi) FIELD(fingerprint) FIELD(state) FIELD(first_seen) FIELD(last_seen);
}
std::string Show(const DeviceStateChange& v) {
  return std::string("state") FIELD(serial) FIELD(state) FIELD(changed_at);
}
std::string Show(const Run& v) {
  return std::string("run") FIELD(id) FIELD(spec_json) FIELD(serial) FIELD(device_model)
      FIELD(package) FIELD(activity) FIELD(mode) FIELD(iterations) FIELD(status) FIELD(error)
          FIELD(created_at) FIELD(started_at) FIELD(finished_at) FIELD(schedule_id)
              FIELD(fingerprint) FIELD(preflight_json);
}
std::string Show(const Launch& v) {
  return std::string("launch") FIELD(run_id) FIELD(iteration) FIELD(displayed_ms)
      FIELD(fully_drawn_ms) FIELD(total_time_ms) FIELD(wait_time_ms) FIELD(launch_state) FIELD(pid)
          FIELD(intent_at_ms) FIELD(fork_at_ms) FIELD(displayed_at_ms) FIELD(valid)
              FIELD(invalid_reason) FIELD(warmup) FIELD(thermal_status) FIELD(battery_temp_tenths_c)
                  FIELD(cooldown_wait_ms) FIELD(build_id);
}
std::string Show(const LooperStatsRow& v) {
  std::string text = "looper";
  ForEachLooperRowColumn([&](const auto& column, int) {
    text += std::string(" ") + column.name + "=" + Show(v.*column.member);
  });
  return text;
}
std::string Show(const ProcSample& v) {
  return std::string("sample") FIELD(run_id) FIELD(t_ms) FIELD(pid) FIELD(utime) FIELD(stime)
      FIELD(cpu_pct) FIELD(rss_kb) FIELD(num_threads);
}
std::string Show(const Schedule& v) {
  return std::string("schedule") FIELD(id) FIELD(cron) FIELD(timezone) FIELD(run_spec_json)
      FIELD(enabled) FIELD(last_fired_at) FIELD(created_at);
}
std::string Show(const DeviceRestore& v) {
  return std::string("restore") FIELD(id) FIELD(serial) FIELD(kind) FIELD(name) FIELD(previous)
      FIELD(run_id) FIELD(created_at) FIELD(paid_at);
}
std::string Show(const LaunchHistoryPoint& v) {
  return std::string("point") FIELD(run_id) FIELD(serial) FIELD(device_model) FIELD(mode)
      FIELD(run_created_at) FIELD(launches) FIELD(displayed_min_ms) FIELD(displayed_median_ms)
          FIELD(displayed_mean_ms) FIELD(displayed_max_ms) FIELD(total_time_median_ms)
              FIELD(fully_drawn_median_ms);
}

#undef FIELD

std::string Show(const std::pair<std::string, int64_t>& v) {
  return v.first + ": " + Show(v.second);
}
template <class T>
std::string Show(const std::vector<T>& v) {
  std::string text = "[";
  for (const T& each : v) text += "\n  " + Show(each);
  return text + "]";
}
std::string Show(const RunPage& v) { return Show(v.runs) + " next=" + v.next_cursor; }
template <class T>
std::string Show(const RowPage<T>& v) {
  return Show(v.rows) + " next=" + v.next_cursor;
}
std::string Show(const Ok&) { return "ok"; }
// A failure by its code: the messages are each backend's own.
template <class T>
std::string Show(const StoreResult<T>& v) {
  return v.ok() ? Show(*v) : std::string("error ") + StoreErrorCodeName(v.error().code);
}

// ---- Both stores side by side.

class PgRunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.path = dir_.File("droidlab.db");
    options.batch_max_delay = std::chrono::milliseconds(1);  // each write waits for its commit
    auto opened = Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    sqlite_ = std::move(opened).value();
    url_ = SharedPgServer().CreateDatabase("runs");
    pg_ = Connect(url_);
    auto migrated = MigratePostgres(pg_);
    ASSERT_TRUE(migrated.ok()) << migrated.error().message;
    reader_ = std::make_unique<PgReader>(Connect(url_));
  }

  // `write` on PostgreSQL as the writer runs a task: inside an open transaction, in a savepoint
  // rolled back when the task fails; committed.
  template <class Write>
  auto InPg(Write write) -> decltype(write(std::declval<Connection&>())) {
    Transaction transaction(pg_);
    EXPECT_TRUE(transaction.Begin().ok());
    EXPECT_TRUE(pg_.Execute("SAVEPOINT task", "savepoint").ok());
    auto result = write(pg_);
    EXPECT_TRUE(
        pg_.Execute(result.ok() ? "RELEASE SAVEPOINT task" : "ROLLBACK TO SAVEPOINT task", "task")
            .ok());
    EXPECT_TRUE(transaction.Commit().ok());
    return result;
  }

  // A batched SQLite write (Add*, UpsertDevice, ...) as its commit reports it.
  template <class Add>
  Status InSqlite(Add add) {
    std::promise<Status> committed;
    Status queued = add([&](const Status& s) { committed.set_value(s); });
    if (!queued) return queued;
    return committed.get_future().get();
  }

  // The same write to both; both results (a value or an error code) must be the same.
  template <class SqliteWrite, class PgWrite>
  void Both(const std::string& what, SqliteWrite sqlite_write, PgWrite pg_write) {
    const std::string sqlite = Show(sqlite_write());
    const std::string pg = Show(InPg(pg_write));
    EXPECT_EQ(sqlite, pg) << what;
  }

  // The same read from both readers, compared field by field.
  template <class SqliteRead, class PgRead>
  void SameRead(const std::string& what, SqliteRead sqlite_read, PgRead pg_read) {
    const std::string sqlite = Show(sqlite_->Read(sqlite_read));
    const std::string pg = Show(pg_read(*reader_));
    EXPECT_EQ(sqlite, pg) << what;
  }

  int64_t CreateRun(const NewRun& run) {
    auto sqlite = sqlite_->CreateRun(run);
    auto pg = InPg([&](Connection& db) { return writes::InsertRun(db, run); });
    EXPECT_TRUE(sqlite.ok() && pg.ok()) << Show(sqlite) << " / " << Show(pg);
    if (!sqlite.ok() || !pg.ok()) return -1;
    EXPECT_EQ(*sqlite, *pg) << "run ids";
    return *sqlite;
  }

  void UpdateRun(const RunStatusUpdate& update) {
    Both(
        "updating run " + std::to_string(update.run_id),
        [&] { return sqlite_->UpdateRunStatus(update); },
        [&](Connection& db) { return writes::UpdateRunStatus(db, update); });
  }

  void AddLaunches(const std::vector<Launch>& launches) {
    Both(
        "adding launches",
        [&] {
          return InSqlite(
              [&](Completion done) { return sqlite_->AddLaunches(launches, std::move(done)); });
        },
        [&](Connection& db) { return writes::InsertLaunches(db, launches); });
  }

  void AddLooperStats(const std::vector<LooperStatsRow>& rows) {
    Both(
        "adding looper stats",
        [&] {
          return InSqlite(
              [&](Completion done) { return sqlite_->AddLooperStats(rows, std::move(done)); });
        },
        [&](Connection& db) { return writes::InsertLooperStats(db, rows); });
  }

  void AddProcSamples(const std::vector<ProcSample>& samples) {
    Both(
        "adding proc samples",
        [&] {
          return InSqlite(
              [&](Completion done) { return sqlite_->AddProcSamples(samples, std::move(done)); });
        },
        [&](Connection& db) { return writes::InsertProcSamples(db, samples); });
  }

  void UpsertDevice(const Device& device) {
    Both(
        "upserting " + device.serial,
        [&] {
          return InSqlite(
              [&](Completion done) { return sqlite_->UpsertDevice(device, std::move(done)); });
        },
        [&](Connection& db) { return writes::UpsertDevice(db, device); });
  }

  void RecordDeviceState(const DeviceStateChange& change) {
    Both(
        "recording a state of " + change.serial,
        [&] {
          return InSqlite(
              [&](Completion done) { return sqlite_->RecordDeviceState(change, std::move(done)); });
        },
        [&](Connection& db) { return writes::RecordDeviceState(db, change); });
  }

  void RecordRestore(const DeviceRestore& restore) {
    Both(
        "recording a restore", [&] { return sqlite_->RecordDeviceRestore(restore); },
        [&](Connection& db) { return writes::InsertDeviceRestore(db, restore); });
  }

  // Every page of `limit` rows of one list from both readers, cursors included.
  template <class SqlitePage, class PgPage>
  void SamePages(const std::string& what, int64_t limit, SqlitePage sqlite_page, PgPage pg_page) {
    RowPageQuery query;
    query.limit = limit;
    for (int page = 0; page < 100; ++page) {
      auto sqlite = sqlite_->Read([&](Reader& r) { return sqlite_page(r, query); });
      auto pg = pg_page(*reader_, query);
      EXPECT_EQ(Show(sqlite), Show(pg)) << what << ", page " << page;
      if (!sqlite.ok() || !pg.ok() || sqlite->next_cursor.empty()) return;
      query.cursor = sqlite->next_cursor;
    }
    ADD_FAILURE() << what << ": no last page";
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> sqlite_;
  std::string url_;
  Connection pg_;
  std::unique_ptr<PgReader> reader_;
};

NewRun MakeRun(std::string package, std::optional<std::string> model, std::string mode,
               int64_t created_at, std::string spec = "{}") {
  NewRun run;
  run.spec_json = std::move(spec);
  run.serial = "emulator-5554";
  run.device_model = std::move(model);
  run.package = std::move(package);
  run.activity = ".Main";
  run.mode = std::move(mode);
  run.iterations = 5;
  run.created_at = created_at;
  return run;
}

Launch MakeLaunch(int64_t run_id, int64_t iteration, std::optional<int64_t> displayed_ms,
                  std::optional<int64_t> build_id = std::nullopt) {
  Launch l;
  l.run_id = run_id;
  l.iteration = iteration;
  l.displayed_ms = displayed_ms;
  l.total_time_ms = displayed_ms ? std::optional<int64_t>(*displayed_ms + 7) : std::nullopt;
  l.launch_state = "COLD";
  l.pid = 4000 + iteration;
  l.intent_at_ms = 10'000 * iteration;
  l.fork_at_ms = 10'000 * iteration + 15;
  l.displayed_at_ms = 10'000 * iteration + 300;
  l.thermal_status = iteration % 2 == 0 ? std::optional<std::string>("light") : std::nullopt;
  l.battery_temp_tenths_c = 326 + iteration;
  l.build_id = build_id;
  return l;
}

TEST_F(PgRunStoreTest, DevicesTheirStatesAndRestoresReadTheSameFromBoth) {
  // Serials whose byte order differs from a locale's ("B" < "_" < "a" in bytes).
  for (const char* serial : {"alpha-1", "B-2", "_usb-3"}) {
    Device device;
    device.serial = serial;
    device.model = "Pixel 7";
    device.sdk = 34;
    device.state = "device";
    device.first_seen = 1'000;
    device.last_seen = 1'000;
    UpsertDevice(device);
  }
  // A later upsert moves what it says, but never last_seen backwards nor first_seen at all.
  Device again;
  again.serial = "alpha-1";
  again.manufacturer = "Google";
  again.fingerprint = "google/panther/14";
  again.state = "offline";
  again.first_seen = 5'000;
  again.last_seen = 900;
  UpsertDevice(again);
  RecordDeviceState({"alpha-1", "device", 2'000});
  RecordDeviceState({"alpha-1", "offline", 1'500});
  RecordDeviceState({"B-2", "unauthorized", 3'000});
  RecordDeviceState({"never-seen", "device", 3'000});  // kNotFound in both

  for (int i = 0; i < 3; ++i) {
    DeviceRestore restore;
    restore.serial = i < 2 ? "alpha-1" : "B-2";
    restore.kind = "global_setting";
    restore.name = "animator_duration_scale_" + std::to_string(i);
    restore.previous = i == 1 ? std::nullopt : std::optional<std::string>("1.0");
    restore.run_id = i == 0 ? std::optional<int64_t>(7) : std::nullopt;
    restore.created_at = 100 + i;
    RecordRestore(restore);
  }
  Both(
      "paying restore 1", [&] { return sqlite_->MarkDeviceRestorePaid(1, 500); },
      [&](Connection& db) { return writes::MarkDeviceRestorePaid(db, 1, 500); });
  Both(
      "paying restore 1 again", [&] { return sqlite_->MarkDeviceRestorePaid(1, 600); },
      [&](Connection& db) { return writes::MarkDeviceRestorePaid(db, 1, 600); });
  Both(
      "paying an unknown restore", [&] { return sqlite_->MarkDeviceRestorePaid(99, 600); },
      [&](Connection& db) { return writes::MarkDeviceRestorePaid(db, 99, 600); });

  SameRead(
      "devices", [](Reader& r) { return r.ListDevices(); },
      [](PgReader& r) { return r.ListDevices(); });
  for (const char* serial : {"alpha-1", "B-2", "nobody"}) {
    SameRead(
        std::string("device ") + serial, [&](Reader& r) { return r.GetDevice(serial); },
        [&](PgReader& r) { return r.GetDevice(serial); });
    SameRead(
        std::string("states of ") + serial,
        [&](Reader& r) { return r.ListDeviceStateChanges(serial); },
        [&](PgReader& r) { return r.ListDeviceStateChanges(serial); });
    SameRead(
        std::string("restores owed by ") + serial,
        [&](Reader& r) { return r.ListOwedRestores(serial); },
        [&](PgReader& r) { return r.ListOwedRestores(serial); });
  }
  // The comparison can fail: the PostgreSQL side holds what was written.
  auto devices = reader_->ListDevices();
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 3u);
  EXPECT_EQ((*devices)[0].serial, "B-2");
  EXPECT_EQ((*devices)[2].serial, "alpha-1");
  EXPECT_EQ((*devices)[2].last_seen, 2'000);
  EXPECT_EQ((*devices)[2].first_seen, 1'000);
}

TEST_F(PgRunStoreTest, RunsTheirRowsAndTheirHistoryReadTheSameFromBoth) {
  const std::string build7 = "{\"build\": 7, \"package\": \"com.a\"}";
  const int64_t r1 = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 1'000, build7));
  const int64_t r2 = CreateRun(
      MakeRun("com.a", "Pixel 7", "cold", 2'000, "{\"kind\": \"calibration\", \"build\": 7}"));
  const int64_t r3 = CreateRun(MakeRun("com.a", std::nullopt, "cold", 2'000));  // a tie on time
  const int64_t r4 = CreateRun(MakeRun("com.b", "Pixel 8", "warm", 3'000));
  const int64_t r5 = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 4'000, build7));
  NewRun scheduled = MakeRun("com.a", "Pixel 7", "hot", 5'000);
  scheduled.schedule_id = 3;
  scheduled.activity.reset();
  const int64_t r6 = CreateRun(scheduled);
  ASSERT_EQ(r6, 6);

  RunStatusUpdate started;
  started.status = RunStatus::kRunning;
  started.started_at = 1'100;
  started.fingerprint = "google/panther/14";
  for (int64_t id : {r1, r2, r3, r4, r5}) {
    started.run_id = id;
    UpdateRun(started);
  }
  RunStatusUpdate succeeded;
  succeeded.status = RunStatus::kSucceeded;
  succeeded.finished_at = 1'900;
  succeeded.preflight_json = "{\"build\": {\"id\": 7, \"sha256\": \"ab\"}}";
  for (int64_t id : {r1, r2, r3}) {
    succeeded.run_id = id;
    UpdateRun(succeeded);
  }
  RunStatusUpdate failed;
  failed.run_id = r4;
  failed.status = RunStatus::kFailed;
  failed.error = "adb: device offline";
  UpdateRun(failed);
  failed.run_id = 99;  // kNotFound in both
  UpdateRun(failed);
  Both(
      "interrupting running runs", [&] { return sqlite_->InterruptRunningRuns("restarted", 9); },
      [&](Connection& db) { return writes::InterruptRunningRuns(db, "restarted", 9); });

  // r1: a warm-up, counted launches of its build, an invalid one, one of a side-by-side run's
  // other build (not its history).
  std::vector<Launch> launches;
  for (int64_t i = 0; i < 6; ++i) launches.push_back(MakeLaunch(r1, i, 600 + 13 * i, 7));
  launches[0].warmup = true;
  launches[0].cooldown_wait_ms = 12'500;
  launches[2].valid = false;
  launches[2].invalid_reason = "anr";
  launches[3].build_id = 8;
  launches[4].fully_drawn_ms = 900;
  launches[5].displayed_ms.reset();
  AddLaunches(launches);
  AddLaunches({MakeLaunch(r2, 0, 500, 7), MakeLaunch(r2, 1, 510)});  // calibration
  AddLaunches({MakeLaunch(r3, 0, 700), MakeLaunch(r3, 1, 720), MakeLaunch(r3, 2, 701)});
  AddLaunches({MakeLaunch(r4, 0, 800)});

  std::vector<LooperStatsRow> looper(4);
  for (size_t i = 0; i < looper.size(); ++i) {
    LooperStatsRow& row = looper[i];
    row.run_id = r1;
    row.work_source_uid = "u0a" + std::to_string(100 + i);
    row.is_app = i % 2 == 0;
    row.message_count = static_cast<int64_t>(10 * i);
    row.total_latency_micros = static_cast<int64_t>(1'000 * i);
  }
  looper[0].package = "com.a";
  looper[0].uid = 10'100;
  looper[0].thread_name = "main";
  looper[0].handler_class = "android.view.Choreographer$FrameHandler";
  looper[0].message_name = "0x1\ttab\\back";  // COPY's escapes
  looper[0].is_interactive = true;
  looper[1].is_interactive = false;
  looper[2].extra_json = "{\"unknown_column\": 3}";
  looper[3].exception_count = 2;
  AddLooperStats(looper);

  std::vector<ProcSample> samples;
  for (int64_t i = 0; i < 7; ++i) {
    ProcSample p;
    p.run_id = r1;
    p.t_ms = 10 * (i / 2);  // two samples at each time: the rowid breaks the tie
    p.pid = 4000 + i % 2;
    p.utime = 100 + i;
    p.stime = 50 + i;
    p.cpu_pct = i == 3 ? std::nullopt : std::optional<double>(0.1 * static_cast<double>(i) + 1e-9);
    if (i == 5) p.cpu_pct = std::nan("");  // SQLite stores NULL
    p.rss_kb = 81'000 + i;
    p.num_threads = 30 + i;
    samples.push_back(p);
  }
  AddProcSamples(samples);

  SameRead(
      "run counts", [](Reader& r) { return r.CountRunsByStatus(); },
      [](PgReader& r) { return r.CountRunsByStatus(); });
  for (int64_t id = 0; id <= 7; ++id) {
    SameRead(
        "run " + std::to_string(id), [&](Reader& r) { return r.GetRun(id); },
        [&](PgReader& r) { return r.GetRun(id); });
    SameRead(
        "launches of " + std::to_string(id), [&](Reader& r) { return r.ListLaunches(id); },
        [&](PgReader& r) { return r.ListLaunches(id); });
    SameRead(
        "looper stats of " + std::to_string(id), [&](Reader& r) { return r.ListLooperStats(id); },
        [&](PgReader& r) { return r.ListLooperStats(id); });
    SameRead(
        "samples of " + std::to_string(id), [&](Reader& r) { return r.ListProcSamples(id); },
        [&](PgReader& r) { return r.ListProcSamples(id); });
  }

  // Every filter of ListRuns, a page of 2 at a time: the same runs and the same cursors.
  std::vector<RunQuery> queries(6);
  queries[1].package = "com.a";
  queries[2].serial = "emulator-5554";
  queries[3].status = RunStatus::kSucceeded;
  queries[4].since = 2'000;
  queries[5].package = "com.a";
  queries[5].status = RunStatus::kInterrupted;
  for (size_t q = 0; q < queries.size(); ++q) {
    RunQuery query = queries[q];
    query.limit = 2;
    for (int page = 0; page < 10; ++page) {
      auto sqlite = sqlite_->Read([&](Reader& r) { return r.ListRuns(query); });
      auto pg = reader_->ListRuns(query);
      EXPECT_EQ(Show(sqlite), Show(pg)) << "query " << q << ", page " << page;
      if (!sqlite.ok() || sqlite->next_cursor.empty()) break;
      query.cursor = sqlite->next_cursor;
    }
  }

  for (int64_t limit : {1, 2, 4, 100}) {
    SamePages(
        "launches of r1 by " + std::to_string(limit), limit,
        [&](Reader& r, const RowPageQuery& q) { return r.PageLaunches(r1, q); },
        [&](PgReader& r, const RowPageQuery& q) { return r.PageLaunches(r1, q); });
    SamePages(
        "looper stats of r1 by " + std::to_string(limit), limit,
        [&](Reader& r, const RowPageQuery& q) { return r.PageLooperStats(r1, q); },
        [&](PgReader& r, const RowPageQuery& q) { return r.PageLooperStats(r1, q); });
    SamePages(
        "samples of r1 by " + std::to_string(limit), limit,
        [&](Reader& r, const RowPageQuery& q) { return r.PageProcSamples(r1, q); },
        [&](PgReader& r, const RowPageQuery& q) { return r.PageProcSamples(r1, q); });
  }

  for (const std::optional<std::string>& model :
       {std::optional<std::string>("Pixel 7"), std::optional<std::string>()}) {
    SameRead(
        "previous successful run",
        [&](Reader& r) { return r.PreviousSuccessfulRun("com.a", model, "cold", 10'000); },
        [&](PgReader& r) { return r.PreviousSuccessfulRun("com.a", model, "cold", 10'000); });
    SameRead(
        "calibration runs", [&](Reader& r) { return r.CalibrationRuns("com.a", model, "cold", 5); },
        [&](PgReader& r) { return r.CalibrationRuns("com.a", model, "cold", 5); });
    LaunchHistoryQuery history;
    history.package = "com.a";
    history.device_model = model;
    SameRead(
        "launch history", [&](Reader& r) { return r.LaunchHistory(history); },
        [&](PgReader& r) { return r.LaunchHistory(history); });
  }
  SameRead(
      "calibration runs, any model or mode, no limit",
      [&](Reader& r) { return r.CalibrationRuns("com.a", std::nullopt, std::nullopt, -1); },
      [&](PgReader& r) { return r.CalibrationRuns("com.a", std::nullopt, std::nullopt, -1); });
  SameRead(
      "integrity", [](Reader& r) { return r.IntegrityCheck(); },
      [](PgReader& r) { return r.IntegrityCheck(); });

  // The comparisons can fail: the PostgreSQL side holds what was written.
  auto run1 = reader_->GetRun(r1);
  ASSERT_TRUE(run1.ok());
  EXPECT_EQ(run1->spec_json, build7);
  EXPECT_EQ(run1->status, RunStatus::kSucceeded);
  auto history = reader_->LaunchHistory({"com.a", 0, "Pixel 7", "cold"});
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);        // r1 and the calibration r2's launch of no build
  EXPECT_EQ((*history)[0].launches, 2);  // iterations 1 and 4 (5 has no displayed_ms)
  auto looper_read = reader_->ListLooperStats(r1);
  ASSERT_TRUE(looper_read.ok());
  ASSERT_EQ(looper_read->size(), 4u);
  EXPECT_EQ((*looper_read)[0].message_name, looper[0].message_name);
  auto samples_read = reader_->ListProcSamples(r1);
  ASSERT_TRUE(samples_read.ok());
  ASSERT_EQ(samples_read->size(), 7u);
  EXPECT_FALSE((*samples_read)[5].cpu_pct);
}

TEST_F(PgRunStoreTest, SchedulesReadTheSameFromBoth) {
  for (int i = 0; i < 3; ++i) {
    NewSchedule schedule;
    schedule.cron = "0 " + std::to_string(i) + " * * *";
    schedule.timezone = "Europe/Paris";
    schedule.run_spec_json = "{\"package\":\"com.a\"}";  // TEXT: kept as written
    schedule.enabled = i != 1;
    schedule.created_at = 100 + i;
    Both(
        "creating a schedule", [&] { return sqlite_->CreateSchedule(schedule); },
        [&](Connection& db) { return writes::InsertSchedule(db, schedule); });
  }
  Both(
      "disabling 1", [&] { return sqlite_->SetScheduleEnabled(1, false); },
      [&](Connection& db) { return writes::SetScheduleEnabled(db, 1, false); });
  Both(
      "enabling 2", [&] { return sqlite_->SetScheduleEnabled(2, true); },
      [&](Connection& db) { return writes::SetScheduleEnabled(db, 2, true); });
  Both(
      "firing 2", [&] { return sqlite_->MarkScheduleFired(2, 7'000); },
      [&](Connection& db) { return writes::MarkScheduleFired(db, 2, 7'000); });
  // A firing is recorded once (two daemons in a partition): again, or an earlier one, is
  // kConstraint on both, and the recorded one stays.
  for (int64_t again : {7'000, 6'000}) {
    Both(
        "firing 2 again", [&] { return sqlite_->MarkScheduleFired(2, again); },
        [&](Connection& db) { return writes::MarkScheduleFired(db, 2, again); });
    EXPECT_EQ(sqlite_->MarkScheduleFired(2, again).error().code, StoreErrorCode::kConstraint);
  }
  Both(
      "deleting 3", [&] { return sqlite_->DeleteSchedule(3); },
      [&](Connection& db) { return writes::DeleteSchedule(db, 3); });
  for (int64_t unknown : {3, 42}) {
    Both(
        "deleting an unknown one", [&] { return sqlite_->DeleteSchedule(unknown); },
        [&](Connection& db) { return writes::DeleteSchedule(db, unknown); });
    Both(
        "enabling an unknown one", [&] { return sqlite_->SetScheduleEnabled(unknown, true); },
        [&](Connection& db) { return writes::SetScheduleEnabled(db, unknown, true); });
    Both(
        "firing an unknown one", [&] { return sqlite_->MarkScheduleFired(unknown, 1); },
        [&](Connection& db) { return writes::MarkScheduleFired(db, unknown, 1); });
  }
  SameRead(
      "schedules", [](Reader& r) { return r.ListSchedules(); },
      [](PgReader& r) { return r.ListSchedules(); });
  for (int64_t id = 1; id <= 3; ++id) {
    SameRead(
        "schedule " + std::to_string(id), [&](Reader& r) { return r.GetSchedule(id); },
        [&](PgReader& r) { return r.GetSchedule(id); });
  }
  auto schedules = reader_->ListSchedules();
  ASSERT_TRUE(schedules.ok());
  ASSERT_EQ(schedules->size(), 2u);
  EXPECT_FALSE((*schedules)[0].enabled);
  EXPECT_EQ((*schedules)[1].last_fired_at, std::optional<int64_t>(7'000));
}

TEST_F(PgRunStoreTest, ALaunchStoredTwiceIsAConstraintErrorAndItsTaskStoresNothing) {
  const int64_t run = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 1'000));
  AddLaunches({MakeLaunch(run, 0, 700)});
  // The second batch holds a new launch and a stored one: kConstraint in both, and in both the
  // task's rows are gone (SQLite's failed at the duplicate, COPY as a whole; either way the
  // writer rolls the task's savepoint back).
  AddLaunches({MakeLaunch(run, 1, 701), MakeLaunch(run, 0, 702)});
  AddLaunches({MakeLaunch(run, 2, 703)});
  SameRead(
      "launches", [&](Reader& r) { return r.ListLaunches(run); },
      [&](PgReader& r) { return r.ListLaunches(run); });
  auto stored = reader_->ListLaunches(run);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[1].iteration, 2);
  auto twice =
      InPg([&](Connection& db) { return writes::InsertLaunches(db, {MakeLaunch(run, 0, 1)}); });
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, StoreErrorCode::kConstraint) << twice.error().message;
}

TEST_F(PgRunStoreTest, ABadCursorOrLimitIsAnInvalidArgumentInBoth) {
  const int64_t run = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 1'000));
  AddLaunches({MakeLaunch(run, 0, 700), MakeLaunch(run, 1, 701)});
  const std::string hex16 = "0000000000000000";
  for (const std::string& cursor : {std::string("e1") + hex16, std::string("i1") + hex16.substr(1),
                                    std::string("i1") + "g" + hex16.substr(1),
                                    std::string("p1") + hex16, std::string("i1") + hex16 + "0"}) {
    RowPageQuery query{cursor, 10};
    SameRead(
        "launches after " + cursor, [&](Reader& r) { return r.PageLaunches(run, query); },
        [&](PgReader& r) { return r.PageLaunches(run, query); });
    SameRead(
        "looper stats after " + cursor, [&](Reader& r) { return r.PageLooperStats(run, query); },
        [&](PgReader& r) { return r.PageLooperStats(run, query); });
    SameRead(
        "samples after " + cursor, [&](Reader& r) { return r.PageProcSamples(run, query); },
        [&](PgReader& r) { return r.PageProcSamples(run, query); });
  }
  RowPageQuery bad{"x", 10};
  auto page = reader_->PageLaunches(run, bad);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code, StoreErrorCode::kInvalidArgument);

  for (const auto& [cursor, limit] : std::vector<std::pair<std::string, int>>{
           {"r1" + hex16, 10}, {"nope", 10}, {"", 0}, {"", 1001}, {"r1" + hex16 + hex16, 10}}) {
    RunQuery query;
    query.cursor = cursor;
    query.limit = limit;
    SameRead(
        "runs after \"" + cursor + "\" by " + std::to_string(limit),
        [&](Reader& r) { return r.ListRuns(query); },
        [&](PgReader& r) { return r.ListRuns(query); });
  }
  RunQuery zero;
  zero.limit = 0;
  auto runs = reader_->ListRuns(zero);
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.error().code, StoreErrorCode::kInvalidArgument);
}

TEST_F(PgRunStoreTest, ASpecThatIsNotJsonIsRefusedByPostgresWhereSqliteKeepsIt) {
  NewRun run = MakeRun("com.a", "Pixel 7", "cold", 1'000, "not json");
  auto pg = InPg([&](Connection& db) { return writes::InsertRun(db, run); });
  ASSERT_FALSE(pg.ok());
  EXPECT_EQ(pg.error().code, StoreErrorCode::kInvalidArgument) << pg.error().message;
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM runs"), 0);
}

// runs.spec and runs.preflight are JSON, not JSONB (which would keep the document but respell it:
// keys by length then bytes, one space after ':' and ','): both backends give back the text as
// it was written, byte for byte.
TEST_F(PgRunStoreTest, ASpecIsReadBackAsWrittenByteForByte) {
  const NewRun run = MakeRun("com.a", "Pixel 7", "cold", 1'000, R"({"package":"com.a","build":7})");
  const int64_t id = CreateRun(run);
  RunStatusUpdate update;
  update.run_id = id;
  update.status = RunStatus::kRunning;
  update.preflight_json = R"({ "z" : [1,2], "a" : null })";
  UpdateRun(update);
  auto sqlite = sqlite_->Read([&](Reader& r) { return r.GetRun(id); });
  auto pg = reader_->GetRun(id);
  ASSERT_TRUE(sqlite.ok() && pg.ok());
  EXPECT_EQ(sqlite->spec_json, run.spec_json);
  EXPECT_EQ(pg->spec_json, run.spec_json);
  EXPECT_EQ(pg->preflight_json, std::optional<std::string>(R"({ "z" : [1,2], "a" : null })"));
  EXPECT_EQ(sqlite->preflight_json, pg->preflight_json);
}

// Runs created at 1000 * i, statuses cycling through every one; each with a launch, a sample
// and a looper row; device states and restores at several ages.
class PgRetentionTest : public PgRunStoreTest {
 protected:
  void Fill() {
    const RunStatus statuses[] = {RunStatus::kSucceeded, RunStatus::kFailed,
                                  RunStatus::kQueued,    RunStatus::kCancelled,
                                  RunStatus::kRunning,   RunStatus::kInterrupted};
    for (int64_t i = 1; i <= 18; ++i) {
      const int64_t id = CreateRun(MakeRun(i % 3 == 0 ? "com.b" : "com.a", "Pixel 7", "cold",
                                           1'000 * (i % 9 == 0 ? 2 : i)));  // ties on time
      RunStatusUpdate update;
      update.run_id = id;
      update.status = statuses[i % 6];
      if (update.status != RunStatus::kQueued) UpdateRun(update);
      AddLaunches({MakeLaunch(id, 0, 600 + i)});
      ProcSample sample;
      sample.run_id = id;
      sample.t_ms = i;
      AddProcSamples({sample});
      LooperStatsRow row;
      row.run_id = id;
      row.work_source_uid = "1000";
      AddLooperStats({row});
    }
    Device device;
    device.state = "device";
    for (const char* serial : {"a", "b"}) {
      device.serial = serial;
      UpsertDevice(device);
      for (int64_t at : {1'000, 4'000, 6'500, 9'000}) RecordDeviceState({serial, "device", at});
    }
    RecordDeviceState({"b", "offline", 2'000});
    for (int64_t i = 0; i < 4; ++i) {
      DeviceRestore restore;
      restore.serial = "a";
      restore.kind = "battery_reset";
      restore.created_at = 100;
      RecordRestore(restore);
      if (i < 3) {
        Both(
            "paying a restore",
            [&] { return sqlite_->MarkDeviceRestorePaid(i + 1, 3'000 * (i + 1)); },
            [&](Connection& db) {
              return writes::MarkDeviceRestorePaid(db, i + 1, 3'000 * (i + 1));
            });
      }
    }
  }

  // PruneStep until its last step, each in its own transaction, as Store::Prune's steps.
  StoreResult<RetentionResult> PrunePg(const RetentionPolicy& policy) {
    RetentionResult total;
    for (int step = 0; step < 100; ++step) {
      auto result = InPg([&](Connection& db) { return PruneStep(db, policy); });
      if (!result) return result.error();
      ++total.steps;
      total.runs_deleted += result->runs_deleted;
      total.history_rows_deleted += result->history_rows_deleted;
      // The last step deleted fewer runs than its budget (as the writer decides).
      if (result->runs_deleted < std::max<int64_t>(1, policy.runs_per_step)) return total;
    }
    return MakeStoreError(StoreErrorCode::kInternal, "no last step");
  }

  void PruneBoth(const RetentionPolicy& policy) {
    auto sqlite = sqlite_->Prune(policy);
    auto pg = PrunePg(policy);
    ASSERT_TRUE(sqlite.ok()) << sqlite.error().message;
    ASSERT_TRUE(pg.ok()) << pg.error().message;
    EXPECT_GT(pg->runs_deleted, 0);
    EXPECT_EQ(sqlite->runs_deleted, pg->runs_deleted);
    EXPECT_EQ(sqlite->steps, pg->steps);
    EXPECT_EQ(sqlite->history_rows_deleted, pg->history_rows_deleted);
    RunQuery all;
    all.limit = 1000;
    SameRead(
        "runs left", [&](Reader& r) { return r.ListRuns(all); },
        [&](PgReader& r) { return r.ListRuns(all); });
    for (int64_t id = 1; id <= 18; ++id) {
      SameRead(
          "launches of " + std::to_string(id), [&](Reader& r) { return r.ListLaunches(id); },
          [&](PgReader& r) { return r.ListLaunches(id); });
      SameRead(
          "samples of " + std::to_string(id), [&](Reader& r) { return r.ListProcSamples(id); },
          [&](PgReader& r) { return r.ListProcSamples(id); });
      SameRead(
          "looper stats of " + std::to_string(id), [&](Reader& r) { return r.ListLooperStats(id); },
          [&](PgReader& r) { return r.ListLooperStats(id); });
    }
    for (const char* serial : {"a", "b"}) {
      SameRead(
          std::string("states of ") + serial,
          [&](Reader& r) { return r.ListDeviceStateChanges(serial); },
          [&](PgReader& r) { return r.ListDeviceStateChanges(serial); });
    }
    SameRead(
        "restores owed", [&](Reader& r) { return r.ListOwedRestores("a"); },
        [&](PgReader& r) { return r.ListOwedRestores("a"); });
  }
};

TEST_F(PgRetentionTest, ByAgeInStepsTheSameRunsAndHistoryGoAsInSqlite) {
  Fill();
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(10'000);
  policy.now_ms = 16'500;  // before 6'500
  policy.runs_per_step = 2;
  PruneBoth(policy);
  // Finished runs created before 6'500 are gone, queued and running ones stay.
  EXPECT_EQ(Count(pg_,
                  "SELECT count(*) FROM runs WHERE created_at < 6500"
                  " AND status NOT IN ('queued', 'running')"),
            0);
  EXPECT_GT(Count(pg_, "SELECT count(*) FROM runs WHERE created_at < 6500"), 0);
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM device_state_changes WHERE serial = 'b'"), 3);
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM device_state_changes WHERE serial = 'a'"), 2);
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM device_restores"),
            2);  // the owed one, and the one paid at 9'000
}

TEST_F(PgRetentionTest, ByCountTheNewestRunsAndUnfinishedOnesStay) {
  Fill();
  RetentionPolicy policy;
  policy.max_runs = 5;
  policy.now_ms = 100'000;
  policy.runs_per_step = 3;
  PruneBoth(policy);
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM device_state_changes"), 9);  // no max_age
}

TEST_F(PgRetentionTest, AgeAndCountTogetherInOneRunSteps) {
  Fill();
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(5'000);
  policy.max_runs = 8;
  policy.now_ms = 12'000;
  policy.runs_per_step = 1;
  PruneBoth(policy);
}

TEST_F(PgRunStoreTest, DeletingARunDeletesItsRowsInEveryTableAndNoOtherRunsRows) {
  const int64_t gone = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 1'000));
  const int64_t kept = CreateRun(MakeRun("com.a", "Pixel 7", "cold", 2'000));
  for (int64_t run : {gone, kept}) {
    AddLaunches({MakeLaunch(run, 0, 700)});
    ProcSample sample;
    sample.run_id = run;
    AddProcSamples({sample});
    LooperStatsRow row;
    row.run_id = run;
    AddLooperStats({row});
    // The other helper's tables, written here by hand.
    const std::string id = std::to_string(run);
    ASSERT_TRUE(
        pg_.Execute("INSERT INTO run_summaries (package, device_model, mode, metric, t,"
                    " run_id, count) VALUES ('com.a', 'Pixel 7', 'cold', 'displayed_ms',"
                    " 1, " +
                        id +
                        ", 0);"
                        "INSERT INTO iteration_frames (run_id, iteration, frame_rows, counted,"
                        " refresh_period_ns, over_16_7ms, over_33ms, over_50ms,"
                        " matrix_normal, matrix_middle, matrix_high, matrix_frozen,"
                        " dropped_frames, jank, big_jank, columns_json, rows_json) VALUES"
                        " (" +
                        id +
                        ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '[]', '[]');"
                        "INSERT INTO iteration_faults (run_id, iteration, seq, kind, time,"
                        " process_name, reason, stack) VALUES (" +
                        id +
                        ", 0, 0, 'anr', '', '', '', '');"
                        "INSERT INTO iteration_memory (run_id, iteration, pid) VALUES (" +
                        id + ", 0, 1)",
                    "rows of other tables")
            .ok());
  }
  const std::vector<std::string> tables = {
      "launches",         "looper_stats",     "proc_samples",    "run_summaries",
      "iteration_frames", "iteration_faults", "iteration_memory"};
  ASSERT_TRUE(InPg([&](Connection& db) { return writes::DeleteRunAndRows(db, gone); }).ok());
  for (const std::string& table : tables) {
    EXPECT_EQ(
        Count(pg_, "SELECT count(*) FROM " + table + " WHERE run_id = " + std::to_string(gone)), 0)
        << table;
    EXPECT_EQ(
        Count(pg_, "SELECT count(*) FROM " + table + " WHERE run_id = " + std::to_string(kept)), 1)
        << table;
  }
  EXPECT_EQ(Count(pg_, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(Count(pg_, "SELECT id FROM id_high_water WHERE name = 'runs'"), gone);
  // A run not stored: nothing to do, as SQLite.
  EXPECT_TRUE(InPg([&](Connection& db) { return writes::DeleteRunAndRows(db, 99); }).ok());
}

}  // namespace
}  // namespace droidlab::store::pg
