// The migrations runner: fresh databases, upgrades from every earlier version, a failing
// migration that leaves the version where it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schema/migrations.h"
#include "store/open.h"
#include "store/store.h"
#include "tests/common/temp_dir.h"

namespace droidlab::store {
namespace {

using testutil::TempDir;

int64_t Pragma(Database& db, const char* sql) {
  auto value = db.QueryInt64(sql, sql);
  EXPECT_TRUE(value.ok()) << value.error().message;
  return value.ok() ? *value : -1;
}

int64_t CountTables(Database& db) {
  return Pragma(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
}

TEST(MigrateTest, EmbeddedMigrationsAreNumberedFromOne) {
  const auto all = schema::Migrations();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].version, static_cast<int>(i) + 1);
    EXPECT_FALSE(all[i].sql.empty());
  }
  EXPECT_EQ(all[0].name, "0001_init");
  EXPECT_EQ(schema::CurrentVersion(), static_cast<int>(all.size()));
}

TEST(MigrateTest, FreshDatabaseGetsEveryMigrationAndOurApplicationId) {
  TempDir dir;
  auto db = OpenWriterDatabase(dir.File("fresh.db"), {});
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(Pragma(*db, "PRAGMA user_version"), schema::CurrentVersion());
  EXPECT_EQ(Pragma(*db, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(CountTables(*db), 24);  // devices, device_state_changes, schedules, runs, launches,
                                    // looper_stats, proc_samples (0001); device_restores (0002);
                                    // id_high_water (0003); builds (0005); build_files (0007);
                                    // run_summaries (0009); alerts, alert_deliveries,
                                    // alert_delivery_attempts (0010);
                                    // iteration_frames (0011); iteration_faults (0012);
                                    // iteration_memory (0013); hosts, device_labels
                                    // (0016); audit_log (0017); run_pool_labels (0018);
                                    // device_health, device_events (0019)
}

// 0007 on a database with builds: each becomes a build of one file, its APK.
TEST(MigrateTest, BuildsKeptBeforeSplitsAreBuildsOfOneFile) {
  TempDir dir;
  const std::string path = dir.File("builds.db");
  const auto all = schema::Migrations();
  {
    auto old = OpenWriterDatabase(path, {}, all.subspan(0, 5));
    ASSERT_TRUE(old.ok()) << old.error().message;
    ASSERT_TRUE(old->Execute("INSERT INTO builds (id, sha256, package, version_code, size,"
                             " file_name, created_at) VALUES (3, 'abc', 'com.a', 42, 714,"
                             " 'nightly.apk', 1), (4, 'def', 'com.a', 43, 715, NULL, 2)",
                             "seeding")
                    .ok());
  }
  auto db = OpenWriterDatabase(path, {});
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(Pragma(*db, "SELECT count(*) FROM build_files"), 2);
  EXPECT_EQ(Pragma(*db, "SELECT size FROM build_files WHERE build_id = 3 AND kind = 'base'"
                        " AND sha256 = 'abc' AND name = 'nightly.apk' AND position = 0"),
            714);
  EXPECT_EQ(Pragma(*db, "SELECT count(*) FROM build_files WHERE build_id = 4 AND"
                        " name = 'base.apk'"),
            1);
}

// 0003 on a database with runs: the ids already given are kept as given.
TEST(MigrateTest, KeptIdsStartAtTheHighestRunOfAnOlderDatabase) {
  TempDir dir;
  const std::string path = dir.File("older.db");
  const auto all = schema::Migrations();
  {
    auto old = OpenWriterDatabase(path, {}, all.subspan(0, 2));
    ASSERT_TRUE(old.ok()) << old.error().message;
    ASSERT_TRUE(old->Execute("INSERT INTO runs (id, spec, serial, package, mode, iterations, status,"
                             " created_at) VALUES (41, '{}', 'S', 'com.a', 'cold', 1, 'failed', 1);"
                             "DELETE FROM runs WHERE id = 41;"
                             "INSERT INTO runs (id, spec, serial, package, mode, iterations, status,"
                             " created_at) VALUES (7, '{}', 'S', 'com.a', 'cold', 1, 'failed', 1);",
                             "seeding")
                    .ok());
  }
  auto db = OpenWriterDatabase(path, {});
  ASSERT_TRUE(db.ok()) << db.error().message;
  // What 0002 had already forgotten (41) is gone; what it holds (7) is the floor.
  EXPECT_EQ(Pragma(*db, "SELECT id FROM id_high_water WHERE name = 'runs'"), 7);
  ASSERT_TRUE(db->Execute("DELETE FROM runs", "deleting").ok());
  EXPECT_EQ(Pragma(*db, "SELECT id FROM id_high_water WHERE name = 'runs'"), 7);
}

// Issue 13 §7, end to end over an upgrade: a lab's 0002 database with runs, launches, device
// history and restores, opened by this droidlab (migrated), keeps all of it; then retention deletes
// every run (all finished and old, so the newest too) and the next run is numbered above every
// run the lab ever had — 6, not 1 — whatever a script kept of the old ids.
TEST(MigrateTest, AnOlderDatabaseWithDataKeepsItAndNeverGivesARunIdTwice) {
  TempDir dir;
  const std::string path = dir.File("lab.db");
  const auto all = schema::Migrations();
  ASSERT_GE(all.size(), 3u);
  {
    auto old = OpenWriterDatabase(path, {}, all.subspan(0, 2));
    ASSERT_TRUE(old.ok()) << old.error().message;
    std::string seed =
        "INSERT INTO devices (serial, state, first_seen, last_seen) VALUES ('S', 'device', 1, 2);"
        "INSERT INTO device_state_changes (serial, state, changed_at) VALUES ('S', 'device', 1);"
        "INSERT INTO device_restores (serial, kind, name, previous, created_at)"
        " VALUES ('S', 'global_setting', 'looper_stats', '0', 5);";
    for (int id = 1; id <= 5; ++id) {
      const std::string n = std::to_string(id);
      seed += "INSERT INTO runs (spec, serial, package, mode, iterations, status, created_at)"
              " VALUES ('{}', 'S', 'com.a', 'cold', 2, 'succeeded', " + n + "000);"
              "INSERT INTO launches (run_id, iteration, displayed_ms) VALUES (" + n + ", 1, 500),"
              " (" + n + ", 2, 510);";
    }
    ASSERT_TRUE(old->Execute(seed, "seeding a 0002 lab").ok());
  }
  StoreOptions options;
  options.path = path;
  auto opened = Store::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  Store& st = **opened;
  auto runs = st.Read([](Reader& r) { return r.ListRuns({}); });
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->runs.size(), 5u);
  EXPECT_EQ(runs->runs.front().id, 5);
  EXPECT_EQ(st.Read([](Reader& r) { return r.ListLaunches(3); })->size(), 2u);
  EXPECT_EQ(st.Read([](Reader& r) { return r.ListOwedRestores("S"); })->size(), 1u);
  EXPECT_EQ(st.Read([](Reader& r) { return r.IntegrityCheck(); }).value(), "ok");

  RetentionPolicy everything;
  everything.max_age = std::chrono::milliseconds(1);
  everything.now_ms = 1'000'000;
  auto pruned = st.Prune(everything);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(pruned->runs_deleted, 5);
  NewRun next;
  next.spec_json = "{}";
  next.serial = "S";
  next.package = "com.a";
  next.mode = "cold";
  next.iterations = 1;
  next.created_at = 2'000'000;
  auto id = st.CreateRun(next);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(*id, 6);
  // The owed restore outlives retention, however old.
  EXPECT_EQ(st.Read([](Reader& r) { return r.ListOwedRestores("S"); })->size(), 1u);
}

TEST(MigrateTest, ReopeningRunsNothing) {
  TempDir dir;
  const std::string path = dir.File("again.db");
  { ASSERT_TRUE(OpenWriterDatabase(path, {}).ok()); }
  const std::string before = testutil::ReadFileBytes(path);
  auto db = OpenWriterDatabase(path, {});
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(Pragma(*db, "PRAGMA user_version"), schema::CurrentVersion());
}

// A database made by each earlier version (the binary that shipped version v ran migrations
// 1..v), with data in it, upgrades to the current version and keeps its data.
TEST(MigrateTest, UpgradesADatabaseMadeByEveryEarlierVersion) {
  const auto all = schema::Migrations();
  for (size_t made_by = 1; made_by <= all.size(); ++made_by) {
    SCOPED_TRACE("made by version " + std::to_string(made_by));
    TempDir dir;
    const std::string path = dir.File("old.db");
    {
      auto old = OpenWriterDatabase(path, {}, all.subspan(0, made_by));
      ASSERT_TRUE(old.ok()) << old.error().message;
      EXPECT_EQ(Pragma(*old, "PRAGMA user_version"), static_cast<int64_t>(made_by));
      // Every version has runs with these columns (0001_init).
      ASSERT_TRUE(old->Execute("INSERT INTO runs (spec, serial, package, mode, iterations, status,"
                               " created_at) VALUES ('{}', 's', 'com.p', 'cold', 1, 'succeeded', 5)",
                               "seeding")
                      .ok());
    }
    StoreOptions options;
    options.path = path;
    auto store = Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto run = (*store)->Read([](Reader& r) { return r.GetRun(1); });
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(run->package, "com.p");
  }
}

TEST(MigrateTest, PendingMigrationsRunInOrderFromTheStoredVersion) {
  TempDir dir;
  const std::string path = dir.File("steps.db");
  const std::vector<schema::Migration> v1 = {{1, "0001_a", "CREATE TABLE a (x INTEGER);"}};
  const std::vector<schema::Migration> v3 = {
      {1, "0001_a", "CREATE TABLE a (x INTEGER);"},
      {2, "0002_b", "CREATE TABLE b (y INTEGER); INSERT INTO a (x) VALUES (2);"},
      {3, "0003_c", "ALTER TABLE b ADD COLUMN z TEXT; INSERT INTO a (x) VALUES (3);"}};
  { ASSERT_TRUE(OpenWriterDatabase(path, {}, v1).ok()); }
  auto db = OpenWriterDatabase(path, {}, v3);
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(Pragma(*db, "PRAGMA user_version"), 3);
  EXPECT_EQ(Pragma(*db, "SELECT group_concat(x) FROM a"), 2);  // "2,3" reads as 2
  EXPECT_EQ(Pragma(*db, "SELECT count(*) FROM pragma_table_info('b')"), 2);
}

TEST(MigrateTest, FailingMigrationRollsBackAndKeepsTheVersion) {
  TempDir dir;
  const std::string path = dir.File("fails.db");
  const std::vector<schema::Migration> good = {{1, "0001_a", "CREATE TABLE a (x INTEGER);"}};
  const std::vector<schema::Migration> bad = {
      {1, "0001_a", "CREATE TABLE a (x INTEGER);"},
      {2, "0002_broken", "CREATE TABLE b (y INTEGER); INSERT INTO no_such_table VALUES (1);"}};
  { ASSERT_TRUE(OpenWriterDatabase(path, {}, good).ok()); }
  auto failed = OpenWriterDatabase(path, {}, bad);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, StoreErrorCode::kMigrationFailed);
  EXPECT_NE(failed.error().message.find("0002_broken"), std::string::npos)
      << failed.error().message;
  EXPECT_NE(failed.error().message.find("stays at version 1"), std::string::npos)
      << failed.error().message;
  auto db = OpenWriterDatabase(path, {}, good);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(Pragma(*db, "PRAGMA user_version"), 1);
  EXPECT_EQ(Pragma(*db, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'"), 0)
      << "the half-run migration's table was rolled back";
}

}  // namespace
}  // namespace droidlab::store
