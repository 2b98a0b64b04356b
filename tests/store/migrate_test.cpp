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
  EXPECT_EQ(CountTables(*db), 9);  // devices, device_state_changes, schedules, runs, launches,
                                   // looper_stats, proc_samples (0001); device_restores (0002);
                                   // id_high_water (0003)
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
