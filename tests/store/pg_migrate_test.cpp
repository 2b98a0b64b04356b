// The PostgreSQL migrations (schema/postgresql/) and their runner (store/pg/migrate.h) against a
// real server: from empty they give the tables, columns, keys and indexes the SQLite migrations
// give (compared through SQLite's pragmas and PostgreSQL's catalogs, with the type mapping of
// schema/README.md), running again changes nothing, a newer or foreign database is refused
// untouched, a failing migration leaves the version before it, and daemons migrating at once
// run each migration once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "schema/migrations.h"
#include "store/open.h"
#include "store/pg/connection.h"
#include "store/pg/migrate.h"
#include "store/pg/sql/launches.h"
#include "store/pg/sql/run_summaries.h"
#include "tests/common/pg_server.h"
#include "tests/common/temp_dir.h"
#include "tests/store/pg_test_queries.h"

namespace droidlab::store::pg {
namespace {

using testutil::SharedPgServer;

struct Column {
  std::string type;
  bool not_null = false;
  bool operator==(const Column&) const = default;
};

// What both backends must agree on, per table.
struct TableShape {
  std::map<std::string, Column> columns;
  std::vector<std::string> primary_key;
};

// Named indexes: their columns and whether they are partial.
struct IndexShape {
  std::string table;
  std::vector<std::string> columns;
  bool partial = false;
  bool unique = false;
};

// The PostgreSQL type a SQLite column's becomes (schema/README.md): INTEGER is 64-bit in SQLite,
// so bigint; JSON that queries look into is json when it is returned as written (a run's spec and
// preflight), else jsonb.
std::string ExpectedPgType(const std::string& table, const std::string& column,
                           const std::string& sqlite_type) {
  static const std::set<std::string> kJson = {"runs.spec", "runs.preflight"};
  static const std::set<std::string> kJsonb = {"alerts.explained_by"};
  if (sqlite_type == "INTEGER") return "bigint";
  if (sqlite_type == "REAL") return "double precision";
  if (sqlite_type == "TEXT" && kJson.contains(table + "." + column)) return "json";
  if (sqlite_type == "TEXT") return kJsonb.contains(table + "." + column) ? "jsonb" : "text";
  return "unmapped SQLite type " + sqlite_type;
}

// SQLite's names an unnamed index sqlite_autoindex_*; PostgreSQL names a key's index *_pkey or
// *_key. Neither is in the migrations: only the indexes they name are compared.
std::map<std::string, TableShape> SqliteTables(Database& db,
                                               std::map<std::string, IndexShape>& indexes) {
  std::map<std::string, TableShape> tables;
  auto list = db.Prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  EXPECT_TRUE(list.ok());
  std::vector<std::string> names;
  while (list->StepOnce() == Statement::Step::kRow) names.push_back(list->ColumnString(0));
  for (const std::string& table : names) {
    auto info = db.Prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)");
    EXPECT_TRUE(info.ok());
    info->BindText(1, table);
    std::map<int64_t, std::string> key;
    TableShape& shape = tables[table];
    while (info->StepOnce() == Statement::Step::kRow) {
      const std::string column = info->ColumnString(0);
      const int64_t pk = info->ColumnInt64(3);
      // A key column is NOT NULL in PostgreSQL whatever it says; SQLite's rowid alias too.
      shape.columns[column] = Column{ExpectedPgType(table, column, info->ColumnString(1)),
                                     info->ColumnInt64(2) != 0 || pk > 0};
      if (pk > 0) key[pk] = column;
    }
    for (const auto& [position, column] : key) shape.primary_key.push_back(column);
  }
  auto index_list = db.Prepare(
      "SELECT i.name, i.tbl_name, il.\"unique\", il.partial FROM sqlite_schema i"
      " JOIN pragma_index_list(i.tbl_name) il ON il.name = i.name"
      " WHERE i.type = 'index' AND i.sql IS NOT NULL");
  EXPECT_TRUE(index_list.ok());
  while (index_list->StepOnce() == Statement::Step::kRow) {
    IndexShape& index = indexes[index_list->ColumnString(0)];
    index.table = index_list->ColumnString(1);
    index.unique = index_list->ColumnInt64(2) != 0;
    index.partial = index_list->ColumnInt64(3) != 0;
  }
  for (auto& [name, index] : indexes) {
    auto info = db.Prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno");
    EXPECT_TRUE(info.ok());
    info->BindText(1, name);
    while (info->StepOnce() == Statement::Step::kRow)
      index.columns.push_back(info->ColumnString(0));
  }
  return tables;
}

std::map<std::string, TableShape> PgTables(Connection& connection,
                                           std::map<std::string, IndexShape>& indexes) {
  std::map<std::string, TableShape> tables;
  auto columns = connection.Query(
      "SELECT table_name::text AS t, column_name::text AS c, data_type::text AS type,"
      " (is_nullable = 'NO') AS not_null FROM information_schema.columns"
      " WHERE table_schema = current_schema() AND table_name <> 'droidlab_schema'",
      "columns");
  EXPECT_TRUE(columns.ok()) << columns.error().message;
  for (int row = 0; columns.ok() && row < columns->rows(); ++row) {
    tables[columns->Text(row, "t").value()].columns[columns->Text(row, "c").value()] =
        Column{columns->Text(row, "type").value(), columns->Bool(row, "not_null").value()};
  }
  auto keys = connection.Query(
      "SELECT c.conrelid::regclass::text AS t, a.attname::text AS c FROM pg_constraint c"
      " CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)"
      " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
      " WHERE c.contype = 'p' AND c.connamespace = current_schema()::regnamespace"
      " AND c.conrelid <> 'droidlab_schema'::regclass"
      " ORDER BY 1, k.n",
      "keys");
  EXPECT_TRUE(keys.ok()) << keys.error().message;
  for (int row = 0; keys.ok() && row < keys->rows(); ++row) {
    tables[keys->Text(row, "t").value()].primary_key.push_back(keys->Text(row, "c").value());
  }
  // Indexes that are not a constraint's (a key's or UNIQUE's): the ones the migrations name.
  auto index_rows = connection.Query(
      "SELECT ic.relname::text AS name, t.relname::text AS t, a.attname::text AS c,"
      " i.indisunique AS is_unique, i.indpred IS NOT NULL AS partial"
      " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
      " JOIN pg_class t ON t.oid = i.indrelid"
      " CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)"
      " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
      " WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> 'droidlab_schema'"
      " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)"
      " ORDER BY 1, k.n",
      "indexes");
  EXPECT_TRUE(index_rows.ok()) << index_rows.error().message;
  for (int row = 0; index_rows.ok() && row < index_rows->rows(); ++row) {
    IndexShape& index = indexes[index_rows->Text(row, "name").value()];
    index.table = index_rows->Text(row, "t").value();
    index.columns.push_back(index_rows->Text(row, "c").value());
    index.unique = index_rows->Bool(row, "is_unique").value();
    index.partial = index_rows->Bool(row, "partial").value();
  }
  return tables;
}

TEST(PgMigrateTest, EveryMigrationHasItsPostgresFormUnderTheSameNumber) {
  const auto sqlite = schema::Migrations();
  const auto postgres = schema::PostgresMigrations();
  ASSERT_EQ(postgres.size(), sqlite.size());
  for (size_t i = 0; i < sqlite.size(); ++i) {
    EXPECT_EQ(postgres[i].version, sqlite[i].version);
    EXPECT_EQ(postgres[i].name, sqlite[i].name);
    EXPECT_FALSE(postgres[i].sql.empty());
  }
}

TEST(PgMigrateTest, FromEmptyTheTablesColumnsKeysAndIndexesAreSqlites) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("shape"));
  const auto migrated = MigratePostgres(connection);
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  EXPECT_EQ(*migrated, schema::CurrentVersion());
  EXPECT_EQ(Count(connection, "SELECT version FROM droidlab_schema"), schema::CurrentVersion());

  testutil::TempDir dir;
  auto sqlite = OpenWriterDatabase(dir.File("shape.db"), {});
  ASSERT_TRUE(sqlite.ok()) << sqlite.error().message;
  std::map<std::string, IndexShape> sqlite_indexes;
  std::map<std::string, IndexShape> pg_indexes;
  auto expected = SqliteTables(*sqlite, sqlite_indexes);
  const auto actual = PgTables(connection, pg_indexes);
  ASSERT_EQ(expected.size(), 24u);  // migrate_test.cpp names them

  // SQLite's implicit rowid, the page key of these two tables, is a column in PostgreSQL and the
  // last column of their run index.
  for (const char* table : {"looper_stats", "proc_samples"}) {
    expected[table].columns["rowid"] = Column{"bigint", true};
  }
  sqlite_indexes["looper_stats_by_run"].columns.push_back("rowid");
  sqlite_indexes["proc_samples_by_run"].columns.push_back("rowid");

  std::set<std::string> expected_names;
  std::set<std::string> actual_names;
  for (const auto& [name, shape] : expected) expected_names.insert(name);
  for (const auto& [name, shape] : actual) actual_names.insert(name);
  ASSERT_EQ(actual_names, expected_names);
  for (const auto& [table, shape] : expected) {
    const TableShape& pg = actual.at(table);
    for (const auto& [column, want] : shape.columns) {
      ASSERT_TRUE(pg.columns.contains(column)) << table << "." << column << " missing";
      EXPECT_EQ(pg.columns.at(column).type, want.type) << table << "." << column;
      EXPECT_EQ(pg.columns.at(column).not_null, want.not_null) << table << "." << column;
    }
    EXPECT_EQ(pg.columns.size(), shape.columns.size()) << table << " has extra columns";
    EXPECT_EQ(pg.primary_key, shape.primary_key) << table;
  }
  ASSERT_EQ(pg_indexes.size(), sqlite_indexes.size());
  for (const auto& [name, want] : sqlite_indexes) {
    ASSERT_TRUE(pg_indexes.contains(name)) << "index " << name << " missing";
    const IndexShape& got = pg_indexes.at(name);
    EXPECT_EQ(got.table, want.table) << name;
    EXPECT_EQ(got.columns, want.columns) << name;
    EXPECT_EQ(got.partial, want.partial) << name;
    EXPECT_EQ(got.unique, want.unique) << name;
  }
}

TEST(PgMigrateTest, RunningAgainChangesNothing) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("again"));
  ASSERT_TRUE(MigratePostgres(connection).ok());
  const std::string objects =
      "SELECT count(*) FROM pg_class WHERE relnamespace ="
      " current_schema()::regnamespace";
  const int64_t before = Count(connection, objects);
  // Read-only now: a runner that wrote anything would fail.
  ASSERT_TRUE(connection.Execute("SET default_transaction_read_only = on", "read only").ok());
  const auto again = MigratePostgres(connection);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, schema::CurrentVersion());
  EXPECT_EQ(Count(connection, objects), before);
  // And the test can fail: one migration more is refused by the read-only transaction.
  std::vector<schema::Migration> longer(schema::PostgresMigrations().begin(),
                                        schema::PostgresMigrations().end());
  longer.push_back(
      {static_cast<int>(longer.size()) + 1, "9999_more", "CREATE TABLE more (x BIGINT)"});
  const auto refused = MigratePostgres(connection, longer);
  ASSERT_FALSE(refused.ok()) << "the read-only transaction let a migration through";
  EXPECT_EQ(refused.error().code, StoreErrorCode::kMigrationFailed);
}

TEST(PgMigrateTest, ANewerDatabaseIsRefusedUntouched) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("newer"));
  ASSERT_TRUE(MigratePostgres(connection).ok());
  const int newer = schema::CurrentVersion() + 1;
  ASSERT_TRUE(connection
                  .Execute("UPDATE droidlab_schema SET version = " + std::to_string(newer) +
                               "; CREATE TABLE from_the_future (x BIGINT)",
                           "pretending")
                  .ok());
  const auto refused = MigratePostgres(connection);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kTooNew);
  EXPECT_NE(refused.error().message.find(
                "has schema version " + std::to_string(newer) +
                ", written by a newer droidlab; this binary knows versions up to " +
                std::to_string(schema::CurrentVersion()) +
                ": run the newer droidlab or restore an older backup"),
            std::string::npos)
      << refused.error().message;
  EXPECT_EQ(refused.error().message.find(testutil::PgServer::kPassword), std::string::npos);
  EXPECT_EQ(Count(connection, "SELECT version FROM droidlab_schema"), newer);
  const auto read_only = PostgresSchemaVersion(connection, schema::CurrentVersion());
  ASSERT_FALSE(read_only.ok());
  EXPECT_EQ(read_only.error().code, StoreErrorCode::kTooNew);
}

TEST(PgMigrateTest, ADatabaseOfAnotherProgramIsRefusedUntouched) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("foreign"));
  ASSERT_TRUE(connection.Execute("CREATE TABLE invoices (id BIGINT)", "theirs").ok());
  const auto refused = MigratePostgres(connection);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kNotADatabase);
  EXPECT_NE(refused.error().message.find("not droidlab's"), std::string::npos);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 1);
}

TEST(PgMigrateTest, AFailingMigrationLeavesTheVersionBeforeIt) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("failing"));
  const std::vector<schema::Migration> migrations = {
      {1, "0001_one", "CREATE TABLE one (x BIGINT)"},
      {2, "0002_two", "CREATE TABLE two (x BIGINT); INSERT INTO one VALUES (1); SELEC oops"},
  };
  const auto failed = MigratePostgres(connection, migrations);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, StoreErrorCode::kMigrationFailed);
  EXPECT_NE(failed.error().message.find("migration 0002_two on postgresql://"), std::string::npos)
      << failed.error().message;
  EXPECT_NE(failed.error().message.find("the database stays at version 1"), std::string::npos);
  EXPECT_EQ(Count(connection, "SELECT version FROM droidlab_schema"), 1);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM one"), 0);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM pg_tables WHERE tablename = 'two'"), 0);
}

// The data migrations (0003's high-water mark, 0007's files of each build) on rows written at
// version 6, as SQLite's migrate_test does.
TEST(PgMigrateTest, DataMigrationsCarryRowsOfAnOlderDatabase) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("older"));
  const auto all = schema::PostgresMigrations();
  ASSERT_TRUE(MigratePostgres(connection, all.subspan(0, 2)).ok());
  ASSERT_TRUE(connection
                  .Execute("INSERT INTO runs (id, spec, serial, package, mode, iterations, status,"
                           " created_at) VALUES (41, '{\"kind\": \"plain\"}', 's', 'com.a',"
                           " 'cold', 1, 'succeeded', 1)",
                           "seeding runs")
                  .ok());
  ASSERT_TRUE(MigratePostgres(connection, all.subspan(0, 6)).ok());
  ASSERT_TRUE(connection
                  .Execute("INSERT INTO builds (id, sha256, package, version_code, size,"
                           " file_name, created_at) VALUES (3, 'abc', 'com.a', 42, 714,"
                           " 'nightly.apk', 1), (4, 'def', 'com.a', 43, 715, NULL, 2)",
                           "seeding builds")
                  .ok());
  const auto migrated = MigratePostgres(connection);
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  EXPECT_EQ(Count(connection, "SELECT id FROM id_high_water WHERE name = 'runs'"), 41);
  EXPECT_EQ(Count(connection,
                  "SELECT size FROM build_files WHERE build_id = 3 AND kind = 'base'"
                  " AND sha256 = 'abc' AND name = 'nightly.apk' AND position = 0"),
            714);
  EXPECT_EQ(Count(connection,
                  "SELECT count(*) FROM build_files WHERE build_id = 4 AND"
                  " name = 'base.apk'"),
            1);
  // 0003's trigger, in PL/pgSQL: a deleted run's id is kept.
  ASSERT_TRUE(connection
                  .Execute("INSERT INTO runs (id, spec, serial, package, mode, iterations, status,"
                           " created_at) VALUES (57, '{}', 's', 'com.a', 'cold', 1, 'failed', 2);"
                           " DELETE FROM runs WHERE id = 57",
                           "deleting a run")
                  .ok());
  EXPECT_EQ(Count(connection, "SELECT id FROM id_high_water WHERE name = 'runs'"), 57);
}

// A new database migrated up to `version`, `seed` written into it there, then migrated to the
// newest version: a migration tested on rows an older daemon wrote.
Connection SeededAtVersion(const std::string& name, size_t version, const std::string& seed) {
  Connection connection = Connect(SharedPgServer().CreateDatabase(name));
  const auto all = schema::PostgresMigrations();
  EXPECT_GT(all.size(), version);
  EXPECT_TRUE(MigratePostgres(connection, all.subspan(0, std::min(version, all.size()))).ok());
  const auto seeded = connection.Execute(seed, "seeding at version " + std::to_string(version));
  EXPECT_TRUE(seeded.ok()) << seeded.error().message;
  EXPECT_TRUE(MigratePostgres(connection).ok());
  return connection;
}

// A table's primary key as "key columns, then the included ones", comma-separated, and how many
// of them are the key: (2, "run_id,iteration,valid,…").
std::pair<int64_t, std::string> PrimaryKeyOf(Connection& connection, const std::string& table) {
  auto key = connection.Query(
      "SELECT i.indnkeyatts AS key_columns, string_agg(a.attname, ',' ORDER BY k.n) AS columns"
      " FROM pg_constraint c JOIN pg_index i ON i.indexrelid = c.conindid"
      " CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)"
      " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
      " WHERE c.conrelid = $1::text::regclass AND c.contype = 'p'"
      " AND c.conname = $1::text || '_pkey'"
      " GROUP BY i.indnkeyatts",
      Params().Text(table), "reading a primary key");
  if (!key.ok() || key->rows() != 1) {
    ADD_FAILURE() << table
                  << "'s primary key: " << (key.ok() ? "not one row" : key.error().message);
    return {};
  }
  return {key->Int64(0, "key_columns").value(), key->Text(0, "columns").value()};
}

// The plan of `query` on `table` once VACUUM has marked its pages all-visible (autovacuum's job
// in a lab), the planner kept off the scans a small table would rather have, so that the plan
// shows what the key allows.
std::string PlanOnKey(Connection& connection, const std::string& table, const char* query,
                      const Params& params) {
  EXPECT_TRUE(connection.Execute("VACUUM ANALYZE " + table, "vacuuming").ok());
  EXPECT_TRUE(
      connection.Execute("SET enable_seqscan = off; SET enable_bitmapscan = off", "planning").ok());
  auto plan = connection.Query(std::string("EXPLAIN ") + query, params, "explaining");
  if (!plan.ok()) {
    ADD_FAILURE() << plan.error().message;
    return {};
  }
  std::string text;
  for (int row = 0; row < plan->rows(); ++row) text += plan->Text(row, 0).value() + "\n";
  return text;
}

// 0015: launches' key, on a table written at version 14, carries the launch history's columns
// and still refuses a launch stored twice; the history is then answered from the key alone (an
// index-only scan, issue 17 §1's p99) — what the migration is for, so the plan is checked too.
TEST(PgMigrateTest, LaunchesKeyCarriesTheLaunchHistorysColumns) {
  Connection connection = SeededAtVersion(
      "covering", 14,
      "INSERT INTO runs (id, spec, serial, package, mode, iterations, status, created_at)"
      " VALUES (1, '{\"build\": 7}', 's', 'com.a', 'cold', 200, 'succeeded', 1000);"
      " INSERT INTO launches (run_id, iteration, displayed_ms, total_time_ms, fully_drawn_ms,"
      " build_id) SELECT 1, i, 300 + i, 310 + i, NULL, CASE WHEN i % 2 = 0 THEN 7 END"
      " FROM generate_series(1, 200) AS i");
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM launches"), 200);

  // The primary key's index: (run_id, iteration) its key, the rest included.
  EXPECT_EQ(PrimaryKeyOf(connection, "launches"),
            std::make_pair(int64_t{2}, std::string("run_id,iteration,valid,warmup,build_id,"
                                                   "displayed_ms,total_time_ms,fully_drawn_ms")));
  const auto twice = connection.Execute(
      "INSERT INTO launches (run_id, iteration, displayed_ms) VALUES (1, 5, 1)", "twice");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, StoreErrorCode::kConstraint);

  Params params;
  params.Text("com.a")
      .Int64(0)
      .Optional(std::optional<std::string>())
      .Optional(std::optional<std::string>());
  const std::string text = PlanOnKey(connection, "launches", sql::kLaunchHistory, params);
  EXPECT_NE(text.find("Index Only Scan using launches_pkey on launches"), std::string::npos)
      << text;
}

// 0021: run_summaries' key, on a table written at version 20, carries every column a series
// reads and still refuses a summary stored twice; GET /series is then answered from the key alone
// (an index-only scan, issue 17 §1's p99), so the plan is checked too.
TEST(PgMigrateTest, RunSummariesKeyCarriesTheSeriesColumns) {
  Connection connection = SeededAtVersion(
      "series_covering", 20,
      "INSERT INTO run_summaries (package, device_model, mode, metric, t, run_id, count, median,"
      " p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation, hot_launches)"
      " SELECT 'com.a', 'Pixel 7', 'cold', 'displayed_ms', 1000 * i, i, 20, 300 + i, 320 + i,"
      " 290 + i, 310 + i, 7, 42, 'google/panther/panther:14', 'speed-profile', 0"
      " FROM generate_series(1, 300) AS i");
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM run_summaries"), 300);

  EXPECT_EQ(PrimaryKeyOf(connection, "run_summaries"),
            std::make_pair(int64_t{6},
                           std::string("package,device_model,mode,metric,t,run_id,count,median,"
                                       "p90,ci_low,ci_high,build_id,version_code,fingerprint,"
                                       "compilation,hot_launches")));
  const auto twice = connection.Execute(
      "INSERT INTO run_summaries (package, device_model, mode, metric, t, run_id, count)"
      " VALUES ('com.a', 'Pixel 7', 'cold', 'displayed_ms', 5000, 5, 1)",
      "twice");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, StoreErrorCode::kConstraint);

  Params params;
  params.Text("com.a").Text("Pixel 7").Text("cold").Text("displayed_ms").Int64(0).Int64(1'000'000);
  const std::string text = PlanOnKey(connection, "run_summaries", sql::kSeries, params);
  EXPECT_NE(text.find("Index Only Scan using run_summaries_pkey on run_summaries"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("Sort"), std::string::npos) << text;  // the key's order is the series'
}

// Daemons starting at once: each waits for the migration lock and finds the migration done.
// The migrations sleep while they hold the lock, so that without it they would overlap; each
// counts its runs in a table that a second run would add to.
TEST(PgMigrateTest, ConcurrentMigratorsAllSucceedAndEachMigrationRunsOnce) {
  const std::string url = SharedPgServer().CreateDatabase("concurrent");
  const std::vector<schema::Migration> migrations = {
      {1, "0001_log",
       "CREATE TABLE ran (version BIGINT); INSERT INTO ran VALUES (1);"
       " SELECT pg_sleep(0.2)"},
      {2, "0002_more", "INSERT INTO ran VALUES (2); SELECT pg_sleep(0.2)"},
  };
  constexpr int kDaemons = 4;
  std::vector<Connection> connections;
  for (int k = 0; k < kDaemons; ++k) connections.push_back(Connect(url));
  std::vector<StoreResult<int64_t>> results(kDaemons, StoreResult<int64_t>(int64_t{-1}));
  std::atomic<int> ready{0};
  std::vector<std::thread> daemons;
  for (int k = 0; k < kDaemons; ++k) {
    daemons.emplace_back([&, k] {
      ++ready;
      while (ready.load() < kDaemons) std::this_thread::yield();
      results[k] = MigratePostgres(connections[k], migrations);
    });
  }
  for (auto& daemon : daemons) daemon.join();
  for (int k = 0; k < kDaemons; ++k) {
    ASSERT_TRUE(results[k].ok()) << results[k].error().message;
    EXPECT_EQ(*results[k], 2);
  }
  EXPECT_EQ(Count(connections[0], "SELECT count(*) FROM ran WHERE version = 1"), 1);
  EXPECT_EQ(Count(connections[0], "SELECT count(*) FROM ran WHERE version = 2"), 1);
  EXPECT_EQ(Count(connections[0], "SELECT version FROM droidlab_schema"), 2);
}

}  // namespace
}  // namespace droidlab::store::pg
