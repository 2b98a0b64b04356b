// `shell echo hi` latency through adb::Client, beside (a) `adb -P PORT -s SERIAL shell echo hi`
// run as a process and (b) a minimal blocking raw-socket client of the smart-socket protocol,
// all in the same run against one real adb server on a private port and one droidlab-devsim
// device, both started (and stopped) here.
//
//   adb_shell_bench [--quick] [--iterations N]
//
// Prints median and p99 of each, and the ratios. Goals: ours within 1.2x of (b); at least 7x
// faster than (a). --quick: 50 iterations (a CI smoke run). Without adb or devsim: says why and
// exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "adb/client.h"
#include "bench/bench_lab.h"

namespace {

namespace asio = boost::asio;
using droidlab::bench::Clock;
using droidlab::bench::CpuMicros;
using droidlab::bench::MsSince;
using droidlab::bench::Spawn;
using droidlab::bench::Stats;
using droidlab::bench::Summarize;
using droidlab::bench::Wait;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

// --- (b) the reference: blocking sockets, nothing else -------------------------------------

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool ReadExactly(int fd, char* out, size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, out, n);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::string Frame(std::string_view service) {
  char length[8];
  std::snprintf(length, sizeof length, "%04zx", service.size());
  return length + std::string(service);
}

bool RawShellEchoHi(int port, const std::string& serial) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  char status[4];
  ok = ok && WriteAll(fd, Frame("host:transport:" + serial)) && ReadExactly(fd, status, 4) &&
       std::memcmp(status, "OKAY", 4) == 0;
  ok = ok && WriteAll(fd, Frame("shell,v2,raw:echo hi")) && ReadExactly(fd, status, 4) &&
       std::memcmp(status, "OKAY", 4) == 0;
  size_t total = 0;
  char buffer[4096];
  for (ssize_t n; ok && (n = ::read(fd, buffer, sizeof buffer)) > 0;) total += n;
  ::close(fd);
  // stdout packet "hi\n" (5 + 3) and exit packet (5 + 1).
  return ok && total == 14;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 500;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      iterations = 50;
    } else if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::max(10, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: adb_shell_bench [--quick] [--iterations N]\n");
      return 2;
    }
  }
  auto lab = droidlab::bench::AdbLab::Start({.adb = kAdb, .devsim = kDevsim, .count = 1,
                                              .devsim_args = {"--fast"}});
  if (!lab) {
    std::printf("adb_shell_bench: %s\n", lab.why.c_str());
    return lab.skipped ? 0 : 1;
  }
  const int port = lab->port();
  const std::string serial = lab->serials().front();

  asio::io_context io(1);  // one thread runs it, as in the daemon: no scheduler locking
  droidlab::adb::ClientOptions options;
  options.server.port = static_cast<uint16_t>(port);
  options.adb_path = kAdb;
  droidlab::adb::Client client(io.get_executor(), options);
  const auto adb_serial = *droidlab::adb::Serial::Parse(serial);
  const auto command = *droidlab::adb::BuildShellCommand({"echo", "hi"});
  int ours_failures = 0;
  // One io_context run for the whole benchmark, as in the daemon: the loop lives in a coroutine
  // and the references (blocking) are called from it between our commands.
  auto ours_once = [&]() -> asio::awaitable<double> {
    const auto start = Clock::now();
    auto r = co_await client.Shell(adb_serial, command,
                                   droidlab::adb::DeadlineAfter(std::chrono::seconds(5)));
    const double ms = MsSince(start);
    if (!(r.ok() && r->out == "hi\n" && r->exit_code == 0)) ++ours_failures;
    co_return ms;
  };
  int raw_failures = 0;
  auto raw_once = [&]() -> double {
    const auto start = Clock::now();
    if (!RawShellEchoHi(port, serial)) ++raw_failures;
    return MsSince(start);
  };
  int adb_failures = 0;
  const std::vector<std::string> adb_argv = {kAdb, "-P", std::to_string(port), "-s", serial,
                                             "shell", "echo", "hi"};
  auto adb_once = [&]() -> double {
    const auto start = Clock::now();
    const pid_t pid = Spawn(adb_argv, -1);
    if (pid < 0 || Wait(pid) != 0) ++adb_failures;
    return MsSince(start);
  };

  std::vector<double> ours, raw, adb;
  double ours_cpu = 0, raw_cpu = 0;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 20; ++i) {  // warm-up: features cached, server and devsim paths hot
          co_await ours_once();
          raw_once();
          adb_once();
        }
        ours_failures = raw_failures = adb_failures = 0;
        // Interleaved, so drift in the machine's load hits all three alike.
        for (int i = 0; i < iterations; ++i) {
          double cpu = CpuMicros();
          ours.push_back(co_await ours_once());
          double now = CpuMicros();
          ours_cpu += now - cpu;
          raw.push_back(raw_once());
          cpu = CpuMicros();
          raw_cpu += cpu - now;
          adb.push_back(adb_once());
        }
      },
      [](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "adb_shell_bench: the benchmark loop threw\n");
      });
  io.run();
  lab.lab.reset();  // stops devsim and the adb server

  const Stats o = Summarize(ours), r = Summarize(raw), a = Summarize(adb);
  std::printf("adb_shell_bench: `shell echo hi`, %d iterations each, adb server on port %d, "
              "devsim %s\n",
              iterations, port, serial.c_str());
  std::printf("  ours (adb::Client)      median %.3f ms  p99 %.3f ms  failures %d\n", o.median_ms,
              o.p99_ms, ours_failures);
  std::printf("  (b) raw socket client   median %.3f ms  p99 %.3f ms  failures %d\n", r.median_ms,
              r.p99_ms, raw_failures);
  std::printf("  (a) adb shell process   median %.3f ms  p99 %.3f ms  failures %d\n", a.median_ms,
              a.p99_ms, adb_failures);
  std::printf("  CPU in this process per command: ours %.0f us, raw %.0f us\n",
              ours_cpu / iterations, raw_cpu / iterations);
  std::printf("  ours / raw   = %.2fx  (goal <= 1.2)\n", o.median_ms / r.median_ms);
  std::printf("  adb / ours   = %.2fx  (goal >= 7)\n", a.median_ms / o.median_ms);
  return (ours_failures + raw_failures + adb_failures) == 0 ? 0 : 1;
}
