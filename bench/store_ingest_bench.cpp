// Ingest of looper-stats rows through the store's public API (Store::AddLooperStats: the
// writer thread, its bounded queue, batched commits, savepoint per task) against the floor: a
// minimal program doing one reused prepared INSERT of the same rows inside one transaction, into
// the same table with the same indexes (the table is made by the same embedded migration), with
// the same pragmas (WAL, synchronous=NORMAL). Same run, same machine, same rows.
//
//   store_ingest_bench [--quick] [--rows N] [--chunk N]
//   (--quick: 50,000 rows instead of 1,000,000; --chunk: rows per AddLooperStats call, default
//   1,500, one dump's worth)
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/looper_rows.h"
#include "schema/migrations.h"
#include "store/store.h"

namespace {

using droidlab::store::LooperStatsRow;
using Clock = std::chrono::steady_clock;
using droidlab::bench::GenerateRows;


void Check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "reference: %s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

template <class T>
void BindOpt(sqlite3_stmt* st, int i, const std::optional<T>& v) {
  if (!v) {
    sqlite3_bind_null(st, i);
  } else if constexpr (std::is_same_v<T, std::string>) {
    sqlite3_bind_text(st, i, v->data(), static_cast<int>(v->size()), SQLITE_STATIC);
  } else {
    sqlite3_bind_int64(st, i, static_cast<int64_t>(*v));
  }
}

// The floor: the same table (from the same migration), one prepared INSERT, one transaction.
double RunReference(const std::string& path, const std::vector<LooperStatsRow>& rows) {
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db), db, "open");
  Check(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nullptr, nullptr,
                     nullptr),
        db, "pragmas");
  const std::string schema(droidlab::schema::Migrations()[0].sql);
  Check(sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr), db, "schema");
  sqlite3_stmt* st = nullptr;
  Check(sqlite3_prepare_v2(db,
                           "INSERT INTO looper_stats (run_id, work_source_uid, package, uid,"
                           " is_app, thread_name, handler_class, message_name, is_interactive,"
                           " message_count, recorded_message_count, total_latency_micros,"
                           " max_latency_micros, total_cpu_micros, max_cpu_micros,"
                           " recorded_delay_message_count, total_delay_millis, max_delay_millis,"
                           " exception_count, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                           " ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, nullptr),
        db, "prepare");
  const auto start = Clock::now();
  Check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin");
  for (const LooperStatsRow& r : rows) {
    sqlite3_bind_int64(st, 1, r.run_id);
    sqlite3_bind_text(st, 2, r.work_source_uid.data(), static_cast<int>(r.work_source_uid.size()),
                      SQLITE_STATIC);
    BindOpt(st, 3, r.package);
    BindOpt(st, 4, r.uid);
    sqlite3_bind_int64(st, 5, r.is_app ? 1 : 0);
    BindOpt(st, 6, r.thread_name);
    BindOpt(st, 7, r.handler_class);
    BindOpt(st, 8, r.message_name);
    BindOpt(st, 9, r.is_interactive);
    BindOpt(st, 10, r.message_count);
    BindOpt(st, 11, r.recorded_message_count);
    BindOpt(st, 12, r.total_latency_micros);
    BindOpt(st, 13, r.max_latency_micros);
    BindOpt(st, 14, r.total_cpu_micros);
    BindOpt(st, 15, r.max_cpu_micros);
    BindOpt(st, 16, r.recorded_delay_message_count);
    BindOpt(st, 17, r.total_delay_millis);
    BindOpt(st, 18, r.max_delay_millis);
    BindOpt(st, 19, r.exception_count);
    BindOpt(st, 20, r.extra_json);
    Check(sqlite3_step(st), db, "insert");
    sqlite3_reset(st);
  }
  Check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  sqlite3_finalize(st);
  sqlite3_close(db);
  return seconds;
}

double RunStore(const std::string& path, const std::vector<LooperStatsRow>& rows, size_t chunk) {
  droidlab::store::StoreOptions options;
  options.path = path;
  auto store = droidlab::store::Store::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "store: %s\n", store.error().message.c_str());
    std::exit(1);
  }
  const auto start = Clock::now();
  for (size_t i = 0; i < rows.size(); i += chunk) {
    const size_t end = std::min(rows.size(), i + chunk);
    // The caller hands over owned rows (as LooperStatsRowsFromDump makes them): the copy is
    // part of our cost.
    std::vector<LooperStatsRow> batch(rows.begin() + static_cast<std::ptrdiff_t>(i),
                                      rows.begin() + static_cast<std::ptrdiff_t>(end));
    if (auto s = (*store)->AddLooperStats(std::move(batch)); !s.ok()) {
      std::fprintf(stderr, "store: %s\n", s.error().message.c_str());
      std::exit(1);
    }
  }
  if (auto s = (*store)->Flush(); !s.ok()) {
    std::fprintf(stderr, "store: %s\n", s.error().message.c_str());
    std::exit(1);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const auto stats = (*store)->stats();
  std::printf("store: %llu batches committed, %llu lost\n",
              static_cast<unsigned long long>(stats.batches_committed),
              static_cast<unsigned long long>(stats.batches_lost));
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 1'000'000;
  size_t chunk = 1'500;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      count = 50'000;
    } else if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
      count = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
      chunk = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: store_ingest_bench [--quick] [--rows N] [--chunk N]\n");
      return 2;
    }
  }
  if (chunk == 0) chunk = 1;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("droidlab_ingest_bench." + std::to_string(getpid()));
  fs::create_directories(dir);
  const auto rows = GenerateRows(count, 1);

  const double ours = RunStore((dir / "store.db").string(), rows, chunk);
  const double reference = RunReference((dir / "reference.db").string(), rows);
  fs::remove_all(dir);

  const double ours_rate = static_cast<double>(count) / ours;
  const double reference_rate = static_cast<double>(count) / reference;
  std::printf("rows: %zu, %zu per AddLooperStats call\n", count, chunk);
  std::printf("store (public API, writer thread, batched): %.0f rows/s (%.3f s)\n", ours_rate, ours);
  std::printf("reference (one prepared INSERT, one transaction): %.0f rows/s (%.3f s)\n",
              reference_rate, reference);
  std::printf("ratio: %.2f (goal >= 0.80)\n", ours_rate / reference_rate);
  return 0;
}
