// p99 of the API's read queries on a large history while the writer ingests.
//
// Builds a database of 100,000 runs and 10,000,000 launch rows (100 per run; 50 devices, 5
// models, 20 packages, a year of history), generated with one raw transaction for speed into
// the schema the store's migrations made. Then, with a thread pushing looper-stats rows through
// the store's writer as fast as it takes them, times each query through Store::Read:
//   - a run's launches (GET /runs/{id}/launches),
//   - the newest 50 runs of a device (GET /runs?serial=),
//   - a package's launch history over 30 days on one device model (~80 runs, ~8,000 launches
//     summarised per run),
//   - a series (GET /series, schema 0009's run_summaries): the nightly series of 10,000 runs —
//     10,000 more runs of one package on one model (20 launches each) beside the 100,000 — and
//     a package's series on one model (~1,000 points). Every run has its summary rows (three
//     metrics; made up, as the query's cost does not depend on the numbers).
// Goal: p99 < 5 ms for each; the 10,000-point series in milliseconds.
//
//   store_query_bench [--quick] [--rows N] [--queries N] [--ingest-rate N] [--keep PATH]
//   (--quick: 200,000 launch rows; --rows: launch rows, runs = rows / 100; --ingest-rate: looper
//   rows/s the writer is fed, default 20,000 — 50 devices sampling every 100 ms write ~1,000
//   records/s — and 0 for as fast as it takes them, which on a 2-core machine measures CPU
//   contention more than SQLite; --keep: build at PATH once and reuse it on later runs)
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"

namespace {

using namespace droidlab::store;  // NOLINT(google-build-using-namespace): a benchmark's main
using Clock = std::chrono::steady_clock;

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kLaunchesPerRun = 100;
constexpr int kDevices = 50;
constexpr int kModels = 5;
constexpr int kPackages = 20;
constexpr int64_t kEpoch = 1'750'000'000'000;  // ms: the start of the generated year
constexpr int64_t kNightlyRuns = 10'000;         // the long series
constexpr int64_t kNightlyLaunchesPerRun = 20;
const char* const kNightlyPackage = "com.bench.nightly";

std::string Serial(int i) { return "serial-" + std::to_string(i); }
std::string Model(int i) { return "model-" + std::to_string(i % kModels); }
std::string Package(int i) { return "com.bench.app" + std::to_string(i); }

void Check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "generate: %s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

void Generate(const std::string& path, int64_t runs) {
  {
    StoreOptions options;
    options.path = path;
    auto store = Store::Open(options);  // the schema, by the migrations
    if (!store.ok()) {
      std::fprintf(stderr, "%s\n", store.error().message.c_str());
      std::exit(1);
    }
  }
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db), db, "open");
  Check(sqlite3_exec(db, "PRAGMA synchronous=OFF; BEGIN", nullptr, nullptr, nullptr), db, "begin");
  sqlite3_stmt* run = nullptr;
  sqlite3_stmt* launch = nullptr;
  Check(sqlite3_prepare_v2(db,
                           "INSERT INTO runs (id, spec, serial, device_model, package, mode,"
                           " iterations, status, created_at, started_at, finished_at)"
                           " VALUES (?, '{}', ?, ?, ?, 'cold', 100, 'succeeded', ?, ?, ?)",
                           -1, &run, nullptr),
        db, "prepare runs");
  Check(sqlite3_prepare_v2(db,
                           "INSERT INTO launches (run_id, iteration, displayed_ms, total_time_ms,"
                           " wait_time_ms, launch_state, pid, intent_at_ms, fork_at_ms,"
                           " displayed_at_ms, valid) VALUES (?, ?, ?, ?, ?, 'COLD', ?, ?, ?, ?, ?)",
                           -1, &launch, nullptr),
        db, "prepare launches");
  std::mt19937_64 rng(42);
  const int64_t span = 365 * kDayMs;
  for (int64_t id = 1; id <= runs; ++id) {
    const int device = static_cast<int>(rng() % kDevices);
    const std::string serial = Serial(device);
    const std::string model = Model(device);
    const std::string package = Package(static_cast<int>(rng() % kPackages));
    const int64_t created = kEpoch + span * (id - 1) / runs;
    sqlite3_bind_int64(run, 1, id);
    sqlite3_bind_text(run, 2, serial.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 3, model.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 4, package.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_int64(run, 5, created);
    sqlite3_bind_int64(run, 6, created + 1000);
    sqlite3_bind_int64(run, 7, created + 120000);
    Check(sqlite3_step(run), db, "insert run");
    sqlite3_reset(run);
    for (int64_t i = 0; i < kLaunchesPerRun; ++i) {
      const int64_t displayed = 400 + static_cast<int64_t>(rng() % 400);
      const int64_t intent = 1'000'000 + i * 5000;
      sqlite3_bind_int64(launch, 1, id);
      sqlite3_bind_int64(launch, 2, i);
      sqlite3_bind_int64(launch, 3, displayed);
      sqlite3_bind_int64(launch, 4, displayed + 7);
      sqlite3_bind_int64(launch, 5, displayed + 12);
      sqlite3_bind_int64(launch, 6, 20000 + i);
      sqlite3_bind_int64(launch, 7, intent);
      sqlite3_bind_int64(launch, 8, intent + 45);
      sqlite3_bind_int64(launch, 9, intent + displayed);
      sqlite3_bind_int64(launch, 10, rng() % 50 == 0 ? 0 : 1);
      Check(sqlite3_step(launch), db, "insert launch");
      sqlite3_reset(launch);
    }
  }
  // The nightly series: one package on model-0, cold, a run every ~53 minutes over the year.
  const std::string nightly_model = Model(0);
  for (int64_t n = 0; n < kNightlyRuns; ++n) {
    const int64_t id = runs + 1 + n;
    const int64_t created = kEpoch + span * n / kNightlyRuns + 1;
    sqlite3_bind_int64(run, 1, id);
    sqlite3_bind_text(run, 2, "serial-nightly", -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 3, nightly_model.c_str(), -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 4, kNightlyPackage, -1, SQLITE_STATIC);
    sqlite3_bind_int64(run, 5, created);
    sqlite3_bind_int64(run, 6, created + 1000);
    sqlite3_bind_int64(run, 7, created + 30000);
    Check(sqlite3_step(run), db, "insert nightly run");
    sqlite3_reset(run);
    for (int64_t i = 0; i < kNightlyLaunchesPerRun; ++i) {
      const int64_t displayed = 500 + static_cast<int64_t>(rng() % 100);
      const int64_t intent = 1'000'000 + i * 5000;
      sqlite3_bind_int64(launch, 1, id);
      sqlite3_bind_int64(launch, 2, i);
      sqlite3_bind_int64(launch, 3, displayed);
      sqlite3_bind_int64(launch, 4, displayed + 7);
      sqlite3_bind_int64(launch, 5, displayed + 12);
      sqlite3_bind_int64(launch, 6, 20000 + i);
      sqlite3_bind_int64(launch, 7, intent);
      sqlite3_bind_int64(launch, 8, intent + 45);
      sqlite3_bind_int64(launch, 9, intent + displayed);
      sqlite3_bind_int64(launch, 10, 1);
      Check(sqlite3_step(launch), db, "insert nightly launch");
      sqlite3_reset(launch);
    }
  }
  // Every run's summaries, as the daemon stores them at a run's end (three metrics a run).
  for (const char* metric : {"displayed_ms", "fully_drawn_ms", "total_time_ms"}) {
    sqlite3_stmt* summaries = nullptr;
    Check(sqlite3_prepare_v2(
              db,
              "INSERT INTO run_summaries (package, device_model, mode, metric, t, run_id, count,"
              " median, p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation)"
              " SELECT package, coalesce(device_model, ''), mode, ?1, created_at, id, 98,"
              " 590.0 + id % 20, 700.0 + id % 20, 575.0 + id % 20, 605.0 + id % 20, NULL,"
              " 1000 + id / 10000, 'google/bench/bench:14/UQ1A/' || (id / 20000) || ':user',"
              " 'speed-profile' FROM runs ORDER BY id",
              -1, &summaries, nullptr),
          db, "prepare summaries");
    sqlite3_bind_text(summaries, 1, metric, -1, SQLITE_STATIC);
    Check(sqlite3_step(summaries), db, "insert summaries");
    sqlite3_finalize(summaries);
  }
  Check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  sqlite3_finalize(run);
  sqlite3_finalize(launch);
  sqlite3_close(db);
}

// This thread's CPU time (Store::Read runs the query on the calling thread): what a query costs
// when it does not wait for a core, on a machine where other work competes for both.
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timings {
  std::vector<double> ms;
  std::vector<double> cpu_ms;
  size_t rows = 0;
  void Print(const char* name) {
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
    auto at = [](const std::vector<double>& v, double q) {
      return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
    };
    std::printf("%-44s n=%zu p50=%.3f ms p99=%.3f ms max=%.3f ms cpu p50=%.3f ms (%.0f rows/query)\n",
                name, ms.size(), at(ms, 0.50), at(ms, 0.99), ms.back(), at(cpu_ms, 0.50),
                static_cast<double>(rows) / static_cast<double>(ms.size()));
  }
};

template <class F>
void Time(Timings& t, F&& f) {
  const double cpu = ThreadCpuMs();
  const auto start = Clock::now();
  t.rows += f();
  t.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  t.cpu_ms.push_back(ThreadCpuMs() - cpu);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 10'000'000;
  int queries = 2000;
  int64_t ingest_rate = 20'000;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      rows = 200'000;
      queries = 300;
    } else if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
      rows = std::strtoll(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--queries") == 0 && i + 1 < argc) {
      queries = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--ingest-rate") == 0 && i + 1 < argc) {
      ingest_rate = std::strtoll(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
      keep = argv[++i];
    } else {
      std::fprintf(stderr, "usage: store_query_bench [--quick] [--rows N] [--queries N] [--ingest-rate N] [--keep PATH]\n");
      return 2;
    }
  }
  const int64_t runs = std::max<int64_t>(1, rows / kLaunchesPerRun);
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("droidlab_query_bench." + std::to_string(getpid()));
  std::string path = keep;
  if (path.empty()) {
    fs::create_directories(dir);
    path = (dir / "query.db").string();
  }
  if (!fs::exists(path)) {
    const auto start = Clock::now();
    Generate(path, runs);
    std::printf("generated %lld runs (+%lld nightly), %lld launches (+%lld), their summaries in %.1f s\n",
                static_cast<long long>(runs), static_cast<long long>(kNightlyRuns),
                static_cast<long long>(runs * kLaunchesPerRun),
                static_cast<long long>(kNightlyRuns * kNightlyLaunchesPerRun),
                std::chrono::duration<double>(Clock::now() - start).count());
  }

  StoreOptions options;
  options.path = path;
  options.reader_connections = 2;
  auto opened = Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.error().message.c_str());
    return 1;
  }
  Store& store = **opened;

  // The writer ingests the whole time: looper rows of the newest run, a dump at a time.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> ingested{0};
  const auto began = Clock::now();
  std::thread ingest([&] {
    while (!stop) {
      if (ingest_rate > 0) {
        const auto due = began + std::chrono::microseconds(ingested.load() * 1'000'000 / ingest_rate);
        std::this_thread::sleep_until(due);
      }
      std::vector<LooperStatsRow> dump(1500);
      for (auto& row : dump) {
        row.run_id = runs;
        row.work_source_uid = "com.bench.app1/u0a201";
        row.package = "com.bench.app1";
        row.thread_name = "android.ui";
        row.handler_class = "android.view.Choreographer$FrameHandler";
        row.message_count = 10;
      }
      if (!store.AddLooperStats(std::move(dump)).ok()) return;
      ingested += 1500;
    }
  });

  std::mt19937_64 rng(7);
  Timings launches, newest, history, nightly, package_series;
  const int64_t end = kEpoch + 365 * kDayMs;
  const auto start = Clock::now();
  for (int q = 0; q < queries; ++q) {
    const int64_t run_id = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(runs));
    Time(launches, [&] { return store.Read([&](Reader& r) { return r.ListLaunches(run_id); })->size(); });
    RunQuery query;
    query.serial = Serial(static_cast<int>(rng() % kDevices));
    query.limit = 50;
    Time(newest, [&] { return store.Read([&](Reader& r) { return r.ListRuns(query); })->runs.size(); });
    LaunchHistoryQuery h;
    h.package = Package(static_cast<int>(rng() % kPackages));
    h.since = end - 30 * kDayMs;
    h.device_model = Model(static_cast<int>(rng() % kModels));
    Time(history, [&] { return store.Read([&](Reader& r) { return r.LaunchHistory(h); })->size(); });
    SeriesQuery long_series;
    long_series.package = kNightlyPackage;
    long_series.device_model = Model(0);
    long_series.mode = "cold";
    long_series.metric = "displayed_ms";
    Time(nightly, [&] { return store.Read([&](Reader& r) { return r.Series(long_series); })->size(); });
    SeriesQuery one;
    one.package = Package(static_cast<int>(rng() % kPackages));
    one.device_model = Model(static_cast<int>(rng() % kModels));
    one.mode = "cold";
    one.metric = "displayed_ms";
    Time(package_series, [&] { return store.Read([&](Reader& r) { return r.Series(one); })->size(); });
  }
  stop = true;
  ingest.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  (void)start;
  (void)store.Flush();

  std::printf("database: %lld + %lld nightly runs, %lld launches; writer ingesting throughout (%s)\n",
              static_cast<long long>(runs), static_cast<long long>(kNightlyRuns),
              static_cast<long long>(runs * kLaunchesPerRun + kNightlyRuns * kNightlyLaunchesPerRun),
              ingest_rate > 0 ? ("fed " + std::to_string(ingest_rate) + " rows/s").c_str()
                              : "fed as fast as it takes");
  launches.Print("a run's launches");
  newest.Print("newest 50 runs of a device");
  history.Print("package launch history, 30 days, one model");
  nightly.Print("series, 10,000 points (GET /series)");
  package_series.Print("series of a package on one model");
  std::printf("writer meanwhile: %.0f looper rows/s committed\n",
              static_cast<double>(ingested.load()) / seconds);
  opened->reset();
  if (keep.empty()) fs::remove_all(dir);
  return 0;
}
