// A logcat stream at a high noise rate through adb::Client::StreamLines, beside
// `adb -P PORT -s SERIAL logcat …` as a process whose stdout goes to a pipe this benchmark reads
// and discards, in one run against one real adb server on a private port and one devsim device
// whose scenario sets `noise_lines_per_s`.
//
//   adb_logcat_bench [--quick] [--seconds T] [--rate LINES_PER_S]
//
// `logcat -T 1` (from now on) for T seconds, ours then the reference: MB/s and lines/s delivered.
// devsim makes the lines at RATE/s (default 400,000: at 50,000 both sides deliver exactly what
// devsim makes, so the device is the limit and the ratio is 1); the devsim CPU printed beside
// says how busy it was. devsim emits one shell packet per line and sends the next WRTE when the
// server OKAYs the last, so under load its lines arrive batched up to 1 MiB per message.
// No `logcat -d` figure: devsim sends a whole dump as one shell packet (23 MB for a full ring
// buffer), which adb::Client rejects as over adbd's 1 MiB shell packet size (kProtocol).
// --quick: T = 1 s. Without adb or devsim: says why and exits 0.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adb/client.h"
#include "bench/bench_lab.h"

namespace {

namespace asio = boost::asio;
namespace adb = droidlab::adb;
namespace bench = droidlab::bench;
using bench::Clock;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

struct Run {
  double bytes = 0, lines = 0, seconds = 0;
  double cpu_us = 0;         // this process
  double devsim_cpu_us = 0;  // the devsim process over the same time
  double server_cpu_us = 0;  // the adb server over the same time
  double client_cpu_us = -1;  // the reference: the `adb logcat` process itself
  bool ok = false;
  double MBps() const { return seconds > 0 ? bytes / 1e6 / seconds : 0; }
  double LinesPerS() const { return seconds > 0 ? lines / seconds : 0; }
};

// `adb … logcat ARGS` with stdout to a pipe read here and discarded; until EOF or `for_s`.
Run AdbLogcat(const bench::AdbLab& lab, const std::string& serial,
              const std::vector<std::string>& logcat_args, double for_s) {
  Run run;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return run;
  std::vector<std::string> args = {"-s", serial, "logcat"};
  args.insert(args.end(), logcat_args.begin(), logcat_args.end());
  const double devsim_before = bench::ProcessCpuMicros(lab.devsim_pid());
  const double server_before = bench::ProcessCpuMicros(lab.server_pid());
  const auto start = Clock::now();
  const pid_t pid = bench::Spawn(lab.AdbArgv(args), out[1]);
  ::close(out[1]);
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(for_s));
  std::vector<char> buffer(1 << 16);
  bool eof = false;
  while (pid > 0 && Clock::now() < end) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    pollfd pfd{out[0], POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(std::max<int64_t>(1, left.count()))) <= 0) continue;
    const ssize_t n = ::read(out[0], buffer.data(), buffer.size());
    if (n <= 0) {
      eof = true;
      break;
    }
    run.bytes += static_cast<double>(n);
    run.lines += static_cast<double>(std::count(buffer.data(), buffer.data() + n, '\n'));
  }
  run.seconds = bench::MsSince(start) / 1000;
  run.devsim_cpu_us = bench::ProcessCpuMicros(lab.devsim_pid()) - devsim_before;
  run.server_cpu_us = bench::ProcessCpuMicros(lab.server_pid()) - server_before;
  if (pid > 0) {
    if (!eof) ::kill(pid, SIGTERM);
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    run.client_cpu_us =
        static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    run.ok = eof ? WIFEXITED(status) && WEXITSTATUS(status) == 0 : true;
  }
  ::close(out[0]);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  long rate = 400000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      seconds = 1;
    } else if (arg == "--seconds" && i + 1 < argc) {
      seconds = std::max(0.2, std::atof(argv[++i]));
    } else if (arg == "--rate" && i + 1 < argc) {
      rate = std::clamp(std::atol(argv[++i]), 1L, 1000000L);
    } else {
      std::fprintf(stderr, "usage: adb_logcat_bench [--quick] [--seconds T] [--rate N]\n");
      return 2;
    }
  }
  char scenario_path[] = "/tmp/adb_logcat_bench_XXXXXX.json";
  const int scenario_fd = ::mkstemps(scenario_path, 5);
  if (scenario_fd < 0) return 1;
  const std::string scenario = "{\"noise_lines_per_s\": " + std::to_string(rate) + "}\n";
  const bool written = ::write(scenario_fd, scenario.data(), scenario.size()) ==
                       static_cast<ssize_t>(scenario.size());
  ::close(scenario_fd);
  if (!written) return 1;
  auto lab = bench::AdbLab::Start({.adb = kAdb, .devsim = kDevsim, .count = 1,
                                   .devsim_args = {"--fast", "--scenario", scenario_path}});
  ::unlink(scenario_path);  // devsim has read it once it listens
  if (!lab) {
    std::printf("adb_logcat_bench: %s\n", lab.why.c_str());
    return lab.skipped ? 0 : 1;
  }
  const std::string serial = lab->serials().front();
  const pid_t devsim = lab->devsim_pid();
  const pid_t server = lab->server_pid();

  asio::io_context io(1);
  adb::ClientOptions options;
  options.server.port = static_cast<uint16_t>(lab->port());
  options.adb_path = kAdb;
  adb::Client client(io.get_executor(), options);
  const auto adb_serial = *adb::Serial::Parse(serial);

  // Through adb::Client: until the stream ends or, when for_s > 0, for for_s seconds.
  auto ours = [&](const std::vector<std::string>& argv_, double for_s) -> asio::awaitable<Run> {
    Run run;
    const auto command = *adb::BuildShellCommand(argv_);
    const double devsim_before = bench::ProcessCpuMicros(devsim);
    const double server_before = bench::ProcessCpuMicros(server);
    const double cpu_before = bench::CpuMicros();
    const auto start = Clock::now();
    const auto end = for_s > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(for_s))
                               : Clock::time_point::max();
    adb::LineSink sink = [&](std::string_view line) -> asio::awaitable<bool> {
      run.bytes += static_cast<double>(line.size() + 1);
      run.lines += 1;
      co_return Clock::now() < end;
    };
    // The sink stops a follow; the deadline only guards against a stream that goes quiet.
    const auto deadline =
        adb::DeadlineAfter(std::chrono::seconds(static_cast<int>(for_s > 0 ? for_s : 60) + 5));
    auto r = co_await client.StreamLines(adb_serial, command, sink, deadline);
    run.seconds = bench::MsSince(start) / 1000;
    run.cpu_us = bench::CpuMicros() - cpu_before;
    run.devsim_cpu_us = bench::ProcessCpuMicros(devsim) - devsim_before;
    run.server_cpu_us = bench::ProcessCpuMicros(server) - server_before;
    run.ok = r.ok() && (for_s > 0 ? r->stopped_by_sink : r->exit_code == 0);
    if (!r.ok()) {
      std::fprintf(stderr, "adb_logcat_bench: ours: %s %s\n",
                   std::string(adb::ErrcName(r.error().code)).c_str(),
                   r.error().message.c_str());
    }
    co_return run;
  };

  Run follow_ours, follow_ref;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // Warm-up: features cached.
        std::vector<std::string> warm = {"logcat", "-d", "-t", "10"};
        co_await ours(warm, 0);
        std::vector<std::string> follow = {"logcat", "-T", "1"};
        follow_ours = co_await ours(follow, seconds);
        follow_ref = AdbLogcat(*lab.lab, serial, {"-T", "1"}, seconds);
      },
      [](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "adb_logcat_bench: the benchmark loop threw\n");
      });
  io.run();
  const int port = lab->port();
  lab.lab.reset();

  auto line = [](const char* name, const Run& r) {
    const double s = r.seconds > 0 ? r.seconds : 1;
    std::printf("  %-20s %7.2f MB/s  %8.0f lines/s  %6.1f MB in %.2f s  CPU: devsim %3.0f%%, "
                "adb server %3.0f%%%s\n",
                name, r.MBps(), r.LinesPerS(), r.bytes / 1e6, r.seconds,
                r.devsim_cpu_us / 1e4 / s, r.server_cpu_us / 1e4 / s, r.ok ? "" : "  FAILED");
  };
  std::printf("adb_logcat_bench: devsim noise_lines_per_s=%ld, adb server on port %d, %s\n", rate,
              port, serial.c_str());
  std::printf(" follow `logcat -T 1` for %.1f s:\n", seconds);
  line("ours (StreamLines)", follow_ours);
  line("adb logcat > pipe", follow_ref);
  std::printf("  ours / adb = %.2fx; client CPU per 1,000 lines: ours %.0f us (this process, "
              "%.0f%% of a core), adb logcat %.0f us (%.0f%%)\n",
              follow_ours.MBps() / follow_ref.MBps(),
              follow_ours.lines > 0 ? follow_ours.cpu_us / follow_ours.lines * 1000 : 0.0,
              follow_ours.seconds > 0 ? follow_ours.cpu_us / 1e4 / follow_ours.seconds : 0.0,
              follow_ref.lines > 0 ? follow_ref.client_cpu_us / follow_ref.lines * 1000 : 0.0,
              follow_ref.seconds > 0 ? follow_ref.client_cpu_us / 1e4 / follow_ref.seconds : 0.0);
  const bool ok = follow_ours.ok && follow_ref.ok;
  return ok ? 0 : 1;
}
