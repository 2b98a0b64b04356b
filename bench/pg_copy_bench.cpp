// The PostgreSQL store's batched write (issue 17 §1: "COPY or multi-row INSERT, measured"):
// proc_samples rows, in batches of 1,000 each committed on its own (the writer's batch), into the
// table and index of schema/postgresql/ on a real server started for the run
// (tests/common/pg_server.h). Ours: store/pg's CopyIn. References, same run, same rows,
// interleaved: one multi-row INSERT per batch with bound parameters (8,000 of them), and one
// INSERT per row inside the batch's transaction. Best of the rounds, rows/s, and the ratios.
//
//   pg_copy_bench [--rows N] [--rounds R]     (default 500,000 rows, 3 rounds)
//   pg_copy_bench --quick                     (20,000 rows, 1 round: the smoke run)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "store/pg/connection.h"
#include "store/pg/migrate.h"
#include "tests/common/pg_server.h"

namespace {

using droidlab::store::Status;
using droidlab::store::pg::Connection;
using droidlab::store::pg::Params;
using droidlab::store::pg::Transaction;

constexpr int kBatch = 1000;
const std::vector<std::string> kColumns = {"run_id", "t_ms",    "pid",    "utime",
                                           "stime",  "cpu_pct", "rss_kb", "num_threads"};

struct Sample {
  int64_t run_id, t_ms, pid, utime, stime;
  double cpu_pct;
  int64_t rss_kb, num_threads;
};

Sample MakeSample(int k) {
  return Sample{1 + k / 100000,   (k % 100000) * 10, 4242,      k / 7, k / 11,
                (k % 997) / 9.97, 180000 + k % 5000, 40 + k % 9};
}

void Check(const Status& status, const char* what) {
  if (!status) {
    std::fprintf(stderr, "%s: %s\n", what, status.error().message.c_str());
    std::exit(1);
  }
}

Status CopyBatch(Connection& connection, int first, int count) {
  auto copy = connection.BeginCopy("proc_samples", kColumns, "copying samples");
  if (!copy) return copy.error();
  for (int k = first; k < first + count; ++k) {
    const Sample s = MakeSample(k);
    copy->Int64(s.run_id).Int64(s.t_ms).Int64(s.pid).Int64(s.utime).Int64(s.stime);
    copy->Double(s.cpu_pct).Int64(s.rss_kb).Int64(s.num_threads);
    if (auto row = copy->EndRow(); !row) return row;
  }
  auto copied = copy->Finish();
  if (!copied) return copied.error();
  return droidlab::store::OkStatus();
}

std::string MultiRowInsert(int count) {
  std::string sql =
      "INSERT INTO proc_samples (run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb,"
      " num_threads) VALUES ";
  for (int row = 0; row < count; ++row) {
    if (row > 0) sql += ", ";
    sql += "(";
    for (int col = 0; col < 8; ++col) {
      if (col > 0) sql += ", ";
      sql += "$" + std::to_string(row * 8 + col + 1);
    }
    sql += ")";
  }
  return sql;
}

Params& AddSample(Params& params, const Sample& s) {
  return params.Int64(s.run_id)
      .Int64(s.t_ms)
      .Int64(s.pid)
      .Int64(s.utime)
      .Int64(s.stime)
      .Double(s.cpu_pct)
      .Int64(s.rss_kb)
      .Int64(s.num_threads);
}

Status InsertBatch(Connection& connection, int first, int count) {
  static const std::string kFull = MultiRowInsert(kBatch);
  const std::string sql = count == kBatch ? kFull : MultiRowInsert(count);
  Params params;
  for (int k = first; k < first + count; ++k) AddSample(params, MakeSample(k));
  auto inserted = connection.Query(sql, params, "inserting samples");
  if (!inserted) return inserted.error();
  return droidlab::store::OkStatus();
}

Status InsertRows(Connection& connection, int first, int count) {
  for (int k = first; k < first + count; ++k) {
    Params params;
    AddSample(params, MakeSample(k));
    auto inserted = connection.Query(MultiRowInsert(1), params, "inserting a sample");
    if (!inserted) return inserted.error();
  }
  return droidlab::store::OkStatus();
}

// Rows per second writing `rows` rows in committed batches with `write`, into an empty table.
double Measure(Connection& connection, int rows,
               const std::function<Status(Connection&, int, int)>& write) {
  Check(connection.Execute("TRUNCATE proc_samples", "truncating"), "truncating");
  const auto started = std::chrono::steady_clock::now();
  for (int first = 0; first < rows; first += kBatch) {
    Transaction transaction(connection);
    Check(transaction.Begin(), "begin");
    Check(write(connection, first, std::min(kBatch, rows - first)), "writing a batch");
    Check(transaction.Commit(), "commit");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  auto count = connection.Query("SELECT count(*) FROM proc_samples", "counting");
  if (!count || count->Int64(0, 0).value() != rows) {
    std::fprintf(stderr, "wrong row count after a round\n");
    std::exit(1);
  }
  return rows / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int rows = 500000;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      rows = 20000;
      rounds = 1;
    } else if (arg == "--rows" && i + 1 < argc) {
      rows = std::atoi(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: pg_copy_bench [--quick] [--rows N] [--rounds R]\n");
      return 2;
    }
  }
  const auto starting = std::chrono::steady_clock::now();
  droidlab::testutil::PgServer server;
  const double start_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - starting)
          .count();
  auto opened = Connection::Open(server.CreateDatabase("bench"));
  Check(opened ? droidlab::store::OkStatus() : Status(opened.error()), "connecting");
  Connection connection = std::move(opened).value();
  auto migrated = droidlab::store::pg::MigratePostgres(connection);
  Check(migrated ? droidlab::store::OkStatus() : Status(migrated.error()), "migrating");

  double copy = 0;
  double multi = 0;
  double single = 0;
  for (int round = 0; round < rounds; ++round) {
    copy = std::max(copy, Measure(connection, rows, CopyBatch));
    multi = std::max(multi, Measure(connection, rows, InsertBatch));
    // One row per statement is slow: a tenth of the rows says enough.
    single = std::max(single, Measure(connection, std::max(kBatch, rows / 10), InsertRows));
  }
  std::printf("server started (initdb + postgres) in %.0f ms\n", start_ms);
  std::printf("proc_samples, %d rows in batches of %d, best of %d:\n", rows, kBatch, rounds);
  std::printf("  COPY (ours, CopyIn)          %10.0f rows/s\n", copy);
  std::printf("  multi-row INSERT, bound      %10.0f rows/s   COPY / this = %.2f\n", multi,
              copy / multi);
  std::printf("  INSERT per row               %10.0f rows/s   COPY / this = %.2f\n", single,
              copy / single);
  return 0;
}
