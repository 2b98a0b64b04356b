// store/pg's libpq handles against a real PostgreSQL server (tests/common/pg_server.h): URLs and
// connection errors (the password in none of them), parameters and results round trip (NULLs,
// unicode, every byte, the edges of int64 and double), SQLSTATEs as StoreErrors, transactions,
// COPY of 100,000 rows, a connection killed under it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "store/pg/connection.h"
#include "tests/common/adb_lab.h"
#include "tests/common/pg_server.h"
#include "tests/store/pg_test_queries.h"

namespace droidlab::store::pg {
namespace {

using testutil::PgServer;
using testutil::SharedPgServer;

void Exec(Connection& connection, const std::string& sql) {
  auto done = connection.Execute(sql, sql);
  ASSERT_TRUE(done.ok()) << done.error().message;
}

TEST(PgUrlTest, OnlyPostgresSchemesAreUrls) {
  EXPECT_TRUE(IsPostgresUrl("postgresql://h/db"));
  EXPECT_TRUE(IsPostgresUrl("postgres://h/db"));
  EXPECT_FALSE(IsPostgresUrl("droidlab.db"));
  EXPECT_FALSE(IsPostgresUrl("/var/lib/droidlab/postgresql://x"));
  EXPECT_FALSE(IsPostgresUrl("mysql://h/db"));
  for (const char* bad : {"", "droidlab.db", "mysql://u:pw-in-url@h/db", "postgresql:/h/db"}) {
    const auto valid = ValidateUrl(bad);
    ASSERT_FALSE(valid.ok()) << bad;
    EXPECT_EQ(valid.error().code, StoreErrorCode::kInvalidArgument);
    EXPECT_NE(valid.error().message.find("postgresql://USER@HOST:PORT/DATABASE"), std::string::npos)
        << valid.error().message;
    EXPECT_EQ(valid.error().message.find("pw-in-url"), std::string::npos) << valid.error().message;
  }
  EXPECT_TRUE(ValidateUrl("postgresql://u:pw@db.lab:5432/droidlab?sslmode=require").ok());
}

TEST(PgUrlTest, UnparsableUrlsAreRefusedWithoutTheirPassword) {
  for (const char* bad :
       {"postgresql://u:Zz9-secret@h/db?nosuchparameter=1", "postgresql://u:Zz9-secret%zz@h/db",
        "postgresql://u@h/db?password=Zz9-secret&nosuchparameter=1"}) {
    const auto valid = ValidateUrl(bad);
    ASSERT_FALSE(valid.ok()) << bad;
    EXPECT_EQ(valid.error().code, StoreErrorCode::kInvalidArgument);
    EXPECT_NE(valid.error().message.find("invalid PostgreSQL URL"), std::string::npos);
    EXPECT_EQ(valid.error().message.find("Zz9-secret"), std::string::npos) << valid.error().message;
    const auto opened = Connection::Open(bad);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, StoreErrorCode::kInvalidArgument);
  }
}

TEST(PgUrlTest, RedactedUrlsKeepEverythingButThePassword) {
  EXPECT_EQ(RedactUrl("postgresql://lab:hunter2@db:5432/droidlab"),
            "postgresql://lab:***@db:5432/droidlab");
  EXPECT_EQ(RedactUrl("postgres://lab@db/droidlab?password=hunter2&sslmode=require"),
            "postgres://lab@db/droidlab?password=***&sslmode=require");
  EXPECT_EQ(RedactUrl("postgresql://lab@db/droidlab"), "postgresql://lab@db/droidlab");
  EXPECT_EQ(RedactUrl("postgresql://lab:p@ss@db/droidlab"), "postgresql://lab:***@db/droidlab");
}

TEST(PgConnectionTest, ConnectsOverTheSocketAndOverTcp) {
  PgServer& server = SharedPgServer();
  const std::string url = server.CreateDatabase("connect");
  const std::string database = url.substr(url.find("@/") + 2, url.find('?') - url.find("@/") - 2);
  for (const std::string& each : {url, server.TcpUrl(database)}) {
    Connection connection = Connect(each);
    ASSERT_TRUE(connection.ok());
    auto who = connection.Query("SELECT current_user AS name, current_database() AS db", "who");
    ASSERT_TRUE(who.ok()) << who.error().message;
    EXPECT_EQ(who->Text(0, "name").value(), PgServer::kUser);
    EXPECT_EQ(who->Text(0, "db").value(), database);
    EXPECT_EQ(connection.redacted_url().find(PgServer::kPassword), std::string::npos);
  }
}

TEST(PgConnectionTest, NoServerIsUnavailableAndARefusalIsCannotOpen) {
  PgServer& server = SharedPgServer();
  const std::string url = server.CreateDatabase("refusals");
  const std::string database = url.substr(url.find("@/") + 2, url.find('?') - url.find("@/") - 2);

  const std::string nobody_there = "postgresql://droidlab:" + std::string(PgServer::kPassword) +
                                   "@127.0.0.1:" + std::to_string(testutil::FreeLoopbackPort()) +
                                   "/" + database;
  auto unreachable = Connection::Open(nobody_there);
  ASSERT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.error().code, StoreErrorCode::kUnavailable);
  EXPECT_NE(unreachable.error().message.find("cannot connect to PostgreSQL at postgresql://"
                                             "droidlab:***@127.0.0.1:"),
            std::string::npos)
      << unreachable.error().message;

  std::string wrong_password = server.TcpUrl(database);
  wrong_password.replace(wrong_password.find(PgServer::kPassword),
                         std::string(PgServer::kPassword).size(), "Wr0ng-Pass");
  auto refused = Connection::Open(wrong_password);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kCannotOpen);
  EXPECT_NE(refused.error().message.find("password authentication failed"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(refused.error().message.find("Wr0ng-Pass"), std::string::npos);

  auto no_database = Connection::Open(server.TcpUrl("no_such_database"));
  ASSERT_FALSE(no_database.ok());
  EXPECT_EQ(no_database.error().code, StoreErrorCode::kCannotOpen);
  EXPECT_NE(no_database.error().message.find("no_such_database"), std::string::npos);

  for (const auto* error : {&unreachable.error(), &refused.error(), &no_database.error()}) {
    EXPECT_EQ(error->message.find(PgServer::kPassword), std::string::npos) << error->message;
  }
}

TEST(PgConnectionTest, ParametersAndResultsRoundTrip) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("round_trip"));
  Exec(connection,
       "CREATE TABLE t (id BIGINT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION, s TEXT, b BYTEA,"
       " f BOOLEAN, j JSONB, small SMALLINT, r REAL)");
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  const std::string unicode = "héllo wörld — 世界 🚀 \"quoted\" \\ back\ttab\nline";
  struct Row {
    int64_t i;
    double d;
    std::string s;
    std::string b;
  };
  const std::vector<Row> rows = {
      {std::numeric_limits<int64_t>::min(), 0.1, unicode, every_byte},
      {std::numeric_limits<int64_t>::max(), -0.0, "", std::string()},
      {0, std::numeric_limits<double>::denorm_min(), "'; DROP TABLE t; --", std::string(1, '\0')},
      {-1, 1e308, "x", "\xff\xfe"},
      {42, std::numeric_limits<double>::infinity(), "y", "z"},
  };
  for (size_t k = 0; k < rows.size(); ++k) {
    auto inserted = connection.Query(
        "INSERT INTO t (id, i, d, s, b, f, j, small, r) VALUES ($1, $2, $3, $4, $5, $6, $7, 7, "
        "1.5)",
        Params()
            .Int64(static_cast<int64_t>(k))
            .Int64(rows[k].i)
            .Double(rows[k].d)
            .Text(rows[k].s)
            .Bytes(rows[k].b)
            .Bool(k % 2 == 0)
            .Text(R"({"kind": "calibration", "n": 3})"),
        "inserting");
    ASSERT_TRUE(inserted.ok()) << inserted.error().message;
    EXPECT_EQ(inserted->affected(), 1);
  }
  auto nulls = connection.Query(
      "INSERT INTO t (id, i, d, s, b, f, j) VALUES ($1, $2, $3, $4, $5,"
      " $6, $7)",
      Params()
          .Int64(99)
          .Optional(std::optional<int64_t>())
          .Optional(std::optional<double>())
          .Optional(std::optional<std::string>())
          .Null()
          .Optional(std::optional<bool>())
          .Null(),
      "inserting NULLs");
  ASSERT_TRUE(nulls.ok()) << nulls.error().message;

  auto read = connection.Query("SELECT * FROM t WHERE id < $1 ORDER BY id",
                               Params().Int64(static_cast<int64_t>(rows.size())), "reading");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->rows(), static_cast<int>(rows.size()));
  for (size_t k = 0; k < rows.size(); ++k) {
    const int row = static_cast<int>(k);
    EXPECT_EQ(read->Int64(row, "id").value(), static_cast<int64_t>(k));
    EXPECT_EQ(read->Int64(row, "i").value(), rows[k].i);
    const double d = read->Double(row, "d").value();
    EXPECT_EQ(d, rows[k].d);
    EXPECT_EQ(std::signbit(d), std::signbit(rows[k].d));
    EXPECT_EQ(read->Text(row, "s").value(), rows[k].s);
    EXPECT_EQ(read->Bytes(row, "b").value(), rows[k].b);
    EXPECT_EQ(read->Bool(row, "f").value(), k % 2 == 0);
    EXPECT_EQ(read->Text(row, "j").value(), R"({"n": 3, "kind": "calibration"})");
    EXPECT_EQ(read->Int64(row, "small").value(), 7);
    EXPECT_EQ(read->Double(row, "r").value(), 1.5);
  }

  auto null_row = connection.Query("SELECT i, d, s, b, f, j FROM t WHERE id = 99", "nulls");
  ASSERT_TRUE(null_row.ok()) << null_row.error().message;
  for (int col = 0; col < null_row->columns(); ++col) EXPECT_TRUE(null_row->IsNull(0, col));
  EXPECT_EQ(null_row->OptionalInt64(0, "i").value(), std::nullopt);
  EXPECT_EQ(null_row->OptionalDouble(0, "d").value(), std::nullopt);
  EXPECT_EQ(null_row->OptionalText(0, "s").value(), std::nullopt);
  EXPECT_EQ(null_row->Int64(0, "i").error().code, StoreErrorCode::kInvalidArgument);

  // A query into the JSONB column, as the PostgreSQL reads will (json_extract in SQLite).
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t WHERE j->>'kind' = 'calibration'"),
            static_cast<int64_t>(rows.size()));
}

TEST(PgConnectionTest, AGetterOfTheWrongTypeOrColumnIsRefused) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("types"));
  auto result = connection.Query("SELECT 1::bigint AS n, 'a'::text AS s, 2.5::numeric AS x", "q");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->Text(0, "n").error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_NE(result->Text(0, "n").error().message.find("column \"n\""), std::string::npos);
  EXPECT_EQ(result->Int64(0, "s").error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_EQ(result->Double(0, "x").error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_EQ(result->Int64(0, "missing").error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_NE(result->Int64(0, "missing").error().message.find("\"missing\""), std::string::npos);
  EXPECT_EQ(result->Int64(1, "n").error().code, StoreErrorCode::kInvalidArgument);
}

TEST(PgConnectionTest, ServerErrorsAreStoreErrorsWithTheirSqlState) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("errors"));
  Exec(connection, "CREATE TABLE k (id BIGINT PRIMARY KEY, v BIGINT CHECK (v > 0))");
  Exec(connection, "INSERT INTO k VALUES (1, 1)");
  const auto twice =
      connection.Query("INSERT INTO k VALUES ($1, 1)", Params().Int64(1), "storing k 1 twice");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, StoreErrorCode::kConstraint);
  EXPECT_EQ(twice.error().message.rfind("storing k 1 twice: ERROR:", 0), 0u)
      << twice.error().message;
  EXPECT_NE(twice.error().message.find("[SQLSTATE 23505]"), std::string::npos);
  EXPECT_EQ(twice.error().message.find('\n'), std::string::npos);
  EXPECT_EQ(connection.Execute("INSERT INTO k VALUES (2, -1)", "check").error().code,
            StoreErrorCode::kConstraint);
  EXPECT_EQ(connection.Execute("SELEC 1", "typo").error().code, StoreErrorCode::kInternal);
  EXPECT_EQ(connection.Query("SELECT 1 / $1::bigint", Params().Int64(0), "divide").error().code,
            StoreErrorCode::kInvalidArgument);
  EXPECT_TRUE(connection.ok());
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM k"), 1);
}

TEST(PgConnectionTest, TransactionsRollBackUnlessCommitted) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("transactions"));
  Exec(connection, "CREATE TABLE t (id BIGINT PRIMARY KEY)");
  {
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Exec(connection, "INSERT INTO t VALUES (1), (2)");
    EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 2);
  }  // not committed
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 0);
  {
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Exec(connection, "INSERT INTO t VALUES (3)");
    ASSERT_TRUE(transaction.Commit().ok());
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);
  {
    // A statement failed: COMMIT answers ROLLBACK, which is an error, and nothing is stored.
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Exec(connection, "INSERT INTO t VALUES (4)");
    EXPECT_FALSE(connection.Execute("INSERT INTO t VALUES (3)", "duplicate").ok());
    const auto committed = transaction.Commit();
    ASSERT_FALSE(committed.ok());
    EXPECT_NE(committed.error().message.find("rolled back"), std::string::npos);
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);
}

// Deferred statements (the writer's SAVEPOINT and RELEASE) go out with the next statement, in
// order; a taken-back one never goes; a Query sends them first; one that fails is the next
// call's error, and a COMMIT it kept from running leaves no transaction open behind it.
TEST(PgConnectionTest, DeferredStatementsGoWithTheNextOne) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("deferred"));
  Exec(connection, "CREATE TABLE t (id BIGINT PRIMARY KEY)");
  {
    Transaction transaction(connection);
    auto xid = transaction.BeginWith("SELECT txid_current()::text AS xid", "beginning");
    ASSERT_TRUE(xid.ok()) << xid.error().message;
    EXPECT_FALSE(xid->Text(0, "xid").value().empty());
    connection.Defer("SAVEPOINT task");
    Exec(connection, "INSERT INTO t VALUES (1)");  // the savepoint went in front of it
    EXPECT_FALSE(connection.Execute("INSERT INTO t VALUES (1)", "duplicate").ok());
    ASSERT_TRUE(connection.Execute("ROLLBACK TO SAVEPOINT task", "undoing").ok());
    connection.Defer("RELEASE SAVEPOINT task");
    connection.Defer("SAVEPOINT task");
    EXPECT_TRUE(connection.TakeBackDeferred("SAVEPOINT task"));
    EXPECT_FALSE(connection.TakeBackDeferred("SAVEPOINT task"));  // RELEASE is last now
    connection.Defer("SAVEPOINT other");
    Params two;
    two.Int64(2);
    ASSERT_TRUE(connection.Query("INSERT INTO t VALUES ($1)", two, "a query").ok());
    // "other" exists: the Query sent it (and the RELEASE) first.
    EXPECT_TRUE(connection.Execute("RELEASE SAVEPOINT other", "releasing").ok());
    ASSERT_TRUE(transaction.Commit().ok());
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);  // 1 undone with its savepoint
  {
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Exec(connection, "INSERT INTO t VALUES (3)");
    connection.Defer("RELEASE SAVEPOINT none");  // no such savepoint: COMMIT never runs
    const auto committed = transaction.Commit();
    ASSERT_FALSE(committed.ok());
    EXPECT_NE(committed.error().message.find("none"), std::string::npos)
        << committed.error().message;
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);
  Transaction next(connection);  // no aborted transaction was left open: BEGIN would fail
  ASSERT_TRUE(next.Begin().ok());
  Exec(connection, "INSERT INTO t VALUES (5)");
  ASSERT_TRUE(next.Commit().ok());
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 2);
}

TEST(PgConnectionTest, CopyStoresAHundredThousandRowsExactly) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("copy"));
  Exec(connection,
       "CREATE TABLE samples (run_id BIGINT NOT NULL, t_ms BIGINT NOT NULL, cpu DOUBLE PRECISION,"
       " name TEXT, raw BYTEA, flag BOOLEAN, PRIMARY KEY (run_id, t_ms))");
  const std::vector<std::string> columns = {"run_id", "t_ms", "cpu", "name", "raw", "flag"};
  constexpr int kRows = 100000;
  const auto started = std::chrono::steady_clock::now();
  Transaction transaction(connection);
  ASSERT_TRUE(transaction.Begin().ok());
  auto copy = connection.BeginCopy("samples", columns, "copying samples");
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  for (int k = 0; k < kRows; ++k) {
    copy->Int64(7).Int64(k);
    if (k % 10 == 0) {
      copy->Null();
    } else {
      copy->Double(k / 3.0);
    }
    copy->Text(k % 1000 == 0 ? "tab\there\nnewline \\N back\\slash ☃" : "p" + std::to_string(k));
    copy->Bytes(std::string("\0\t\n\\", 4) + std::to_string(k)).Bool(k % 2 == 1);
    const auto row = copy->EndRow();
    ASSERT_TRUE(row.ok()) << row.error().message;
  }
  const auto copied = copy->Finish();
  ASSERT_TRUE(copied.ok()) << copied.error().message;
  EXPECT_EQ(*copied, kRows);
  ASSERT_TRUE(transaction.Commit().ok());
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  std::printf("COPY of %d rows: %lld ms\n", kRows, static_cast<long long>(elapsed.count()));

  EXPECT_EQ(Count(connection, "SELECT count(*) FROM samples"), kRows);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM samples WHERE cpu IS NULL"), kRows / 10);
  EXPECT_EQ(Count(connection, "SELECT sum(t_ms)::bigint FROM samples"),
            static_cast<int64_t>(kRows) * (kRows - 1) / 2);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM samples WHERE flag"), kRows / 2);
  auto row = connection.Query("SELECT cpu, name, raw FROM samples WHERE t_ms = $1",
                              Params().Int64(3000), "row 3000");
  ASSERT_TRUE(row.ok()) << row.error().message;
  EXPECT_EQ(row->OptionalDouble(0, "cpu").value(), std::nullopt);
  EXPECT_EQ(row->Text(0, "name").value(), "tab\there\nnewline \\N back\\slash ☃");
  EXPECT_EQ(row->Bytes(0, "raw").value(), std::string("\0\t\n\\3000", 8));
  auto other = connection.Query("SELECT cpu FROM samples WHERE t_ms = 4321", "row 4321");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->Double(0, "cpu").value(), 4321 / 3.0);
}

TEST(PgConnectionTest, AFailedOrAbandonedCopyStoresNothingAndTheConnectionGoesOn) {
  Connection connection = Connect(SharedPgServer().CreateDatabase("copy_errors"));
  Exec(connection, "CREATE TABLE k (id BIGINT PRIMARY KEY, name TEXT)");
  const std::vector<std::string> columns = {"id", "name"};
  {
    auto copy = connection.BeginCopy("k", columns, "copying k");
    ASSERT_TRUE(copy.ok()) << copy.error().message;
    for (int64_t id : {1, 2, 2, 3}) {
      copy->Int64(id).Text("x");
      ASSERT_TRUE(copy->EndRow().ok());
    }
    const auto copied = copy->Finish();
    ASSERT_FALSE(copied.ok());
    EXPECT_EQ(copied.error().code, StoreErrorCode::kConstraint);
    EXPECT_NE(copied.error().message.find("copying k"), std::string::npos);
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM k"), 0);
  {
    auto copy = connection.BeginCopy("k", columns, "copying k");
    ASSERT_TRUE(copy.ok()) << copy.error().message;
    copy->Int64(5).Text("y");
    ASSERT_TRUE(copy->EndRow().ok());
  }  // destroyed unfinished
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM k"), 0);
  EXPECT_FALSE(connection.BeginCopy("no_such_table", columns, "copying").ok());
  EXPECT_TRUE(connection.ok());
  EXPECT_EQ(Count(connection, "SELECT 1"), 1);
}

TEST(PgConnectionTest, AConnectionKilledUnderItIsUnavailable) {
  PgServer& server = SharedPgServer();
  const std::string url = server.CreateDatabase("killed");
  Connection victim = Connect(url);
  Connection killer = Connect(url);
  const int64_t pid = Count(victim, "SELECT pg_backend_pid()::bigint");
  auto killed = killer.Query("SELECT pg_terminate_backend($1::int)", Params().Int64(pid), "kill");
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  const auto after = victim.Query("SELECT 1", "reading after the kill");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, StoreErrorCode::kUnavailable) << after.error().message;
  EXPECT_EQ(after.error().message.find(PgServer::kPassword), std::string::npos);
  EXPECT_FALSE(victim.ok());
  EXPECT_EQ(victim.Execute("SELECT 1", "again").error().code, StoreErrorCode::kUnavailable);
}

}  // namespace
}  // namespace droidlab::store::pg
