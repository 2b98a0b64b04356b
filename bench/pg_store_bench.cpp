// The PostgreSQL store's speed goals (issue 17 §1), on a server it starts
// (tests/common/pg_server.h: fsync off, so a commit costs no disk flush):
//
// 1. Ingest: looper-stats rows through the store's public API (Store::AddLooperStats: the writer
//    thread, its bounded queue, batches of 1,000 records each a transaction with a savepoint per
//    task, dumps waiting in the queue joined into one COPY) + Flush, against the floor: a minimal
//    libpq program doing one COPY of the same rows in one transaction, into the same table with
//    the same index. Same server, same rows, the table truncated before each; interleaved, best
//    of the rounds. Each round also measures the store with joining off (one COPY a call, the
//    writer before joined_looper_stats.h) for what joining gains, in the same round.
//    Goal: ours >= 0.8x the floor. Each round also prints the CPU seconds the server's backend
//    and this process used in each (from /proc, so a server on this machine only): the cost
//    apart from the machine's load, which moves the wall-clock ratio by ±0.2 on a shared host.
// 2. Queries: 100,000 runs and 10,000,000 launches (100 a run; 50 devices, 5 models, 20
//    packages, a year), 10,000 nightly runs of one package on one model (20 launches each) and
//    every run's summaries (three metrics), the shapes of store_query_bench. Then, with a thread
//    feeding the writer looper rows, p50 / p99 / max through Store::Read of: a run's launches,
//    the newest 50 runs of a device, a package's launch history (30 days, one model), the
//    10,000-point series and a package's series on one model. Goal: p99 < 10 ms for the API's
//    three history queries — a run's launches (GET /runs/{id}/launches), the newest runs of a
//    device (GET /runs) and a package's series on one model (GET /series, ~1,000 points). The
//    launch history (Reader::LaunchHistory) is served by no route, and the 10,000-point series
//    is GET /series at ten times a dashboard's size: both measured beside, without the goal.
//
//   pg_store_bench [--rows N] [--rounds R] [--chunk N] [--launches N] [--queries N]
//                  [--ingest-rate N] [--interleaved] [--url URL] [--only ingest|queries]
//   pg_store_bench --quick    (20,000 rows, one round, 200,000 launches, 200 queries: the smoke
//                              run, well under 20 s)
//
// --interleaved: the launches written as 50 phones write them, a launch of each of 50 runs in
// turn, and the summaries in time order, so that a run's rows lie on ~100 heap pages instead of
// 2 (store_query_bench's shape, and SQLite's: its WITHOUT ROWID tables keep a run's launches and
// a series together whatever the order of writing; a PostgreSQL heap keeps the order of writing).
// --url: a database of a server already running instead of one started here; its looper_stats
// are truncated, and it is seeded for the queries only when it has no runs yet, so a big
// history is built once and kept between runs (the started server's folder is removed at exit).
#include <libpq-fe.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/looper_rows.h"
#include "store/looper_stats_columns.h"
#include "store/store.h"
#include "tests/common/pg_server.h"

namespace {

using namespace droidlab::store;  // NOLINT(google-build-using-namespace): a benchmark's main
using Clock = std::chrono::steady_clock;
using droidlab::bench::GenerateRows;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "pg_store_bench: %s\n", what.c_str());
  std::exit(1);
}

// ---- A raw libpq connection: the reference program, and the seeding and truncating around the
// measured parts (nothing of store/ on this side).

class Raw {
 public:
  explicit Raw(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) Fail(std::string("connect: ") + PQerrorMessage(conn_));
  }
  ~Raw() { PQfinish(conn_); }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;

  void Exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const auto status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const std::string message = PQresultErrorMessage(r);
      PQclear(r);
      Fail(sql.substr(0, 60) + ": " + message);
    }
    PQclear(r);
  }
  int64_t Count(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
      const std::string message = PQresultErrorMessage(r);
      PQclear(r);
      Fail(sql + ": " + message);
    }
    const int64_t n = std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
    PQclear(r);
    return n;
  }

  // COPY's text format, as a minimal program writes it: fields joined by tabs, \N for NULL,
  // backslash / tab / newline / CR escaped; sent in ~64 KiB blocks.
  void BeginCopy(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) {
      const std::string message = PQresultErrorMessage(r);
      PQclear(r);
      Fail(sql.substr(0, 60) + ": " + message);
    }
    PQclear(r);
    buffer_.clear();
  }
  void Field(int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    buffer_.append(digits, end);
    buffer_ += '\t';
  }
  // The runs between the characters to escape appended whole, as CopyIn does: the floor is not
  // to be slowed by its formatting.
  void Field(const std::string& v) {
    const char* run = v.data();
    const char* const end = v.data() + v.size();
    for (const char* p = run; p != end; ++p) {
      const char c = *p;
      if (c != '\\' && c != '\t' && c != '\n' && c != '\r') continue;
      buffer_.append(run, p);
      buffer_ += '\\';
      buffer_ += c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
      run = p + 1;
    }
    buffer_.append(run, end);
    buffer_ += '\t';
  }
  void Field(bool v) { buffer_ += v ? "1\t" : "0\t"; }
  template <class T>
  void Field(const std::optional<T>& v) {
    if (v) {
      Field(*v);
    } else {
      buffer_ += "\\N\t";
    }
  }
  void EndRow() {
    buffer_.back() = '\n';
    if (buffer_.size() >= 64 * 1024) Send();
  }
  void FinishCopy() {
    Send();
    if (PQputCopyEnd(conn_, nullptr) != 1) Fail(std::string("copy end: ") + PQerrorMessage(conn_));
    PGresult* r = PQgetResult(conn_);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
      const std::string message = PQresultErrorMessage(r);
      PQclear(r);
      Fail("copy: " + message);
    }
    PQclear(r);
    while ((r = PQgetResult(conn_)) != nullptr) PQclear(r);
  }

 private:
  void Send() {
    if (buffer_.empty()) return;
    if (PQputCopyData(conn_, buffer_.data(), static_cast<int>(buffer_.size())) != 1) {
      Fail(std::string("copy data: ") + PQerrorMessage(conn_));
    }
    buffer_.clear();
  }

  PGconn* conn_;
  std::string buffer_;
};

// --batch: the writer's batch_max_records (0: the store's default), to measure other sizes.
size_t g_batch_records = 0;

// join_max_records: the store's default, or 0 for the writer before dumps were joined (one COPY
// a call), measured beside it.
std::unique_ptr<Store> OpenStore(const std::string& url,
                                 size_t join_max_records = StoreOptions{}.join_max_records) {
  StoreOptions options;
  options.path = url;
  if (g_batch_records > 0) options.batch_max_records = g_batch_records;
  options.join_max_records = join_max_records;
  options.reader_connections = 2;
  auto store = Store::Open(options);
  if (!store.ok()) Fail("opening the store: " + store.error().message);
  return std::move(store).value();
}

// ---- 1. Ingest.

// CPU seconds a process has used (user + system) from /proc/PID/stat, so that a phase's cost can
// be told apart from the machine's load (wall-clock ratios swing with other builds); -1 when the
// server is not on this machine. `pid` 0: this process.
double CpuSeconds(int64_t pid) {
  const std::string path =
      pid == 0 ? std::string("/proc/self/stat") : "/proc/" + std::to_string(pid) + "/stat";
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return -1;
  char line[1024];
  const size_t n = std::fread(line, 1, sizeof line - 1, file);
  std::fclose(file);
  line[n] = '\0';
  // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
  const char* p = std::strrchr(line, ')');
  if (p == nullptr) return -1;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) !=
      2) {
    return -1;
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// One ingest: its wall time, and the CPU its server backend and this process used meanwhile.
struct IngestCost {
  double seconds = 0;
  double server_cpu = 0;
  double client_cpu = 0;
};

void CheckCount(Raw& raw, size_t rows) {
  if (raw.Count("SELECT count(*) FROM looper_stats") != static_cast<int64_t>(rows)) {
    Fail("looper_stats does not hold the rows written");
  }
}

// Seconds for the store to take `rows` in calls of `chunk` and have them committed.
IngestCost IngestThroughStore(Store& store, Raw& raw, const std::vector<LooperStatsRow>& rows,
                              size_t chunk) {
  raw.Exec("TRUNCATE looper_stats");
  const int64_t writer = raw.Count(
      "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name ="
      " 'droidlab-writer' AND datname = current_database()");
  const double server_before = CpuSeconds(writer);
  const double client_before = CpuSeconds(0);
  const auto start = Clock::now();
  for (size_t i = 0; i < rows.size(); i += chunk) {
    const size_t end = std::min(rows.size(), i + chunk);
    // The caller hands over owned rows (as LooperStatsRowsFromDump makes them): the copy is
    // part of our cost.
    std::vector<LooperStatsRow> batch(rows.begin() + static_cast<std::ptrdiff_t>(i),
                                      rows.begin() + static_cast<std::ptrdiff_t>(end));
    if (auto s = store.AddLooperStats(std::move(batch)); !s.ok()) Fail(s.error().message);
  }
  if (auto s = store.Flush(); !s.ok()) Fail(s.error().message);
  IngestCost cost{SecondsSince(start), CpuSeconds(writer) - server_before,
                  CpuSeconds(0) - client_before};
  CheckCount(raw, rows.size());
  return cost;
}

// The floor: the same rows, one COPY, one transaction, straight through libpq.
IngestCost IngestByCopy(Raw& raw, const std::vector<LooperStatsRow>& rows) {
  raw.Exec("TRUNCATE looper_stats");
  const int64_t backend = raw.Count("SELECT pg_backend_pid()");
  const double server_before = CpuSeconds(backend);
  const double client_before = CpuSeconds(0);
  std::string columns;
  ForEachLooperRowColumn([&](const auto& column, int index) {
    if (index > 0) columns += ", ";
    columns += column.name;
  });
  const auto start = Clock::now();
  raw.Exec("BEGIN");
  raw.BeginCopy("COPY looper_stats (" + columns + ") FROM STDIN");
  for (const LooperStatsRow& r : rows) {
    ForEachLooperRowColumn([&](const auto& column, int) { raw.Field(r.*column.member); });
    raw.EndRow();
  }
  raw.FinishCopy();
  raw.Exec("COMMIT");
  IngestCost cost{SecondsSince(start), CpuSeconds(backend) - server_before,
                  CpuSeconds(0) - client_before};
  CheckCount(raw, rows.size());
  return cost;
}

void BenchIngest(const std::string& url, size_t count, size_t chunk, int rounds) {
  const auto rows = GenerateRows(count, 1);
  Raw raw(url);
  StoreStats stats;
  StoreStats unjoined_stats;
  // Each store is open only for its own ingest, so that its writer is the one backend named
  // droidlab-writer whose CPU is read. The unjoined one is the same writer with joining off:
  // what each round gained, measured in the same round.
  auto ingest = [&](size_t join_max_records, StoreStats& kept) {
    auto store = OpenStore(url, join_max_records);
    const IngestCost cost = IngestThroughStore(*store, raw, rows, chunk);
    kept = store->stats();
    return cost;
  };
  double ours = 1e300;
  double before = 1e300;
  double floor = 1e300;
  for (int round = 0; round < rounds; ++round) {
    const IngestCost store_cost = ingest(StoreOptions{}.join_max_records, stats);
    const IngestCost unjoined_cost = ingest(0, unjoined_stats);
    const IngestCost copy_cost = IngestByCopy(raw, rows);
    const double o = store_cost.seconds;
    const double u = unjoined_cost.seconds;
    const double f = copy_cost.seconds;
    std::printf(
        "  round %d: store %.0f rows/s (one COPY a call: %.0f), libpq COPY %.0f rows/s, ratio %.2f"
        " (%.2f); CPU s (server backend / client process): store %.2f / %.2f (%.2f / %.2f),"
        " COPY %.2f / %.2f\n",
        round + 1, static_cast<double>(count) / o, static_cast<double>(count) / u,
        static_cast<double>(count) / f, f / o, f / u, store_cost.server_cpu, store_cost.client_cpu,
        unjoined_cost.server_cpu, unjoined_cost.client_cpu, copy_cost.server_cpu,
        copy_cost.client_cpu);
    ours = std::min(ours, o);
    before = std::min(before, u);
    floor = std::min(floor, f);
  }
  raw.Exec("TRUNCATE looper_stats");
  std::printf("ingest: %zu looper rows, %zu per AddLooperStats call, best of %d\n", count, chunk,
              rounds);
  std::printf("  store (public API, writer, dumps joined)         %10.0f rows/s (%.3f s)\n",
              static_cast<double>(count) / ours, ours);
  std::printf("  store, joining off (one COPY a call, as before)  %10.0f rows/s (%.3f s)\n",
              static_cast<double>(count) / before, before);
  std::printf("  minimal libpq, one COPY, one transaction         %10.0f rows/s (%.3f s)\n",
              static_cast<double>(count) / floor, floor);
  std::printf(
      "  ratio %.2f (goal >= 0.80; joining off %.2f); writer, last round: %llu batches"
      " committed, %llu lost, %llu dumps joined (joining off: %llu batches)\n",
      floor / ours, floor / before, static_cast<unsigned long long>(stats.batches_committed),
      static_cast<unsigned long long>(stats.batches_lost),
      static_cast<unsigned long long>(stats.writes_joined),
      static_cast<unsigned long long>(unjoined_stats.batches_committed));
}

// ---- 2. Queries.

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kLaunchesPerRun = 100;
constexpr int kDevices = 50;
constexpr int kModels = 5;
constexpr int kPackages = 20;
constexpr int64_t kEpoch = 1'750'000'000'000;  // ms: the start of the generated year
constexpr int64_t kNightlyRuns = 10'000;       // the long series
constexpr int64_t kNightlyLaunchesPerRun = 20;
const char* const kNightlyPackage = "com.bench.nightly";

std::string Serial(int i) { return "serial-" + std::to_string(i); }
std::string Model(int i) { return "model-" + std::to_string(i % kModels); }
std::string Package(int i) { return "com.bench.app" + std::to_string(i); }

// store_query_bench's history: the runs by COPY (their devices and packages drawn as there),
// the launches and summaries generated by the server from the runs (no client round trip per
// row: the fastest way to write 10 M rows; the runs' heap is in id order, so the launches reach
// their primary key in its order), then VACUUM ANALYZE, what autovacuum does to an
// insert-only table of this size.
void Seed(Raw& raw, int64_t runs, bool interleaved) {
  std::mt19937_64 rng(42);
  const int64_t span = 365 * kDayMs;
  raw.Exec("BEGIN");
  raw.BeginCopy(
      "COPY runs (id, spec, serial, device_model, package, mode, iterations, status, created_at,"
      " started_at, finished_at) FROM STDIN");
  auto run_row = [&](int64_t id, const std::string& serial, const std::string& model,
                     const std::string& package, int64_t created, int64_t duration) {
    raw.Field(id);
    raw.Field(std::string("{}"));
    raw.Field(serial);
    raw.Field(model);
    raw.Field(package);
    raw.Field(std::string("cold"));
    raw.Field(int64_t{100});
    raw.Field(std::string("succeeded"));
    raw.Field(created);
    raw.Field(created + 1000);
    raw.Field(created + duration);
    raw.EndRow();
  };
  for (int64_t id = 1; id <= runs; ++id) {
    const int device = static_cast<int>(rng() % kDevices);
    const std::string package = Package(static_cast<int>(rng() % kPackages));
    run_row(id, Serial(device), Model(device), package, kEpoch + span * (id - 1) / runs, 120000);
  }
  for (int64_t n = 0; n < kNightlyRuns; ++n) {
    run_row(runs + 1 + n, "serial-nightly", Model(0), kNightlyPackage,
            kEpoch + span * n / kNightlyRuns + 1, 30000);
  }
  raw.FinishCopy();
  // The identity continues after the ids given here (the writer's InsertRun would collide).
  raw.Exec("SELECT setval(pg_get_serial_sequence('runs', 'id'), max(id)) FROM runs");
  const std::string n = std::to_string(runs);
  // displayed_ms 400..799 (500..599 nightly) from a hash of the key; 1 launch in 50 invalid.
  raw.Exec(
      "INSERT INTO launches (run_id, iteration, displayed_ms, total_time_ms, wait_time_ms,"
      " launch_state, pid, intent_at_ms, fork_at_ms, displayed_at_ms, valid)"
      " SELECT id, i, d, d + 7, d + 12, 'COLD', 20000 + i, 1000000 + i * 5000,"
      " 1000000 + i * 5000 + 45, 1000000 + i * 5000 + d, v FROM ("
      " SELECT r.id, i, CASE WHEN r.id <= " +
      n +
      " THEN 400 + (r.id * 7919 + i * 104729) % 400 ELSE 500 + (r.id * 7919 + i * 104729) % 100"
      " END AS d, CASE WHEN r.id <= " +
      n +
      " AND (r.id * 31 + i * 17) % 50 = 0 THEN 0 ELSE 1 END AS v"
      " FROM runs AS r, generate_series(0, CASE WHEN r.id <= " +
      n + " THEN " + std::to_string(kLaunchesPerRun - 1) + " ELSE " +
      std::to_string(kNightlyLaunchesPerRun - 1) + " END) AS i" +
      (interleaved ? " ORDER BY CASE WHEN r.id <= " + n + " THEN (r.id - 1) / " +
                         std::to_string(kDevices) + " ELSE r.id END, i, r.id"
                   : std::string()) +
      ") AS l");
  // Interleaved: a run's three summaries are written at its end, in time order (one statement
  // per metric keeps the heap metric-major, but a series is then spread over the table as
  // after a year of runs).
  for (const char* metric : {"displayed_ms", "fully_drawn_ms", "total_time_ms"}) {
    raw.Exec(
        "INSERT INTO run_summaries (package, device_model, mode, metric, t, run_id, count,"
        " median, p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation)"
        " SELECT package, coalesce(device_model, ''), mode, '" +
        std::string(metric) +
        "', created_at, id, 98, 590.0 + id % 20, 700.0 + id % 20, 575.0 + id % 20,"
        " 605.0 + id % 20, NULL, 1000 + id / 10000,"
        " 'google/bench/bench:14/UQ1A/' || (id / 20000) || ':user', 'speed-profile'"
        " FROM runs ORDER BY " +
        (interleaved ? "created_at, id" : "id"));
  }
  raw.Exec("COMMIT");
  raw.Exec("VACUUM ANALYZE");
  // VACUUM marks a page all-visible (what an index-only scan needs to skip the heap) only if no
  // snapshot older than its rows is open, and the auto-analyze the seed's commit sets off holds
  // one: a VACUUM run beside it leaves a table unmarked, and nothing visits it again (no more
  // inserts), so its queries read the heap for the whole benchmark (a package's series: p50 6.1
  // against 3.9 ms, in three runs of three before this loop). In a lab autovacuum visits again
  // after each 1,000 summaries or 10,000 launches (schema 0015, 0021); here VACUUM again until
  // marked.
  const std::string unmarked =
      "SELECT count(*) FROM pg_class WHERE relname IN ('runs', 'launches', 'run_summaries')"
      " AND relallvisible < relpages";
  int again = 0;
  for (; again < 30 && raw.Count(unmarked) > 0; ++again) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    raw.Exec("VACUUM runs, launches, run_summaries");
  }
  if (again > 0) std::printf("VACUUMed %d more time(s) until all-visible\n", again);
  if (raw.Count(unmarked) > 0) {
    std::printf(
        "warning: pages of the history are not all-visible after 30 VACUUMs: the"
        " queries below read the heap\n");
  }
}

// This thread's CPU time (Store::Read runs the query on the calling thread; the server's share
// is in another process and not in it).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timings {
  std::vector<double> ms;
  std::vector<double> cpu_ms;
  size_t rows = 0;
  void Print(const char* name, double goal_ms) {
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
    auto at = [](const std::vector<double>& v, double q) {
      return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
    };
    const double p99 = at(ms, 0.99);
    std::printf(
        "  %-42s n=%zu p50=%.3f ms p99=%.3f ms max=%.3f ms client cpu p50=%.3f ms (%.0f rows)%s\n",
        name, ms.size(), at(ms, 0.50), p99, ms.back(), at(cpu_ms, 0.50),
        static_cast<double>(rows) / static_cast<double>(ms.size()),
        goal_ms <= 0    ? ""
        : p99 < goal_ms ? "  met"
                        : "  NOT MET");
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

template <class T>
T Value(StoreResult<T> result) {
  if (!result.ok()) Fail("query: " + result.error().message);
  return std::move(result).value();
}

void BenchQueries(const std::string& url, int64_t launches, int queries, int64_t ingest_rate,
                  bool interleaved) {
  const int64_t runs = std::max<int64_t>(1, launches / kLaunchesPerRun);
  auto store = OpenStore(url);  // migrates a new database: the schema the seed writes into
  {
    Raw raw(url);
    const int64_t have = raw.Count("SELECT count(*) FROM runs");
    if (have == 0) {
      const auto start = Clock::now();
      Seed(raw, runs, interleaved);
      std::printf("seeded %lld runs (+%lld nightly), %lld launches (+%lld), summaries in %.1f s\n",
                  static_cast<long long>(runs), static_cast<long long>(kNightlyRuns),
                  static_cast<long long>(runs * kLaunchesPerRun),
                  static_cast<long long>(kNightlyRuns * kNightlyLaunchesPerRun),
                  SecondsSince(start));
    } else if (have != runs + kNightlyRuns) {
      Fail("the database holds " + std::to_string(have) + " runs, not the " +
           std::to_string(runs + kNightlyRuns) + " asked for: seed a new one");
    }
  }

  // The writer ingests the whole time: looper rows of the newest run, a dump at a time.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> ingested{0};
  const auto began = Clock::now();
  std::thread ingest([&] {
    while (!stop) {
      if (ingest_rate > 0) {
        // Paced, in short sleeps so that the end of the queries stops it at once.
        const auto due =
            began + std::chrono::microseconds(ingested.load() * 1'000'000 / ingest_rate);
        while (!stop && Clock::now() < due) {
          std::this_thread::sleep_for(
              std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(10)));
        }
        if (stop) break;
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
      if (!store->AddLooperStats(std::move(dump)).ok()) return;
      ingested += 1500;
    }
  });

  std::mt19937_64 rng(7);
  Timings of_run, newest, history, nightly, package_series;
  const int64_t end = kEpoch + 365 * kDayMs;
  for (int q = 0; q < queries; ++q) {
    const int64_t run_id = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(runs));
    Time(of_run, [&] {
      return Value(store->Read([&](Reader& r) { return r.ListLaunches(run_id); })).size();
    });
    RunQuery query;
    query.serial = Serial(static_cast<int>(rng() % kDevices));
    query.limit = 50;
    Time(newest, [&] {
      return Value(store->Read([&](Reader& r) { return r.ListRuns(query); })).runs.size();
    });
    LaunchHistoryQuery h;
    h.package = Package(static_cast<int>(rng() % kPackages));
    h.since = end - 30 * kDayMs;
    h.device_model = Model(static_cast<int>(rng() % kModels));
    Time(history,
         [&] { return Value(store->Read([&](Reader& r) { return r.LaunchHistory(h); })).size(); });
    SeriesQuery long_series;
    long_series.package = kNightlyPackage;
    long_series.device_model = Model(0);
    long_series.mode = "cold";
    long_series.metric = "displayed_ms";
    Time(nightly, [&] {
      return Value(store->Read([&](Reader& r) { return r.Series(long_series); })).size();
    });
    SeriesQuery one;
    one.package = Package(static_cast<int>(rng() % kPackages));
    one.device_model = Model(static_cast<int>(rng() % kModels));
    one.mode = "cold";
    one.metric = "displayed_ms";
    Time(package_series,
         [&] { return Value(store->Read([&](Reader& r) { return r.Series(one); })).size(); });
  }
  stop = true;
  ingest.join();
  const double seconds = SecondsSince(began);
  if (auto s = store->Flush(); !s.ok()) Fail(s.error().message);

  std::printf(
      "queries: %lld + %lld nightly runs, %lld launches; writer fed %s meanwhile\n",
      static_cast<long long>(runs), static_cast<long long>(kNightlyRuns),
      static_cast<long long>(runs * kLaunchesPerRun + kNightlyRuns * kNightlyLaunchesPerRun),
      ingest_rate > 0 ? (std::to_string(ingest_rate) + " rows/s").c_str() : "as fast as it takes");
  constexpr double kGoalMs = 10;
  of_run.Print("a run's launches", kGoalMs);
  newest.Print("newest 50 runs of a device", kGoalMs);
  package_series.Print("series of a package on one model", kGoalMs);
  history.Print("package launch history, 30 days, one model", 0);
  nightly.Print("series, 10,000 points (Reader::Series)", 0);
  std::printf("  writer meanwhile: %.0f looper rows/s committed\n",
              static_cast<double>(ingested.load()) / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  size_t rows = 1'000'000;
  size_t chunk = 1'000;
  int rounds = 3;
  int64_t launches = 10'000'000;
  int queries = 2000;
  int64_t ingest_rate = 20'000;
  std::string url;
  std::string only;
  bool interleaved = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--quick") {
      rows = 20'000;
      rounds = 1;
      launches = 200'000;
      queries = 200;
    } else if (arg == "--rows" && has_value) {
      rows = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--rounds" && has_value) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--chunk" && has_value) {
      chunk = std::max<size_t>(1, std::strtoull(argv[++i], nullptr, 10));
    } else if (arg == "--launches" && has_value) {
      launches = std::strtoll(argv[++i], nullptr, 10);
    } else if (arg == "--queries" && has_value) {
      queries = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--ingest-rate" && has_value) {
      ingest_rate = std::strtoll(argv[++i], nullptr, 10);
    } else if (arg == "--batch" && has_value) {
      g_batch_records = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--interleaved") {
      interleaved = true;
    } else if (arg == "--url" && has_value) {
      url = argv[++i];
    } else if (arg == "--only" && has_value &&
               (std::strcmp(argv[i + 1], "ingest") == 0 ||
                std::strcmp(argv[i + 1], "queries") == 0)) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: pg_store_bench [--quick] [--rows N] [--rounds R] [--chunk N]"
                   " [--launches N] [--queries N] [--ingest-rate N] [--interleaved] [--url URL]"
                   " [--batch N]"
                   " [--only ingest|queries]\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each round as it ends, also into a file
  std::unique_ptr<droidlab::testutil::PgServer> server;
  std::string ingest_url = url;
  std::string query_url = url;
  if (url.empty()) {
    const auto start = Clock::now();
    server = std::make_unique<droidlab::testutil::PgServer>();
    ingest_url = server->CreateDatabase("ingest");
    query_url = server->CreateDatabase("queries");
    std::printf("server started (initdb + postgres) in %.0f ms\n", SecondsSince(start) * 1e3);
  }
  if (only != "queries") BenchIngest(ingest_url, rows, chunk, rounds);
  if (only != "ingest") BenchQueries(query_url, launches, queries, ingest_rate, interleaved);
  return 0;
}
