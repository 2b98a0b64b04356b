// The lab at scale: N devsim devices (default 50) through one real adb server, each running one
// cold run of I iterations (default 20) with /proc sampling every 100 ms and looper stats,
// all at once through the daemon's own parts (adb::Client, RunQueue, ExecuteRun, Store) on one
// io_context thread, as `droidlab serve` wires them. devsim answers `am start -W` after its
// simulated WaitTime (no --fast), so the runs take the time real launches take.
//
//   run_scale_bench [--quick] [--devices N] [--iterations I]
//
// Prints the daemon side's CPU (this process: io thread, store writer and readers) as % of one
// core over the wall time, its peak RSS, runs/s and launches/s, and whether every launch the
// runs reported was stored (zero lost). Beside it, measured over the same window: the adb
// server's and devsim's CPU, and the ratio of ours to the adb server's — the part of the lab's
// cost that is droidlab's. Goals (issue 5): < 25 % of one core, < 100 MiB RSS.
// --quick: 3 devices, 2 iterations. Without adb or devsim: says why and exits 0.
#include <sys/resource.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "adb/client.h"
#include "bench/bench_lab.h"
#include "orchestrator/run/run_executor.h"
#include "orchestrator/lab/run_queue.h"
#include "store/store.h"

namespace {

namespace asio = boost::asio;
namespace bench = droidlab::bench;
namespace orchestrator = droidlab::orchestrator;
namespace store = droidlab::store;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

double PeakRssMiB() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 50;
  int iterations = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      devices = 3;
      iterations = 2;
    } else if (arg == "--devices" && i + 1 < argc) {
      devices = std::atoi(argv[++i]);
    } else if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: run_scale_bench [--quick] [--devices N] [--iterations I]\n");
      return 2;
    }
  }

  bench::AdbLab::Options lab_options;
  lab_options.adb = kAdb;
  lab_options.devsim = kDevsim;
  lab_options.count = devices;
  lab_options.ready_timeout = std::chrono::seconds(60);
  auto lab = bench::AdbLab::Start(lab_options);
  if (!lab) {
    std::printf("run_scale_bench: %s\n", lab.why.c_str());
    return lab.skipped ? 0 : 1;
  }

  const std::string db =
      (std::filesystem::temp_directory_path() / ("run_scale_bench_" + std::to_string(::getpid()) +
                                                 ".db"))
          .string();
  store::StoreOptions store_options;
  store_options.path = db;
  auto opened = store::Store::Open(store_options);
  if (!opened) {
    std::printf("run_scale_bench: %s\n", opened.error().message.c_str());
    return 1;
  }
  std::unique_ptr<store::Store> st = std::move(opened).value();

  asio::io_context io(1);
  droidlab::adb::ClientOptions client_options;
  client_options.server.port = static_cast<uint16_t>(lab->port());
  client_options.adb_path = kAdb;
  droidlab::adb::Client client(io.get_executor(), client_options);

  orchestrator::RunQueueOptions queue_options;
  const bool verbose = std::getenv("RUN_SCALE_BENCH_VERBOSE") != nullptr;
  auto log = [verbose](std::string_view line) {
    if (verbose) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  queue_options.log = log;
  queue_options.executor.log = log;
  store::Store& store_ref = *st;
  orchestrator::RunQueue queue(
      *st,
      [&](int64_t id, orchestrator::RunSpec spec, orchestrator::RunExecutorOptions options) {
        return orchestrator::ExecuteRun(client, store_ref, id, std::move(spec), std::move(options));
      },
      queue_options);

  std::map<int64_t, store::RunStatus> finished;
  std::map<int64_t, std::string> errors;
  queue.Subscribe([&](const orchestrator::RunEvent& e) {
    if (store::IsFinished(e.status)) {
      finished[e.run_id] = e.status;
      if (e.error) errors[e.run_id] = *e.error;
    }
  });
  asio::cancellation_signal stop_queue;
  bool queue_ended = false;
  asio::co_spawn(io, queue.Run(),
                 asio::bind_cancellation_slot(stop_queue.slot(),
                                              [&](std::exception_ptr) { queue_ended = true; }));

  const double cpu0 = bench::CpuMicros();
  const double server0 = bench::ProcessCpuMicros(lab->server_pid());
  const double devsim0 = bench::ProcessCpuMicros(lab->devsim_pid());
  const auto start = bench::Clock::now();

  int submitted = 0;
  auto submit = [&](orchestrator::RunSpec spec) -> asio::awaitable<void> {
    std::optional<std::string> model = "Pixel 7";  // named: g++ 12 and co_await temporaries
    auto run = co_await queue.Submit(std::move(spec), std::move(model), std::nullopt);
    if (run) ++submitted;
  };
  for (const std::string& serial : lab->serials()) {
    orchestrator::RunSpec spec;
    spec.serial = serial;
    spec.package = "com.example.app";
    spec.activity = ".MainActivity";
    spec.mode = orchestrator::LaunchMode::kCold;
    spec.iterations = iterations;
    spec.proc_sample_interval_ms = 100;
    spec.looper_sampling_interval = 1;
    asio::co_spawn(io, submit(std::move(spec)), [](std::exception_ptr) {});
  }
  while (finished.size() < lab->serials().size()) {
    if (io.run_one_for(std::chrono::seconds(120)) == 0) break;
  }
  const double wall_ms = bench::MsSince(start);
  const double cpu_us = bench::CpuMicros() - cpu0;
  const double server_us = bench::ProcessCpuMicros(lab->server_pid()) - server0;
  const double devsim_us = bench::ProcessCpuMicros(lab->devsim_pid()) - devsim0;

  stop_queue.emit(asio::cancellation_type::terminal);
  while (!queue_ended && io.run_one_for(std::chrono::seconds(10)) > 0) {
  }
  st->Flush();

  int64_t launches = 0, valid = 0, samples = 0, looper_rows = 0;
  int succeeded = 0;
  for (const auto& [id, status] : finished) {
    if (status == store::RunStatus::kSucceeded) ++succeeded;
    auto l = st->Read([id = id](store::Reader& r) { return r.ListLaunches(id); });
    if (l) {
      launches += static_cast<int64_t>(l->size());
      for (const auto& launch : *l) valid += launch.valid ? 1 : 0;
    }
    auto p = st->Read([id = id](store::Reader& r) { return r.ListProcSamples(id); });
    if (p) samples += static_cast<int64_t>(p->size());
    auto s = st->Read([id = id](store::Reader& r) { return r.ListLooperStats(id); });
    if (s) looper_rows += static_cast<int64_t>(s->size());
  }
  const int64_t expected = static_cast<int64_t>(devices) * iterations;
  const double cpu_pct = 100.0 * cpu_us / (wall_ms * 1000.0);
  const double server_pct = 100.0 * server_us / (wall_ms * 1000.0);

  std::printf("run_scale_bench: %d devices x %d cold iterations, proc sampling 100 ms, looper stats\n",
              devices, iterations);
  std::printf("  runs:      %d submitted, %zu finished, %d succeeded in %.1f s (%.2f runs/s, %.1f launches/s)\n",
              submitted, finished.size(), succeeded, wall_ms / 1000.0,
              1000.0 * static_cast<double>(finished.size()) / wall_ms,
              1000.0 * static_cast<double>(launches) / wall_ms);
  std::printf("  stored:    %lld of %lld launches (%lld valid, %lld lost), %lld proc samples, %lld looper rows\n",
              static_cast<long long>(launches), static_cast<long long>(expected),
              static_cast<long long>(valid), static_cast<long long>(expected - launches),
              static_cast<long long>(samples), static_cast<long long>(looper_rows));
  std::printf("  droidlab:  %.1f %% of one core (goal < 25 %%), peak RSS %.1f MiB (goal < 100 MiB), %.0f us CPU per launch\n",
              cpu_pct, PeakRssMiB(), launches > 0 ? cpu_us / static_cast<double>(launches) : 0.0);
  std::printf("  reference: adb server %.1f %% of one core, devsim %.1f %%; droidlab/adb server = %.2f\n",
              server_pct, 100.0 * devsim_us / (wall_ms * 1000.0),
              server_us > 0 ? cpu_us / server_us : 0.0);
  for (const auto& [id, error] : errors) {
    std::printf("  run %lld: %s\n", static_cast<long long>(id), error.c_str());
  }
  st.reset();
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  const bool ok = static_cast<int64_t>(finished.size()) == devices && launches == expected;
  return ok ? 0 : 1;
}
