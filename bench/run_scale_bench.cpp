// The lab at scale: N devsim devices (default 50) through one real adb server, each running one
// cold run of I iterations (default 20) with /proc sampling every 100 ms and looper stats,
// all at once through the daemon's own parts (adb::Client, RunQueue, ExecuteRun, Store) on one
// io_context thread, as `droidlab serve` wires them. devsim answers `am start -W` after its
// simulated WaitTime (no --fast), so the runs take the time real launches take.
//
//   run_scale_bench [--quick] [--devices N] [--iterations I] [--only stream|per-sample|none]
//
// Three rounds on the same lab, one after the other (issue 17 §4): the runs sampling /proc the
// daemon's way, one long-lived shell per run streaming frames (proc_sampler.h,
// RunProcStreamSampler), then the reference, one `adb shell cat /proc/PID/stat` per sample
// (RunProcSampler, what droidlab did before), then the same runs without sampling (the run's own
// commands alone: what the phones' processes for sampling are counted against). Each round prints
// the daemon side's CPU (this process: io thread, store writer and readers) and the adb server's,
// both as % of one core over the round's wall time, and their sum (the goal: < 50 % at 200 phones);
// devsim's (the phones' stand-in); droidlab's peak RSS in the round (VmHWM, reset between rounds
// through /proc/self/clear_refs); runs/s; whether every launch the runs reported was stored (zero
// lost); the adb commands droidlab sent; and what it cost the phones: the processes their shells
// started in the round (`devsim-stats`: one per shell service adbd forks, per command that is
// not a builtin) per proc sample, beyond those of the round without sampling. Last, the ratios
// stream / per-sample.
// --quick: 3 devices, 2 iterations. Without adb or devsim: says why and exits 0.
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adb/client.h"
#include "bench/bench_lab.h"
#include "orchestrator/lab/run_queue.h"
#include "orchestrator/run/run_executor.h"
#include "store/store.h"

namespace {

namespace asio = boost::asio;
namespace bench = droidlab::bench;
namespace orchestrator = droidlab::orchestrator;
namespace store = droidlab::store;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

// This process's peak RSS since the last ResetPeakRss (VmHWM), in MiB; getrusage's ru_maxrss
// cannot be reset between rounds.
double PeakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  }
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// proc(5): writing 5 to clear_refs resets the peak RSS to the current RSS (Linux 4.0+).
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

struct Round {
  const char* name = "";
  double wall_ms = 0;
  double cpu_pct = 0, server_pct = 0, devsim_pct = 0;
  double peak_rss_mib = 0;
  double cpu_us = 0;
  size_t finished = 0;
  int succeeded = 0, submitted = 0;
  int64_t launches = 0, valid = 0, expected = 0, samples = 0, looper_rows = 0;
  int64_t adb_commands = 0;
  // Of them, the per-sample sampler's (`cat /proc/…`, `pidof …`): the round's commands beyond
  // those of the round without sampling, whose runs send the same commands otherwise. 0 for the
  // other rounds.
  int64_t sampling_commands = 0;
  int64_t phone_processes = 0;
  double server_us = 0;
  std::map<int64_t, std::string> errors;
};

// The processes every phone's shells have started so far, summed (`devsim-stats`); -1 when a
// phone did not answer.
int64_t PhoneProcesses(asio::io_context& io, droidlab::adb::Client& client,
                       const std::vector<std::string>& serials) {
  int64_t total = 0;
  size_t answered = 0;
  std::vector<std::string> unanswered;
  auto ask = [&](std::string serial) -> asio::awaitable<void> {
    const std::vector<std::string> argv{"devsim-stats"};
    auto parsed = droidlab::adb::Serial::Parse(serial);
    if (!parsed) co_return;
    const droidlab::adb::Serial checked = *parsed;
    auto asking = client.ShellArgv(checked, argv,
                                   droidlab::adb::DeadlineAfter(std::chrono::seconds(30)));
    auto r = co_await std::move(asking);
    const std::string_view key = "processes_started ";
    const size_t at = r ? r->out.find(key) : std::string::npos;
    if (at == std::string::npos) {
      unanswered.push_back(serial);
      co_return;
    }
    total += std::atoll(r->out.c_str() + at + key.size());
    ++answered;
  };
  // In batches of 20: 200 shells at once through one adb server time some out.
  std::vector<std::string> asking_now = serials;
  for (int attempt = 0; attempt < 3 && !asking_now.empty(); ++attempt) {
    unanswered.clear();
    for (size_t from = 0; from < asking_now.size(); from += 20) {
      size_t done = 0;
      const size_t to = std::min(asking_now.size(), from + 20);
      for (size_t i = from; i < to; ++i) {
        asio::co_spawn(io, ask(asking_now[i]), [&](std::exception_ptr) { ++done; });
      }
      io.restart();
      while (done < to - from) {
        if (io.run_one_for(std::chrono::seconds(60)) == 0) break;
      }
    }
    asking_now = unanswered;
  }
  if (answered != serials.size()) {
    std::fprintf(stderr, "run_scale_bench: %zu of %zu phones answered devsim-stats\n", answered,
                 serials.size());
    return -1;
  }
  return total;
}

struct CommandCounts {
  int64_t all = 0;
};

// `sampling` nullopt: the runs sample no /proc.
Round RunRound(const char* name,
               std::optional<orchestrator::RunExecutorOptions::ProcSampling> sampling,
               bench::AdbLab& lab, asio::io_context& io, droidlab::adb::Client& client,
               store::Store& st, const CommandCounts& commands, int iterations, bool verbose) {
  Round round;
  round.name = name;
  orchestrator::RunQueueOptions queue_options;
  auto log = [verbose](std::string_view line) {
    if (verbose) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  queue_options.log = log;
  queue_options.executor.log = log;
  if (sampling) queue_options.executor.proc_sampling = *sampling;
  orchestrator::RunQueue queue(
      st,
      [&](int64_t id, orchestrator::RunSpec spec, orchestrator::RunExecutorOptions options) {
        return orchestrator::ExecuteRun(client, st, id, std::move(spec), std::move(options));
      },
      queue_options);

  std::map<int64_t, store::RunStatus> finished;
  queue.Subscribe([&](const orchestrator::RunEvent& e) {
    if (store::IsFinished(e.status)) {
      finished[e.run_id] = e.status;
      if (e.error) round.errors[e.run_id] = *e.error;
    }
  });
  asio::cancellation_signal stop_queue;
  bool queue_ended = false;
  asio::co_spawn(io, queue.Run(),
                 asio::bind_cancellation_slot(stop_queue.slot(),
                                              [&](std::exception_ptr) { queue_ended = true; }));

  io.restart();  // the previous round may have run it out of work, which stops it
  const int64_t phone0 = PhoneProcesses(io, client, lab.serials());
  io.restart();
  ResetPeakRss();
  const CommandCounts commands0 = commands;
  const double cpu0 = bench::CpuMicros();
  const double server0 = bench::ProcessCpuMicros(lab.server_pid());
  const double devsim0 = bench::ProcessCpuMicros(lab.devsim_pid());
  const auto start = bench::Clock::now();

  auto submit = [&](orchestrator::RunSpec spec) -> asio::awaitable<void> {
    std::optional<std::string> model = "Pixel 7";  // named: g++ 12 and co_await temporaries
    auto run = co_await queue.Submit(std::move(spec), std::move(model), std::nullopt);
    if (run) ++round.submitted;
  };
  for (const std::string& serial : lab.serials()) {
    orchestrator::RunSpec spec;
    spec.serial = serial;
    spec.package = "com.example.app";
    spec.activity = ".MainActivity";
    spec.mode = orchestrator::LaunchMode::kCold;
    spec.iterations = iterations;
    if (sampling) spec.proc_sample_interval_ms = 100;
    spec.looper_sampling_interval = 1;
    asio::co_spawn(io, submit(std::move(spec)), [](std::exception_ptr) {});
  }
  while (finished.size() < lab.serials().size()) {
    if (io.run_one_for(std::chrono::seconds(120)) == 0) break;
  }
  round.wall_ms = bench::MsSince(start);
  round.cpu_us = bench::CpuMicros() - cpu0;
  const double server_us = bench::ProcessCpuMicros(lab.server_pid()) - server0;
  const double devsim_us = bench::ProcessCpuMicros(lab.devsim_pid()) - devsim0;
  round.peak_rss_mib = PeakRssMiB();
  round.adb_commands = commands.all - commands0.all;
  round.server_us = server_us;

  stop_queue.emit(asio::cancellation_type::terminal);
  while (!queue_ended && io.run_one_for(std::chrono::seconds(10)) > 0) {
  }
  io.restart();
  const int64_t phone1 = PhoneProcesses(io, client, lab.serials());
  // Each phone's second reading counts the first one's shell and devsim-stats: not the round's.
  round.phone_processes = phone0 < 0 || phone1 < 0
                              ? -1
                              : phone1 - phone0 - 2 * static_cast<int64_t>(lab.serials().size());
  st.Flush();

  for (const auto& [id, status] : finished) {
    if (status == store::RunStatus::kSucceeded) ++round.succeeded;
    auto l = st.Read([id = id](store::Reader& r) { return r.ListLaunches(id); });
    if (l) {
      round.launches += static_cast<int64_t>(l->size());
      for (const auto& launch : *l) round.valid += launch.valid ? 1 : 0;
    }
    auto p = st.Read([id = id](store::Reader& r) { return r.ListProcSamples(id); });
    if (p) round.samples += static_cast<int64_t>(p->size());
    auto s = st.Read([id = id](store::Reader& r) { return r.ListLooperStats(id); });
    if (s) round.looper_rows += static_cast<int64_t>(s->size());
  }
  round.finished = finished.size();
  round.expected = static_cast<int64_t>(lab.serials().size()) * iterations;
  round.cpu_pct = 100.0 * round.cpu_us / (round.wall_ms * 1000.0);
  round.server_pct = 100.0 * server_us / (round.wall_ms * 1000.0);
  round.devsim_pct = 100.0 * devsim_us / (round.wall_ms * 1000.0);
  return round;
}

// The phones' processes that sampling cost, per sample: all of the round's minus those of the
// same runs without sampling (`unsampled`: the run's own commands — a joined one costs the phone
// adbd's shell and each of its commands — and the logcat streams).
double SamplingProcessesPerSample(const Round& r, const Round& unsampled) {
  if (r.samples <= 0 || r.phone_processes < 0 || unsampled.phone_processes < 0) return 0.0;
  return static_cast<double>(r.phone_processes - unsampled.phone_processes) /
         static_cast<double>(r.samples);
}

void PrintRound(const Round& r) {
  std::printf("  %s:\n", r.name);
  std::printf("    runs:      %d submitted, %zu finished, %d succeeded in %.1f s (%.2f runs/s, %.1f launches/s)\n",
              r.submitted, r.finished, r.succeeded, r.wall_ms / 1000.0,
              1000.0 * static_cast<double>(r.finished) / r.wall_ms,
              1000.0 * static_cast<double>(r.launches) / r.wall_ms);
  std::printf("    stored:    %lld of %lld launches (%lld valid, %lld lost), %lld proc samples (%.0f/s), %lld looper rows\n",
              static_cast<long long>(r.launches), static_cast<long long>(r.expected),
              static_cast<long long>(r.valid), static_cast<long long>(r.expected - r.launches),
              static_cast<long long>(r.samples), 1000.0 * static_cast<double>(r.samples) / r.wall_ms,
              static_cast<long long>(r.looper_rows));
  std::printf("    droidlab:  %.1f %% of one core, peak RSS %.1f MiB (goal < 200 MiB), %.0f us CPU per launch, %lld adb commands\n",
              r.cpu_pct, r.peak_rss_mib,
              r.launches > 0 ? r.cpu_us / static_cast<double>(r.launches) : 0.0,
              static_cast<long long>(r.adb_commands));
  std::printf("    adb server %.1f %%; droidlab + adb server = %.1f %% of one core (goal < 50 %%); devsim %.1f %%\n",
              r.server_pct, r.cpu_pct + r.server_pct, r.devsim_pct);
  std::printf("    together:  droidlab + adb server %.1f s of CPU, %.2f ms per launch\n",
              (r.cpu_us + r.server_us) / 1e6,
              r.launches > 0 ? (r.cpu_us + r.server_us) / 1000.0 / static_cast<double>(r.launches)
                             : 0.0);
  std::printf("    phones:    %lld processes started by their shells\n",
              static_cast<long long>(r.phone_processes));
  for (const auto& [id, error] : r.errors) {
    std::printf("    run %lld: %s\n", static_cast<long long>(id), error.c_str());
  }
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

int main(int argc, char** argv) {
  int devices = 50;
  int iterations = 20;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      devices = 3;
      iterations = 2;
    } else if (arg == "--devices" && i + 1 < argc) {
      devices = std::atoi(argv[++i]);
    } else if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: run_scale_bench [--quick] [--devices N] [--iterations I] "
                   "[--only stream|per-sample|none]\n");
      return 2;
    }
  }

  bench::AdbLab::Options lab_options;
  lab_options.adb = kAdb;
  lab_options.devsim = kDevsim;
  lab_options.count = devices;
  lab_options.ready_timeout = std::chrono::seconds(120);
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
  CommandCounts commands;
  // Every finished command but streams (the stream sampler's shell is not one of them).
  client_options.on_command = [&commands](std::string_view, auto, bool) { ++commands.all; };
  droidlab::adb::Client client(io.get_executor(), client_options);
  const bool verbose = std::getenv("RUN_SCALE_BENCH_VERBOSE") != nullptr;

  std::printf("run_scale_bench: %d devices x %d cold iterations, proc sampling 100 ms, looper stats\n",
              devices, iterations);
  using Sampling = orchestrator::RunExecutorOptions::ProcSampling;
  std::vector<Round> rounds;
  if (only.empty() || only == "stream") {
    rounds.push_back(RunRound("stream (one shell per run, the daemon's)", Sampling::kStream, *lab.lab,
                              io, client, *st, commands, iterations, verbose));
    PrintRound(rounds.back());
  }
  if (only.empty() || only == "per-sample") {
    rounds.push_back(RunRound("per-sample (one adb shell per sample, the reference)",
                              Sampling::kCommandPerSample, *lab.lab, io, client, *st, commands,
                              iterations, verbose));
    PrintRound(rounds.back());
  }
  if (only.empty() || only == "none") {
    rounds.push_back(RunRound("none (no proc sampling: the run's own commands alone)", std::nullopt,
                              *lab.lab, io, client, *st, commands, iterations, verbose));
    PrintRound(rounds.back());
  }
  if (rounds.size() == 3) {
    Round& n = rounds[0];
    Round& o = rounds[1];
    const Round& none = rounds[2];
    o.sampling_commands = o.adb_commands - none.adb_commands;
    std::printf(
        "  phones: processes started for sampling per proc sample (beyond the round "
        "without sampling): stream %.2f, per-sample %.2f (%lld of its %lld commands)\n",
        SamplingProcessesPerSample(n, none), SamplingProcessesPerSample(o, none),
        static_cast<long long>(o.sampling_commands), static_cast<long long>(o.adb_commands));
    std::printf(
        "  stream / per-sample: droidlab + adb server %% of a core %.2f (droidlab %.2f, adb server "
        "%.2f), "
        "their CPU per launch %.2f, wall time %.2f, peak RSS %.2f, adb commands %.3f, "
        "the phones' processes for sampling per sample %.2f, devsim CPU %.2f\n",
        Ratio(n.cpu_pct + n.server_pct, o.cpu_pct + o.server_pct), Ratio(n.cpu_pct, o.cpu_pct),
        Ratio(n.server_pct, o.server_pct),
        Ratio((n.cpu_us + n.server_us) / static_cast<double>(n.launches),
              (o.cpu_us + o.server_us) / static_cast<double>(o.launches)),
        Ratio(n.wall_ms, o.wall_ms), Ratio(n.peak_rss_mib, o.peak_rss_mib),
        Ratio(static_cast<double>(n.adb_commands), static_cast<double>(o.adb_commands)),
        Ratio(SamplingProcessesPerSample(n, none), SamplingProcessesPerSample(o, none)),
        Ratio(n.devsim_pct, o.devsim_pct));
  }
  st.reset();
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  bool ok = true;
  for (const Round& r : rounds) {
    ok = ok && static_cast<int64_t>(r.finished) == devices && r.launches == r.expected;
  }
  return ok ? 0 : 1;
}
