// The store through its public API against real files: every record kind in and out, the
// API's queries and their paging, the writer's batching, back-pressure and failures, retention
// and backup.
#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/open.h"
#include "store/sqlite.h"
#include "store/sqlite_write_session.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

using testutil::TempDir;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open(StoreOptions options = {}) {
    store_.reset();
    options.path = testutil::TestStoreLocation(dir_);
    auto opened = Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened).value();
  }

  int64_t CreateRun(std::string serial, std::string package, int64_t created_at,
                    std::string mode = "cold", std::optional<std::string> model = "Pixel 7") {
    NewRun run;
    run.spec_json = R"({"iterations":3})";
    run.serial = std::move(serial);
    run.device_model = std::move(model);
    run.package = std::move(package);
    run.mode = std::move(mode);
    run.iterations = 3;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok()) << id.error().message;
    return id.ok() ? *id : 0;
  }

  void Finish(int64_t run_id, RunStatus status) {
    RunStatusUpdate update;
    update.run_id = run_id;
    update.status = status;
    ASSERT_TRUE(store_->UpdateRunStatus(update).ok());
  }

  static Launch MakeLaunch(int64_t run_id, int64_t iteration, int64_t displayed) {
    Launch l;
    l.run_id = run_id;
    l.iteration = iteration;
    l.displayed_ms = displayed;
    l.total_time_ms = displayed + 5;
    l.wait_time_ms = displayed + 9;
    l.launch_state = "COLD";
    l.pid = 4000 + iteration;
    l.intent_at_ms = 100000 + iteration * 10000;
    l.fork_at_ms = *l.intent_at_ms + 40;
    l.displayed_at_ms = *l.intent_at_ms + displayed;
    return l;
  }

  // Holds the writer on its thread until the returned promise is set: completions run on the
  // writer thread, so a launch's completion that waits holds it there. Returns once it holds.
  std::promise<void> HoldTheWriter(int64_t run_id) {
    std::promise<void> gate;
    auto released = gate.get_future().share();
    std::promise<void> entered;
    auto holding = [&entered, released](const Status&) {
      entered.set_value();
      released.wait();
    };
    const Status pushed = store_->AddLaunches({MakeLaunch(run_id, 0, 1)}, std::move(holding));
    EXPECT_TRUE(pushed.ok()) << pushed.error().message;
    if (pushed.ok()) entered.get_future().wait();
    return gate;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, RunLifecycleIsVisibleToReadersWhenReported) {
  const int64_t id = CreateRun("emulator-5554", "com.example.app", 1000);
  ASSERT_GT(id, 0);
  // Reported committed: a reader sees it at once, without any Flush.
  auto run = store_->Read([&](Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->status, RunStatus::kQueued);
  EXPECT_EQ(run->spec_json, R"({"iterations":3})");
  EXPECT_EQ(run->device_model, "Pixel 7");

  RunStatusUpdate running;
  running.run_id = id;
  running.status = RunStatus::kRunning;
  running.started_at = 2000;
  running.fingerprint = "google/panther/panther:14/UQ1A/1:user/release-keys";
  running.preflight_json = R"({"battery":88})";
  ASSERT_TRUE(store_->UpdateRunStatus(running).ok());
  RunStatusUpdate failed;
  failed.run_id = id;
  failed.status = RunStatus::kFailed;
  failed.finished_at = 3000;
  failed.error = "device unplugged during iteration 2";
  ASSERT_TRUE(store_->UpdateRunStatus(failed).ok());

  run = store_->Read([&](Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->started_at, 2000);
  EXPECT_EQ(run->finished_at, 3000);
  EXPECT_EQ(run->error, "device unplugged during iteration 2");
  EXPECT_EQ(run->preflight_json, R"({"battery":88})");
  EXPECT_TRUE(run->fingerprint.has_value());
}

TEST_F(StoreTest, UnknownRunIsNotFound) {
  RunStatusUpdate update;
  update.run_id = 999;
  update.status = RunStatus::kRunning;
  auto status = store_->UpdateRunStatus(update);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, StoreErrorCode::kNotFound);
  auto run = store_->Read([](Reader& r) { return r.GetRun(999); });
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, StoreErrorCode::kNotFound);
}

TEST_F(StoreTest, InterruptRunningRunsAfterACrash) {
  const int64_t queued = CreateRun("s1", "com.a", 1);
  const int64_t running = CreateRun("s1", "com.a", 2);
  Finish(running, RunStatus::kRunning);
  auto count = store_->InterruptRunningRuns("droidlab restarted during the run", 99);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
  auto run = store_->Read([&](Reader& r) { return r.GetRun(running); });
  EXPECT_EQ(run->status, RunStatus::kInterrupted);
  EXPECT_EQ(run->error, "droidlab restarted during the run");
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.GetRun(queued); })->status, RunStatus::kQueued);
}

TEST_F(StoreTest, RunsAreCountedByStatus) {
  CreateRun("s1", "com.a", 1);
  CreateRun("s1", "com.a", 2);
  Finish(CreateRun("s2", "com.b", 3), RunStatus::kFailed);
  auto counts = store_->Read([](Reader& r) { return r.CountRunsByStatus(); });
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  using Count = std::pair<std::string, int64_t>;
  EXPECT_EQ(*counts, (std::vector<Count>{{"failed", 1}, {"queued", 2}}));
}

TEST_F(StoreTest, LaunchesRoundTripWithPhases) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::vector<Launch> launches = {MakeLaunch(id, 0, 700), MakeLaunch(id, 1, 650)};
  launches[1].valid = false;
  launches[1].invalid_reason = "LaunchState WARM, asked for cold";
  launches[1].fully_drawn_ms = std::nullopt;
  ASSERT_TRUE(store_->AddLaunches(launches).ok());
  ASSERT_TRUE(store_->Flush().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListLaunches(id); });
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].displayed_ms, 700);
  EXPECT_EQ((*got)[0].intent_to_fork_ms(), 40);
  EXPECT_EQ((*got)[0].fork_to_displayed_ms(), 660);
  EXPECT_EQ((*got)[0].launch_state, "COLD");
  EXPECT_TRUE((*got)[0].valid);
  EXPECT_FALSE((*got)[1].valid);
  EXPECT_EQ((*got)[1].invalid_reason, "LaunchState WARM, asked for cold");
  EXPECT_FALSE((*got)[1].fully_drawn_ms.has_value());
}

// schema/0004_launch_conditions.sql: a warm-up and the conditions a launch was measured in.
TEST_F(StoreTest, LaunchConditionsRoundTrip) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::vector<Launch> launches = {MakeLaunch(id, 1, 900), MakeLaunch(id, 2, 700)};
  launches[0].warmup = true;
  launches[0].thermal_status = "light";
  launches[0].battery_temp_tenths_c = 371;
  launches[0].cooldown_wait_ms = 12'500;
  ASSERT_TRUE(store_->AddLaunches(launches).ok());
  ASSERT_TRUE(store_->Flush().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListLaunches(id); });
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE((*got)[0].warmup);
  EXPECT_FALSE((*got)[0].counted());
  EXPECT_EQ((*got)[0].thermal_status, std::optional<std::string>("light"));
  EXPECT_EQ((*got)[0].battery_temp_tenths_c, std::optional<int64_t>(371));
  EXPECT_EQ((*got)[0].cooldown_wait_ms, std::optional<int64_t>(12'500));
  EXPECT_FALSE((*got)[1].warmup);
  EXPECT_TRUE((*got)[1].counted());
  EXPECT_FALSE((*got)[1].thermal_status);
  EXPECT_FALSE((*got)[1].battery_temp_tenths_c);
}

TEST_F(StoreTest, ADuplicateLaunchFailsAloneAndTheBatchIsKept) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<Status> first, duplicate, third;
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 0, 700)},
                                  [&](const Status& s) { first.set_value(s); }).ok());
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 0, 701)},
                                  [&](const Status& s) { duplicate.set_value(s); }).ok());
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 1, 702)},
                                  [&](const Status& s) { third.set_value(s); }).ok());
  EXPECT_TRUE(first.get_future().get().ok());
  auto dup = duplicate.get_future().get();
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, StoreErrorCode::kConstraint);
  EXPECT_NE(dup.error().message.find("launch 0 of run"), std::string::npos) << dup.error().message;
  EXPECT_TRUE(third.get_future().get().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListLaunches(id); });
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].displayed_ms, 700);
  EXPECT_EQ(store_->stats().tasks_failed, 1u);
}

// Rows as the orchestrator hands them over (orchestrator/run/looper_rows.h makes them from a
// dump): every column back as stored, in dump order.
TEST_F(StoreTest, LooperStatsRowsRoundTrip) {
  const int64_t id = CreateRun("s1", "com.example.app", 1);
  std::vector<LooperStatsRow> rows(3);
  rows[0].run_id = id;
  rows[0].work_source_uid = "-1";
  rows[0].thread_name = "PowerManagerService";
  rows[0].message_count = 559;
  rows[1].run_id = id;
  rows[1].work_source_uid = "com.example.app/u0a139";
  rows[1].package = "com.example.app";
  rows[1].uid = 10139;
  rows[1].is_app = true;
  rows[1].handler_class = "android.os.Handler";
  rows[1].is_interactive = true;
  rows[1].recorded_message_count = 1;
  rows[1].total_latency_micros = 31576;
  rows[1].max_latency_micros = 31576;
  rows[1].total_cpu_micros = 9055;
  rows[1].max_cpu_micros = 9054;
  rows[1].recorded_delay_message_count = 1;
  rows[1].total_delay_millis = 2;
  rows[1].max_delay_millis = 3;
  rows[1].exception_count = 0;
  rows[1].extra_json = R"({"new_column":"y"})";
  rows[2].run_id = id;
  rows[2].work_source_uid = "com.android.systemui/u0a140";
  rows[2].is_interactive = false;
  rows[2].message_name = "0x1";
  ASSERT_TRUE(store_->AddLooperStats(rows).ok());
  ASSERT_TRUE(store_->Flush().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListLooperStats(id); });
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[0].work_source_uid, "-1");
  EXPECT_FALSE((*got)[0].package.has_value());
  EXPECT_FALSE((*got)[0].uid.has_value());
  EXPECT_FALSE((*got)[0].is_app);
  EXPECT_FALSE((*got)[0].is_interactive.has_value());
  EXPECT_EQ((*got)[0].thread_name, "PowerManagerService");
  EXPECT_EQ((*got)[0].message_count, 559);
  EXPECT_FALSE((*got)[0].extra_json.has_value());
  const LooperStatsRow& app = (*got)[1];
  EXPECT_EQ(app.run_id, id);
  EXPECT_EQ(app.package, "com.example.app");
  EXPECT_EQ(app.uid, 10139);
  EXPECT_TRUE(app.is_app);
  EXPECT_EQ(app.handler_class, "android.os.Handler");
  EXPECT_EQ(app.is_interactive, true);
  EXPECT_EQ(app.recorded_message_count, 1);
  EXPECT_EQ(app.total_latency_micros, 31576);
  EXPECT_EQ(app.max_latency_micros, 31576);
  EXPECT_EQ(app.total_cpu_micros, 9055);
  EXPECT_EQ(app.max_cpu_micros, 9054);
  EXPECT_EQ(app.recorded_delay_message_count, 1);
  EXPECT_EQ(app.total_delay_millis, 2);
  EXPECT_EQ(app.max_delay_millis, 3);
  EXPECT_EQ(app.exception_count, 0);
  EXPECT_EQ(app.extra_json, R"({"new_column":"y"})");
  EXPECT_FALSE((*got)[2].is_app);
  EXPECT_EQ((*got)[2].is_interactive, false);
  EXPECT_EQ((*got)[2].message_name, "0x1");
}

TEST_F(StoreTest, ProcSamplesInTimeOrder) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::vector<ProcSample> samples;
  for (int i = 2; i >= 0; --i) {
    ProcSample p;
    p.run_id = id;
    p.t_ms = i * 100;
    p.pid = 4242;
    p.utime = 10 * i;
    p.stime = 3 * i;
    if (i > 0) p.cpu_pct = 12.5 * i;
    p.rss_kb = 100000 + i;
    p.num_threads = 20 + i;
    samples.push_back(p);
  }
  ASSERT_TRUE(store_->AddProcSamples(samples).ok());
  ASSERT_TRUE(store_->Flush().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListProcSamples(id); });
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[0].t_ms, 0);
  EXPECT_FALSE((*got)[0].cpu_pct.has_value());
  EXPECT_EQ((*got)[2].t_ms, 200);
  EXPECT_DOUBLE_EQ(*(*got)[2].cpu_pct, 25.0);
  EXPECT_EQ((*got)[2].num_threads, 22);
}

TEST_F(StoreTest, DevicesKeepFirstSeenAndRecordStateChanges) {
  Device d;
  d.serial = "R5CT1234";
  d.model = "SM-S911B";
  d.manufacturer = "samsung";
  d.sdk = 34;
  d.release = "14";
  d.abi = "arm64-v8a";
  d.state = "device";
  d.first_seen = 100;
  d.last_seen = 100;
  ASSERT_TRUE(store_->UpsertDevice(d).ok());
  d.first_seen = 500;
  d.last_seen = 500;
  d.release = "14.1";
  ASSERT_TRUE(store_->UpsertDevice(d).ok());
  ASSERT_TRUE(store_->RecordDeviceState({"R5CT1234", "offline", 600}).ok());
  std::promise<Status> unknown;
  ASSERT_TRUE(store_->RecordDeviceState({"nope", "offline", 600},
                                        [&](const Status& s) { unknown.set_value(s); }).ok());
  auto unknown_status = unknown.get_future().get();
  ASSERT_FALSE(unknown_status.ok());
  EXPECT_EQ(unknown_status.error().code, StoreErrorCode::kNotFound);

  auto got = store_->Read([](Reader& r) { return r.GetDevice("R5CT1234"); });
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->first_seen, 100);
  EXPECT_EQ(got->last_seen, 600);
  EXPECT_EQ(got->state, "offline");
  EXPECT_EQ(got->release, "14.1");
  auto changes = store_->Read([](Reader& r) { return r.ListDeviceStateChanges("R5CT1234"); });
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].state, "offline");
  EXPECT_EQ(store_->Read([](Reader& r) { return r.ListDeviceStateChanges("nope"); })->size(), 0u)
      << "the failed task was undone alone";
  EXPECT_EQ(store_->Read([](Reader& r) { return r.ListDevices(); })->size(), 1u);
  EXPECT_EQ(store_->Read([](Reader& r) { return r.GetDevice("nope"); }).error().code,
            StoreErrorCode::kNotFound);
}

TEST_F(StoreTest, SchedulesAreDurable) {
  NewSchedule s;
  s.cron = "0 2 * * *";
  s.timezone = "Europe/Berlin";
  s.run_spec_json = R"({"serial":"s1","package":"com.a","mode":"cold","iterations":10})";
  s.created_at = 10;
  auto id = store_->CreateSchedule(s);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store_->MarkScheduleFired(*id, 7200000).ok());
  // Recorded once: the same firing again (another daemon of the lab) or an older one is refused.
  EXPECT_EQ(store_->MarkScheduleFired(*id, 7200000).error().code, StoreErrorCode::kConstraint);
  EXPECT_EQ(store_->MarkScheduleFired(*id, 3600000).error().code, StoreErrorCode::kConstraint);
  ASSERT_TRUE(store_->MarkScheduleFired(*id, 7200000 + 86400000).ok());
  EXPECT_EQ(store_->MarkScheduleFired(*id, 7200000).error().code, StoreErrorCode::kConstraint);
  ASSERT_TRUE(store_->SetScheduleEnabled(*id, false).ok());
  auto got = store_->Read([&](Reader& r) { return r.GetSchedule(*id); });
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->timezone, "Europe/Berlin");
  EXPECT_EQ(got->last_fired_at, 7200000 + 86400000);
  EXPECT_FALSE(got->enabled);
  ASSERT_TRUE(store_->DeleteSchedule(*id).ok());
  EXPECT_EQ(store_->DeleteSchedule(*id).error().code, StoreErrorCode::kNotFound);
  EXPECT_TRUE(store_->Read([](Reader& r) { return r.ListSchedules(); })->empty());
}

// Builds (schema 0005): content-addressed, so the same sha256 is the same build; newest first.
TEST_F(StoreTest, BuildsAreKeptOncePerHash) {
  NewBuild b;
  b.sha256 = std::string(64, 'a');
  b.package = "com.example.app";
  b.version_code = (int64_t{1} << 32) | 42;  // versionCodeMajor 1
  b.version_name = "1.2.3";
  b.min_sdk = 24;
  b.size = 714;
  b.created_at = 100;
  auto first = store_->AddBuild(b);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->created);
  NewBuild again = b;
  again.created_at = 200;
  again.file_name = "other.apk";
  auto second = store_->AddBuild(again);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->created);
  EXPECT_EQ(second->id, first->id);
  NewBuild other = b;
  other.sha256 = std::string(64, 'b');
  other.created_at = 300;
  auto third = store_->AddBuild(other);
  ASSERT_TRUE(third.ok());
  EXPECT_NE(third->id, first->id);

  auto got = store_->Read([&](Reader& r) { return r.GetBuild(first->id); });
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->version_code, (int64_t{1} << 32) | 42);
  EXPECT_EQ(got->created_at, 100);  // the first upload's
  EXPECT_EQ(got->file_name, std::nullopt);
  EXPECT_EQ(got->target_sdk, std::nullopt);
  auto by_hash = store_->Read([&](Reader& r) { return r.GetBuildBySha256(std::string(64, 'b')); });
  ASSERT_TRUE(by_hash.ok());
  EXPECT_EQ(by_hash->id, third->id);
  auto all = store_->Read([](Reader& r) { return r.ListBuilds(); });
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, third->id);
  auto old = store_->Read([](Reader& r) { return r.ListBuildsCreatedBefore(300); });
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ((*old)[0].id, first->id);
  ASSERT_TRUE(store_->DeleteBuild(first->id).ok());
  EXPECT_EQ(store_->DeleteBuild(first->id).error().code, StoreErrorCode::kNotFound);
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.GetBuild(first->id); }).error().code,
            StoreErrorCode::kNotFound);
}

// schema/0007_build_files.sql: a build's files, in order, kept with it and gone with it; a file
// shared by two builds is counted by both.
TEST_F(StoreTest, ABuildsFilesAreKeptInOrderAndDeletedWithIt) {
  auto file = [](std::string name, std::string kind, std::optional<std::string> split, char c,
                 int64_t size) {
    return BuildFile{std::move(name), std::move(kind), std::move(split), std::string(64, c), size};
  };
  NewBuild b;
  b.sha256 = std::string(64, 's');
  b.package = "com.example.app";
  b.version_code = 42;
  b.size = 60;
  b.created_at = 1;
  b.files = {file("app.apk", "base", std::nullopt, 'a', 10),
             file("cfg.apk", "split", "config.arm64_v8a", 'c', 20), file("app.dm", "dm", std::nullopt, 'd', 30)};
  auto added = store_->AddBuild(b);
  ASSERT_TRUE(added.ok()) << added.error().message;
  NewBuild alone = b;
  alone.sha256 = std::string(64, 'a');
  alone.files = {b.files[0]};
  auto added_alone = store_->AddBuild(alone);
  ASSERT_TRUE(added_alone.ok());
  auto got = store_->Read([&](Reader& r) { return r.GetBuild(added->id); });
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->files.size(), 3u);
  EXPECT_EQ(got->files[1].name, "cfg.apk");
  EXPECT_EQ(got->files[1].kind, "split");
  EXPECT_EQ(got->files[1].split, std::optional<std::string>("config.arm64_v8a"));
  EXPECT_EQ(got->files[2].kind, "dm");
  EXPECT_EQ(got->files[2].size, 30);
  auto listed = store_->Read([](Reader& r) { return r.ListBuilds(); });
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].files.size() + (*listed)[1].files.size(), 4u);
  const std::string shared(64, 'a');
  EXPECT_EQ(*store_->Read([&](Reader& r) { return r.CountBuildsWithFile(shared); }), 2);
  ASSERT_TRUE(store_->DeleteBuild(added->id).ok());
  EXPECT_EQ(*store_->Read([&](Reader& r) { return r.CountBuildsWithFile(shared); }), 1);
  const std::string dm(64, 'd');
  EXPECT_EQ(*store_->Read([&](Reader& r) { return r.CountBuildsWithFile(dm); }), 0);
}

// Schema 0008: a build keeps who signed it (null: unsigned). What droidlab installed on a
// device: per package, the newest run there whose preflight recorded a build — other devices,
// other packages and runs with no build (or no preflight yet) left out.
TEST_F(StoreTest, BuildSignatureAndWhatEachDeviceHasInstalled) {
  NewBuild b;
  b.sha256 = std::string(64, 'c');
  b.package = "com.a";
  b.version_code = 42;
  b.size = 1;
  b.signature = "66ec38d";
  auto added = store_->AddBuild(b);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.GetBuild(added->id); })->signature, "66ec38d");

  auto run_with = [&](const std::string& serial, const std::string& package, int64_t at,
                      const std::string& preflight) {
    const int64_t id = CreateRun(serial, package, at);
    RunStatusUpdate running;
    running.run_id = id;
    running.started_at = at;
    if (!preflight.empty()) running.preflight_json = preflight;
    EXPECT_TRUE(store_->UpdateRunStatus(running).ok());
    return id;
  };
  const std::string sha = std::string(64, 'c');
  auto build_json = [&](int64_t build, const std::string& method) {
    return R"({"build":{"id":)" + std::to_string(build) + R"(,"sha256":")" + sha +
           R"(","version_code":42,"install_method":")" + method + R"(","bytes":0}})";
  };
  run_with("s1", "com.a", 10, build_json(1, "abb_exec"));
  const int64_t last_a = run_with("s1", "com.a", 20, build_json(2, "already-installed"));
  run_with("s1", "com.a", 30, R"({"battery":{"level":90}})");  // a run with no build
  run_with("s1", "com.a", 40, "");                              // not started
  const int64_t b_run = run_with("s1", "com.b", 15, build_json(5, "exec:cmd"));
  run_with("s2", "com.a", 50, build_json(9, "abb_exec"));
  if (testutil::kTestStoreIsPostgres) {
    // PostgreSQL's json column refuses what is not JSON; SQLite keeps it and the query skips it.
    RunStatusUpdate bad;
    bad.run_id = CreateRun("s1", "com.c", 60);
    bad.preflight_json = "not json";
    EXPECT_EQ(store_->UpdateRunStatus(bad).error().code, StoreErrorCode::kInvalidArgument);
  } else {
    run_with("s1", "com.c", 60, "not json");
  }

  auto installed = store_->Read([](Reader& r) { return r.InstalledBuildsOnDevice("s1"); });
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  ASSERT_EQ(installed->size(), 2u);
  EXPECT_EQ((*installed)[0].package, "com.a");
  EXPECT_EQ((*installed)[0].build_id, 2);
  EXPECT_EQ((*installed)[0].run_id, last_a);
  EXPECT_EQ((*installed)[0].version_code, 42);
  EXPECT_EQ((*installed)[0].sha256, sha);
  EXPECT_EQ((*installed)[0].install_method, "already-installed");
  EXPECT_EQ((*installed)[0].at, 20);
  EXPECT_EQ((*installed)[1].package, "com.b");
  EXPECT_EQ((*installed)[1].run_id, b_run);
  EXPECT_TRUE(store_->Read([](Reader& r) { return r.InstalledBuildsOnDevice("s3"); })->empty());
}

TEST_F(StoreTest, RunsNewestFirstWithFiltersAndCursor) {
  // 30 runs over two devices and two packages; created_at ties on purpose.
  std::vector<int64_t> ids;
  for (int i = 0; i < 30; ++i) {
    ids.push_back(CreateRun(i % 2 == 0 ? "s1" : "s2", i % 3 == 0 ? "com.a" : "com.b", 1000 + i / 2));
  }
  Finish(ids[29], RunStatus::kSucceeded);
  Finish(ids[27], RunStatus::kSucceeded);

  std::vector<int64_t> seen;
  RunQuery query;
  query.limit = 7;
  for (int page = 0; page < 10; ++page) {
    auto got = store_->Read([&](Reader& r) { return r.ListRuns(query); });
    ASSERT_TRUE(got.ok()) << got.error().message;
    for (const store::Run& run : got->runs) seen.push_back(run.id);
    if (got->next_cursor.empty()) break;
    query.cursor = got->next_cursor;
  }
  std::vector<int64_t> expected(ids.rbegin(), ids.rend());
  EXPECT_EQ(seen, expected) << "every run once, newest first, ties by id";

  RunQuery by_serial;
  by_serial.serial = "s2";
  by_serial.package = "com.b";
  auto s2 = store_->Read([&](Reader& r) { return r.ListRuns(by_serial); });
  ASSERT_TRUE(s2.ok());
  for (const store::Run& run : s2->runs) {
    EXPECT_EQ(run.serial, "s2");
    EXPECT_EQ(run.package, "com.b");
  }
  EXPECT_EQ(s2->runs.size(), 10u);

  RunQuery succeeded;
  succeeded.status = RunStatus::kSucceeded;
  auto done = store_->Read([&](Reader& r) { return r.ListRuns(succeeded); });
  ASSERT_EQ(done->runs.size(), 2u);
  EXPECT_EQ(done->runs[0].id, ids[29]);

  RunQuery since;
  since.package = "com.a";
  since.since = 1010;
  auto recent = store_->Read([&](Reader& r) { return r.ListRuns(since); });
  for (const store::Run& run : recent->runs) EXPECT_GE(run.created_at, 1010);
  EXPECT_EQ(recent->runs.size(), 3u);  // com.a is every third run; created_at >= 1010: 21, 24, 27

  RunQuery bad;
  bad.cursor = "not-a-cursor";
  auto refused = store_->Read([&](Reader& r) { return r.ListRuns(bad); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kInvalidArgument);
}

TEST_F(StoreTest, PreviousSuccessfulRunIsTheBaseline) {
  const int64_t old_ok = CreateRun("s1", "com.a", 100);
  Finish(old_ok, RunStatus::kSucceeded);
  const int64_t other_model = CreateRun("s9", "com.a", 150, "cold", "Pixel 8");
  Finish(other_model, RunStatus::kSucceeded);
  const int64_t warm = CreateRun("s1", "com.a", 160, "warm");
  Finish(warm, RunStatus::kSucceeded);
  const int64_t failed = CreateRun("s2", "com.a", 170);
  Finish(failed, RunStatus::kFailed);
  const int64_t now = CreateRun("s1", "com.a", 200);
  auto base = store_->Read([&](Reader& r) {
    return r.PreviousSuccessfulRun("com.a", std::string("Pixel 7"), "cold", 200);
  });
  ASSERT_TRUE(base.ok());
  ASSERT_TRUE(base->has_value());
  EXPECT_EQ((*base)->id, old_ok);
  auto none = store_->Read([&](Reader& r) {
    return r.PreviousSuccessfulRun("com.a", std::string("Pixel 7"), "hot", 200);
  });
  EXPECT_FALSE(none->has_value());
  (void)now;
}

// A calibration run (an A/A of one build, often not tonight's) is no baseline of the next run.
TEST_F(StoreTest, ACalibrationRunIsNoPreviousRun) {
  const int64_t plain = CreateRun("s1", "com.a", 100);
  Finish(plain, RunStatus::kSucceeded);
  NewRun aa;
  aa.spec_json = R"({"iterations":2,"build":8,"baseline_build":8,"block":2,"kind":"calibration"})";
  aa.serial = "s1";
  aa.device_model = "Pixel 7";
  aa.package = "com.a";
  aa.mode = "cold";
  aa.iterations = 2;
  aa.created_at = 150;
  auto calibration = store_->CreateRun(aa);
  ASSERT_TRUE(calibration.ok());
  Finish(*calibration, RunStatus::kSucceeded);
  auto base = store_->Read([&](Reader& r) {
    return r.PreviousSuccessfulRun("com.a", std::string("Pixel 7"), "cold", 200);
  });
  ASSERT_TRUE(base.ok() && base->has_value());
  EXPECT_EQ((*base)->id, plain);
}

TEST_F(StoreTest, LaunchHistoryOfAPackage) {
  const int64_t day = 86400000;
  const int64_t t0 = 100 * day;
  const int64_t old_run = CreateRun("s1", "com.a", t0 - 40 * day);
  const int64_t r1 = CreateRun("s1", "com.a", t0 - 2 * day);
  const int64_t r2 = CreateRun("s2", "com.a", t0 - day, "cold", "Pixel 8");
  const int64_t other = CreateRun("s1", "com.b", t0 - day);
  for (int64_t id : {old_run, r1, r2, other}) {
    Finish(id, RunStatus::kSucceeded);
    std::vector<Launch> ls = {MakeLaunch(id, 0, 500), MakeLaunch(id, 1, 510),
                              MakeLaunch(id, 2, 4000)};
    ls[1].valid = id != r1;
    ls[2].warmup = true;  // never in the history (0004_launch_conditions)
    ASSERT_TRUE(store_->AddLaunches(ls).ok());
  }
  ASSERT_TRUE(store_->Flush().ok());
  LaunchHistoryQuery q;
  q.package = "com.a";
  q.since = t0 - 30 * day;
  auto all = store_->Read([&](Reader& r) { return r.LaunchHistory(q); });
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);  // r1 and r2; old_run is too old, other another package
  EXPECT_EQ((*all)[0].run_id, r1);
  EXPECT_EQ((*all)[0].launches, 1);  // its second launch is invalid
  EXPECT_EQ((*all)[0].displayed_median_ms, 500.0);
  EXPECT_EQ((*all)[1].run_id, r2);
  EXPECT_EQ((*all)[1].device_model, "Pixel 8");
  EXPECT_EQ((*all)[1].launches, 2);
  EXPECT_EQ((*all)[1].displayed_median_ms, 505.0);
  EXPECT_EQ((*all)[1].displayed_mean_ms, 505.0);
  EXPECT_EQ((*all)[1].displayed_min_ms, 500);
  EXPECT_EQ((*all)[1].displayed_max_ms, 510);
  EXPECT_EQ((*all)[1].total_time_median_ms, 510.0);
  EXPECT_FALSE((*all)[1].fully_drawn_median_ms.has_value());
  q.device_model = "Pixel 7";
  auto p7 = store_->Read([&](Reader& r) { return r.LaunchHistory(q); });
  ASSERT_EQ(p7->size(), 1u);
  EXPECT_EQ((*p7)[0].run_id, r1);
}

// A side-by-side run (issue 14 §4) measures its baseline build too: the history of the package
// is its build's launches only (schema/0006_launch_builds.sql), not the release build's.
TEST_F(StoreTest, LaunchHistoryOfASideBySideRunIsItsBuildsLaunches) {
  NewRun run;
  run.spec_json = R"({"iterations":2,"build":8,"baseline_build":7,"block":1})";
  run.serial = "s1";
  run.device_model = "Pixel 7";
  run.package = "com.a";
  run.mode = "cold";
  run.iterations = 2;
  run.created_at = 1000;
  auto id = store_->CreateRun(run);
  ASSERT_TRUE(id.ok()) << id.error().message;
  Finish(*id, RunStatus::kSucceeded);
  std::vector<Launch> ls = {MakeLaunch(*id, 1, 500), MakeLaunch(*id, 2, 700),
                            MakeLaunch(*id, 3, 710), MakeLaunch(*id, 4, 510)};
  for (Launch& l : ls) l.build_id = l.displayed_ms < 600 ? 7 : 8;
  ASSERT_TRUE(store_->AddLaunches(ls).ok());
  ASSERT_TRUE(store_->Flush().ok());
  LaunchHistoryQuery q;
  q.package = "com.a";
  auto history = store_->Read([&](Reader& r) { return r.LaunchHistory(q); });
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].launches, 2);
  EXPECT_EQ((*history)[0].displayed_median_ms, 705.0);
  auto back = store_->Read([&](Reader& r) { return r.ListLaunches(*id); });
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].build_id, 7);
  EXPECT_EQ((*back)[1].build_id, 8);
}

// A calibration run (issue 15 §3) measures one build against itself, often an older build than
// the nightly's: it is the noise floor's, not a point of the package's history.
TEST_F(StoreTest, LaunchHistoryLeavesOutCalibrationRuns) {
  NewRun run;
  run.serial = "s1";
  run.device_model = "Pixel 7";
  run.package = "com.a";
  run.mode = "cold";
  run.iterations = 2;
  std::vector<int64_t> ids;
  for (const char* spec : {R"({"iterations":2,"build":8})",
                           R"({"iterations":2,"build":8,"baseline_build":8,"block":2,"kind":"calibration"})"}) {
    run.spec_json = spec;
    run.created_at += 1000;
    auto id = store_->CreateRun(run);
    ASSERT_TRUE(id.ok()) << id.error().message;
    Finish(*id, RunStatus::kSucceeded);
    std::vector<Launch> ls = {MakeLaunch(*id, 1, 500), MakeLaunch(*id, 2, 520),
                              MakeLaunch(*id, 3, 510), MakeLaunch(*id, 4, 530)};
    for (Launch& l : ls) l.build_id = 8;
    ASSERT_TRUE(store_->AddLaunches(ls).ok());
    ids.push_back(*id);
  }
  ASSERT_TRUE(store_->Flush().ok());
  LaunchHistoryQuery q;
  q.package = "com.a";
  auto history = store_->Read([&](Reader& r) { return r.LaunchHistory(q); });
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, ids[0]);
}

TEST_F(StoreTest, QueriesUseTheirIndexes) {
  DROIDLAB_SQLITE_ONLY("SQLite's query plans");
  auto db = OpenReaderDatabase(store_->path(), 1000);
  ASSERT_TRUE(db.ok());
  auto plan = [&](const char* sql) {
    auto st = db->Prepare(std::string("EXPLAIN QUERY PLAN ") + sql);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    std::string text;
    while (st->StepOnce() == Statement::Step::kRow) text += st->ColumnString(3) + "; ";
    return text;
  };
  EXPECT_NE(plan("SELECT * FROM launches WHERE run_id = 1 ORDER BY iteration").find("PRIMARY KEY"),
            std::string::npos);
  const std::string by_serial = plan(
      "SELECT id FROM runs WHERE serial = 'x' AND created_at >= 0 AND created_at <= 9 AND"
      " (created_at < 9 OR id < 9) ORDER BY created_at DESC, id DESC LIMIT 51");
  EXPECT_NE(by_serial.find("runs_by_serial"), std::string::npos) << by_serial;
  EXPECT_EQ(by_serial.find("TEMP B-TREE"), std::string::npos) << by_serial;
  const std::string all = plan(
      "SELECT id FROM runs WHERE created_at >= 0 AND created_at <= 9 AND"
      " (created_at < 9 OR id < 9) ORDER BY created_at DESC, id DESC LIMIT 51");
  EXPECT_EQ(all.find("TEMP B-TREE"), std::string::npos) << all;
  EXPECT_NE(plan("SELECT * FROM looper_stats WHERE run_id = 1 ORDER BY rowid")
                .find("looper_stats_by_run"),
            std::string::npos);
}

TEST_F(StoreTest, WritesBatchByCount) {
  StoreOptions options;
  options.batch_max_records = 100;
  options.batch_max_delay = std::chrono::milliseconds(10000);
  Open(options);
  const int64_t id = CreateRun("s1", "com.a", 1);
  const auto before = store_->stats().batches_committed;
  std::promise<void> all_done;
  std::atomic<int> pending{250};
  for (int i = 0; i < 250; ++i) {
    ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, i, 500)}, [&](const Status& s) {
      EXPECT_TRUE(s.ok());
      if (--pending == 0) all_done.set_value();
    }).ok());
  }
  ASSERT_TRUE(store_->Flush().ok());
  all_done.get_future().get();
  const auto batches = store_->stats().batches_committed - before;
  EXPECT_GE(batches, 3u);  // 100 + 100 + the rest with the flush
  EXPECT_LE(batches, 4u);
}

// A durable write is committed with synchronous=FULL in force (read inside the transaction,
// right before its COMMIT), even when it joins a batch begun for ordinary writes; the ordinary
// batches stay at NORMAL. (The level was once set inside the open transaction, which SQLite
// refuses: durable commits ran at NORMAL.)
TEST_F(StoreTest, DurableWritesCommitAtSynchronousFull) {
  DROIDLAB_SQLITE_ONLY("SQLite's PRAGMA synchronous");
  struct Commit {
    bool durable;
    int64_t synchronous;
  };
  std::mutex mu;
  std::vector<Commit> commits;
  StoreOptions options;
  options.batch_max_delay = std::chrono::milliseconds(10000);  // batches stay open
  options.before_commit = [&](WriteSession& session, bool durable) {
    Database& db = static_cast<SqliteWriteSession&>(session).database();
    auto level = db.QueryInt64("PRAGMA synchronous", "reading the synchronous level");
    std::lock_guard lock(mu);
    commits.push_back(Commit{durable, level.ok() ? *level : -1});
  };
  Open(options);
  const int64_t id = CreateRun("s1", "com.a", 1);                            // durable, alone
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 0, 500)}, nullptr).ok());  // opens a batch
  RunStatusUpdate running;  // durable, finds it open
  running.run_id = id;
  running.status = RunStatus::kRunning;
  ASSERT_TRUE(store_->UpdateRunStatus(running).ok());
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 1, 500)}, nullptr).ok());
  ASSERT_TRUE(store_->Flush().ok());  // durable too

  std::lock_guard lock(mu);
  int durable = 0;
  for (const Commit& c : commits) {
    if (c.durable) {
      ++durable;
      EXPECT_EQ(c.synchronous, 2) << "a durable commit ran at synchronous=" << c.synchronous;
    } else {
      EXPECT_EQ(c.synchronous, 1) << "an ordinary commit ran at synchronous=" << c.synchronous;
    }
  }
  EXPECT_EQ(durable, 3);
}

TEST_F(StoreTest, WritesCommitAfterTheDelayWithoutAFlush) {
  StoreOptions options;
  options.batch_max_delay = std::chrono::milliseconds(20);
  Open(options);
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<Status> committed;
  ASSERT_TRUE(store_->AddLaunches({MakeLaunch(id, 0, 1)},
                                  [&](const Status& s) { committed.set_value(s); }).ok());
  auto future = committed.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(future.get().ok());
}

TEST_F(StoreTest, AFullQueuePushesBack) {
  StoreOptions options;
  options.queue_capacity_records = 10;
  Open(options);
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<void> gate = HoldTheWriter(id);

  std::atomic<int> accepted{0};
  for (int i = 1; i <= 50; ++i) {
    store_->AddLaunchesAsync({MakeLaunch(id, i, 1)},
                             [&](const Status& s) {
                               EXPECT_TRUE(s.ok());
                               ++accepted;
                             },
                             nullptr);
  }
  EXPECT_EQ(accepted.load(), 10) << "ten fit; forty producers wait for room";
  EXPECT_EQ(store_->stats().queued_records, 10u);
  std::atomic<bool> blocking_push_returned{false};
  std::thread blocked([&] {
    EXPECT_TRUE(store_->AddLaunches({MakeLaunch(id, 100, 1)}).ok());
    blocking_push_returned = true;
  });
  EXPECT_FALSE(blocking_push_returned.load());

  gate.set_value();
  blocked.join();
  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_EQ(accepted.load(), 50);
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.ListLaunches(id); })->size(), 52u);
}

// Looper-stats dumps that wait in the queue while the writer is busy are written as one
// statement (joined_looper_stats.h; issue 17 §1: one COPY, not one a dump), each call still told
// its outcome, the rows in call order; a durable write between them is not jumped: dumps pushed
// after it join each other, not those before it.
TEST_F(StoreTest, QueuedLooperStatsDumpsAreJoinedIntoOneStatement) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<void> gate = HoldTheWriter(id);
  const uint64_t joined_before = store_->stats().writes_joined;

  auto dump = [&](int call) {
    std::vector<LooperStatsRow> rows(100);
    for (int i = 0; i < 100; ++i) {
      rows[i].run_id = id;
      rows[i].work_source_uid = "com.a/u0a123";
      rows[i].message_count = call * 1000 + i;
    }
    return rows;
  };
  std::atomic<int> told_ok{0};
  std::atomic<int> told{0};
  auto completion = [&](const Status& s) {
    if (s.ok()) ++told_ok;
    ++told;
  };
  for (int call = 0; call < 5; ++call) {
    store_->AddLooperStatsAsync(dump(call), nullptr, completion);
  }
  RunStatusUpdate running;  // durable: the writes after it must not join those before it
  running.run_id = id;
  running.status = RunStatus::kRunning;
  std::promise<Status> status_set;
  store_->UpdateRunStatusAsync(running, [&](const Status& s) { status_set.set_value(s); });
  for (int call = 5; call < 10; ++call) {
    store_->AddLooperStatsAsync(dump(call), nullptr, completion);
  }
  EXPECT_EQ(store_->stats().writes_joined - joined_before, 8u) << "four into each of two writes";

  gate.set_value();
  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_TRUE(status_set.get_future().get().ok());
  EXPECT_EQ(told.load(), 10);
  EXPECT_EQ(told_ok.load(), 10);
  auto got = store_->Read([&](Reader& r) { return r.ListLooperStats(id); });
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->size(), 1000u);
  for (size_t n = 0; n < got->size(); ++n) {
    ASSERT_EQ((*got)[n].message_count, static_cast<int64_t>(n / 100 * 1000 + n % 100)) << n;
  }
}

// A joined write whose rows PostgreSQL refuses (text that is not UTF-8: a phone prints its
// handler names as they are) fails only the call those rows came from; the calls joined with it
// are written again on their own and stored, as they would have been unjoined.
TEST_F(StoreTest, AJoinedWriteWithRefusedRowsFailsOnlyTheirCall) {
  if (!testutil::kTestStoreIsPostgres) {
    GTEST_SKIP() << "SQLite stores any bytes; PostgreSQL refuses text that is not UTF-8";
  }
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<void> gate = HoldTheWriter(id);
  const uint64_t joined_before = store_->stats().writes_joined;
  std::vector<std::promise<Status>> told(3);
  for (int call = 0; call < 3; ++call) {
    std::vector<LooperStatsRow> rows(10);
    for (int i = 0; i < 10; ++i) {
      rows[i].run_id = id;
      rows[i].work_source_uid = "com.a/u0a123";
      rows[i].message_count = call * 1000 + i;
      if (call == 1 && i == 4) rows[i].handler_class = std::string("com.a.H\xff\xfe");
    }
    store_->AddLooperStatsAsync(std::move(rows), nullptr,
                                [&told, call](const Status& s) { told[call].set_value(s); });
  }
  EXPECT_EQ(store_->stats().writes_joined - joined_before, 2u);
  gate.set_value();
  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_TRUE(told[0].get_future().get().ok());
  const Status refused = told[1].get_future().get();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kInvalidArgument) << refused.error().message;
  EXPECT_TRUE(told[2].get_future().get().ok());
  auto got = store_->Read([&](Reader& r) { return r.ListLooperStats(id); });
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->size(), 20u);
  EXPECT_EQ((*got)[0].message_count, 0);
  EXPECT_EQ((*got)[10].message_count, 2000);
}

TEST_F(StoreTest, DiskFullLosesTheBatchAndReadsGoOn) {
  DROIDLAB_SQLITE_ONLY("SQLite's max_page_count fills the disk");
  StoreOptions options;
  options.max_page_count = 40;  // a few pages beyond the empty schema
  Open(options);
  const int64_t id = CreateRun("s1", "com.a", 1);
  ASSERT_GT(id, 0);
  std::promise<Status> lost;
  std::vector<LooperStatsRow> rows(20000);
  for (auto& row : rows) {
    row.run_id = id;
    row.work_source_uid = "com.example.app/u0a123";
    row.thread_name = "android.ui";
    row.handler_class = "com.android.server.wm.WindowManagerService$H";
    row.message_count = 5;
  }
  ASSERT_TRUE(store_->AddLooperStats(std::move(rows),
                                     [&](const Status& s) { lost.set_value(s); }).ok());
  auto status = lost.get_future().get();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, StoreErrorCode::kDiskFull) << status.error().message;
  EXPECT_NE(status.error().message.find("free space"), std::string::npos);
  EXPECT_EQ(store_->stats().batches_lost, 1u);
  // Reads keep working, and see none of the lost batch.
  auto run = store_->Read([&](Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.ListLooperStats(id); })->size(), 0u);
  // A small write still fits: the writer goes on.
  EXPECT_TRUE(store_->UpdateRunStatus({id, RunStatus::kRunning, {}, 5, {}, {}, {}}).ok());
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.IntegrityCheck(); }).value(), "ok");
}

TEST_F(StoreTest, PostReadRunsOnAReaderThread) {
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::promise<std::pair<std::thread::id, int64_t>> result;
  store_->PostRead([&](Reader& r) {
    result.set_value({std::this_thread::get_id(), r.GetRun(id)->id});
  });
  auto [thread, got] = result.get_future().get();
  EXPECT_NE(thread, std::this_thread::get_id());
  EXPECT_EQ(got, id);
}

TEST_F(StoreTest, CompletionsOfAsyncCallsCarryResults) {
  NewRun run;
  run.spec_json = "{}";
  run.serial = "s";
  run.package = "com.a";
  run.mode = "hot";
  std::promise<StoreResult<int64_t>> created;
  store_->CreateRunAsync(run, [&](StoreResult<int64_t> id) { created.set_value(std::move(id)); });
  auto id = created.get_future().get();
  ASSERT_TRUE(id.ok());
  run.mode = "lukewarm";  // CHECK constraint
  std::promise<StoreResult<int64_t>> refused;
  store_->CreateRunAsync(run, [&](StoreResult<int64_t> r) { refused.set_value(std::move(r)); });
  auto bad = refused.get_future().get();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, StoreErrorCode::kConstraint);
}

TEST_F(StoreTest, RetentionByAgeAndCountInSmallSteps) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 60; ++i) {
    ids.push_back(CreateRun("s1", "com.a", 1000 + i));
    if (i != 3) Finish(ids.back(), RunStatus::kSucceeded);  // run 3 stays queued
    ASSERT_TRUE(store_->AddLaunches({MakeLaunch(ids.back(), 0, 1)}).ok());
    ProcSample p;
    p.run_id = ids.back();
    ASSERT_TRUE(store_->AddProcSamples({p}).ok());
  }
  RetentionPolicy by_age;
  by_age.max_age = std::chrono::milliseconds(30);
  by_age.now_ms = 1040;  // deletes created_at < 1010: runs 0..9 but not the queued one
  by_age.runs_per_step = 3;
  auto pruned = store_->Prune(by_age);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->runs_deleted, 9);
  EXPECT_GE(pruned->steps, 3);
  EXPECT_EQ(store_->Read([&](Reader& r) { return r.GetRun(ids[3]); })->status, RunStatus::kQueued);
  EXPECT_TRUE(store_->Read([&](Reader& r) { return r.ListLaunches(ids[0]); })->empty());
  EXPECT_TRUE(store_->Read([&](Reader& r) { return r.ListProcSamples(ids[0]); })->empty());

  RetentionPolicy by_count;
  by_count.max_runs = 20;
  auto counted = store_->Prune(by_count);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(counted->runs_deleted, 30);  // 51 left, 20 kept, the queued one never deleted
  RunQuery all;
  all.limit = 100;
  auto left = store_->Read([&](Reader& r) { return r.ListRuns(all); });
  EXPECT_EQ(left->runs.size(), 21u);
  EXPECT_EQ(left->runs.front().id, ids[59]);
}

// Issue 13 §7: a run id is never given twice. Retention that deletes the newest runs (all of
// them finished and old) must not let the next run take the id of one a script still holds.
TEST_F(StoreTest, RunIdsAreNeverReusedAfterPruning) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(CreateRun("s1", "com.a", 1000 + i));
    Finish(ids.back(), RunStatus::kSucceeded);
  }
  RetentionPolicy everything;
  everything.max_age = std::chrono::milliseconds(1);
  everything.now_ms = 5000;
  auto pruned = store_->Prune(everything);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  ASSERT_EQ(pruned->runs_deleted, 3);
  const int64_t next = CreateRun("s1", "com.a", 6000);
  EXPECT_GT(next, ids.back());
  // And across a restart: the high-water mark is in the file, not in memory.
  Open();
  store_->Prune(everything);
  EXPECT_GT(CreateRun("s1", "com.a", 7000), next);
}

// Issue 13 §7: what retention keeps by age is kept by age everywhere — a device's state history
// (its last change always stays: it is the device's state) and restores already paid (owed ones
// never go: they are how a phone gets its setting back).
TEST_F(StoreTest, RetentionByAgePrunesDeviceHistoryAndPaidRestores) {
  for (const char* serial : {"A", "B"}) {
    Device device;
    device.serial = serial;
    device.state = "device";
    device.last_seen = 100;
    ASSERT_TRUE(store_->UpsertDevice(device).ok());
    for (int64_t at : {100, 200, 300}) {
      ASSERT_TRUE(store_->RecordDeviceState({serial, at == 200 ? "offline" : "device", at}).ok());
    }
  }
  ASSERT_TRUE(store_->RecordDeviceState({"B", "unauthorized", 9000}).ok());
  auto restore = [&](int64_t created_at, std::optional<int64_t> paid_at) {
    DeviceRestore r;
    r.serial = "A";
    r.kind = "global_setting";
    r.name = "looper_stats";
    r.created_at = created_at;
    auto id = store_->RecordDeviceRestore(r);
    EXPECT_TRUE(id.ok());
    if (paid_at) {
      EXPECT_TRUE(store_->MarkDeviceRestorePaid(*id, *paid_at).ok());
    }
  };
  restore(100, 150);              // paid long ago: pruned
  restore(120, std::nullopt);     // owed, however old: kept
  restore(8000, 8500);            // paid recently: kept
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(1000);
  policy.now_ms = 9000;  // before 8000 is old
  auto pruned = store_->Prune(policy);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(pruned->history_rows_deleted, 3 + 2 + 1);  // A: 2 of 3 (its last kept); B: 3; 1 paid

  auto states_a = store_->Read([](Reader& r) { return r.ListDeviceStateChanges("A"); });
  ASSERT_TRUE(states_a.ok());
  ASSERT_EQ(states_a->size(), 1u);
  EXPECT_EQ(states_a->back().changed_at, 300);
  auto states_b = store_->Read([](Reader& r) { return r.ListDeviceStateChanges("B"); });
  ASSERT_EQ(states_b->size(), 1u);
  EXPECT_EQ(states_b->back().state, "unauthorized");
  auto owed = store_->Read([](Reader& r) { return r.ListOwedRestores("A"); });
  ASSERT_EQ(owed->size(), 1u);
  EXPECT_EQ(owed->front().created_at, 120);
  ASSERT_TRUE(store_->Flush().ok());
  if (testutil::kTestStoreIsPostgres) return;  // the rows counted in the file itself
  auto db = Database::Open(dir_.File("droidlab.db"), Database::Mode::kReadOnly);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->QueryInt64("SELECT count(*) FROM device_restores", "counting").value(), 2);
}

TEST_F(StoreTest, BackupWhileTheWriterWrites) {
  DROIDLAB_SQLITE_ONLY("SQLite's online backup (PostgreSQL: pg_dump)");
  const int64_t id = CreateRun("s1", "com.a", 1);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      std::vector<LooperStatsRow> rows(200);
      for (auto& row : rows) {
        row.run_id = id;
        row.work_source_uid = "-1";
      }
      ASSERT_TRUE(store_->AddLooperStats(std::move(rows)).ok());
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  BackupOptions options;
  options.pages_per_step = 16;
  const std::string backup = dir_.File("backup.db");
  auto status = store_->Backup(backup, options);
  stop = true;
  writer.join();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_FALSE(std::filesystem::exists(backup + ".partial"));
  StoreOptions copy;
  copy.path = backup;
  auto restored = Store::Open(copy);
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_EQ((*restored)->Read([](Reader& r) { return r.IntegrityCheck(); }).value(), "ok");
  auto run = (*restored)->Read([&](Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(run.ok());
  const size_t rows = (*restored)->Read([&](Reader& r) { return r.ListLooperStats(id); })->size();
  EXPECT_EQ(rows % 200, 0u) << "one snapshot: whole batches only";
  EXPECT_EQ(store_->Backup(store_->path()).error().code, StoreErrorCode::kInvalidArgument);
}

// What undoes a change to a device (schema/0002): recorded durably, listed per device oldest
// first while owed, gone from the list once paid — and still there after a reopen (a daemon that
// died mid-run leaves the next one what it owes).
TEST_F(StoreTest, DeviceRestoresAreOwedUntilPaidAndSurviveAReopen) {
  DeviceRestore setting;
  setting.serial = "emulator-5554";
  setting.kind = "global_setting";
  setting.name = "looper_stats";
  setting.previous = "sampling_interval=7";
  setting.run_id = 12;
  setting.created_at = 1000;
  DeviceRestore battery;
  battery.serial = "emulator-5554";
  battery.kind = "battery_reset";
  battery.created_at = 1001;
  DeviceRestore deleted;  // no previous value: the setting is deleted
  deleted.serial = "R58M12345";
  deleted.kind = "global_setting";
  deleted.name = "looper_stats";
  deleted.created_at = 1002;
  auto s1 = store_->RecordDeviceRestore(setting);
  auto b1 = store_->RecordDeviceRestore(battery);
  auto d1 = store_->RecordDeviceRestore(deleted);
  ASSERT_TRUE(s1.ok() && b1.ok() && d1.ok());
  EXPECT_LT(*s1, *b1);

  // Reopened as after a kill -9: nothing was flushed by hand, the records are there.
  Open();
  auto owed = store_->Read([](Reader& r) { return r.ListOwedRestores("emulator-5554"); });
  ASSERT_TRUE(owed.ok()) << owed.error().message;
  ASSERT_EQ(owed->size(), 2u);
  EXPECT_EQ((*owed)[0].id, *s1);
  EXPECT_EQ((*owed)[0].kind, "global_setting");
  EXPECT_EQ((*owed)[0].name, "looper_stats");
  EXPECT_EQ((*owed)[0].previous, "sampling_interval=7");
  EXPECT_EQ((*owed)[0].run_id, 12);
  EXPECT_EQ((*owed)[0].created_at, 1000);
  EXPECT_FALSE((*owed)[0].paid_at);
  EXPECT_EQ((*owed)[1].kind, "battery_reset");
  EXPECT_EQ((*owed)[1].name, "");
  EXPECT_FALSE((*owed)[1].previous);
  EXPECT_FALSE((*owed)[1].run_id);
  auto other = store_->Read([](Reader& r) { return r.ListOwedRestores("R58M12345"); });
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), 1u);
  EXPECT_FALSE((*other)[0].previous);

  ASSERT_TRUE(store_->MarkDeviceRestorePaid(*b1, 2000).ok());
  // Paid once: a second payment (or an unknown id) is kNotFound.
  EXPECT_EQ(store_->MarkDeviceRestorePaid(*b1, 2001).error().code, StoreErrorCode::kNotFound);
  EXPECT_EQ(store_->MarkDeviceRestorePaid(999, 2001).error().code, StoreErrorCode::kNotFound);
  Open();
  owed = store_->Read([](Reader& r) { return r.ListOwedRestores("emulator-5554"); });
  ASSERT_TRUE(owed.ok());
  ASSERT_EQ(owed->size(), 1u);
  EXPECT_EQ((*owed)[0].id, *s1);
  ASSERT_TRUE(store_->MarkDeviceRestorePaid(*s1, 2002).ok());
  owed = store_->Read([](Reader& r) { return r.ListOwedRestores("emulator-5554"); });
  ASSERT_TRUE(owed.ok());
  EXPECT_TRUE(owed->empty());
}

}  // namespace
}  // namespace droidlab::store
