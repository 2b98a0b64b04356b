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
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adb/client.h"

extern char** environ;

namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// Starts argv; stdout to `stdout_fd` (or /dev/null when -1), stderr to /dev/null.
pid_t Spawn(const std::vector<std::string>& argv, int stdout_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int Wait(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs argv to completion; returns its stdout (or nullopt when it failed to run or exit 0).
std::optional<std::string> Capture(const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  const pid_t pid = Spawn(argv, out[1]);
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(out[0]);
  if (pid < 0 || Wait(pid) != 0) return std::nullopt;
  return text;
}

int Adb(int port, std::vector<std::string> args) {
  args.insert(args.begin(), {kAdb, "-P", std::to_string(port)});
  const pid_t pid = Spawn(args, -1);
  return pid < 0 ? -1 : Wait(pid);
}

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

// --- measurement -----------------------------------------------------------------------------

struct Stats {
  double median_ms = 0, p99_ms = 0;
};

Stats Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Stats s;
  s.median_ms = ms[ms.size() / 2];
  s.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  return s;
}

// This process's CPU time (user + system), in microseconds.
double CpuMicros() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
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
  if (kAdb.empty() || ::access(kAdb.c_str(), X_OK) != 0) {
    std::printf("adb_shell_bench: skipped: adb is not installed ('%s')\n", kAdb.c_str());
    return 0;
  }
  if (::access(kDevsim.c_str(), X_OK) != 0) {
    std::printf("adb_shell_bench: skipped: droidlab-devsim is not built (%s)\n", kDevsim.c_str());
    return 0;
  }

  const int port = FreeLoopbackPort();
  if (port <= 0 || Adb(port, {"start-server"}) != 0) {
    std::printf("adb_shell_bench: cannot start an adb server on port %d\n", port);
    Adb(port, {"kill-server"});
    return 1;
  }
  int devsim_out[2];
  if (::pipe2(devsim_out, O_CLOEXEC) != 0) return 1;
  const pid_t devsim = Spawn({kDevsim, "--port", "0", "--fast"}, devsim_out[1]);
  ::close(devsim_out[1]);
  std::string line;
  pollfd pfd{devsim_out[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && ::poll(&pfd, 1, 10000) > 0) {
    char c[256];
    const ssize_t n = ::read(devsim_out[0], c, sizeof c);
    if (n <= 0) break;
    line.append(c, n);
  }
  auto cleanup = [&] {
    if (devsim > 0) {
      ::kill(devsim, SIGTERM);
      Wait(devsim);
    }
    ::close(devsim_out[0]);
    Adb(port, {"kill-server"});
  };
  const size_t at = line.find("127.0.0.1:");
  if (devsim < 0 || at == std::string::npos) {
    std::printf("adb_shell_bench: devsim did not start\n");
    cleanup();
    return 1;
  }
  const std::string serial = line.substr(at, line.find(' ', at) - at);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {  // bounded: 10 s
    Adb(port, {"connect", serial});
    auto devices = Capture({kAdb, "-P", std::to_string(port), "devices"});
    ready = devices && devices->find(serial + "\tdevice") != std::string::npos;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!ready) {
    std::printf("adb_shell_bench: %s never became a device\n", serial.c_str());
    cleanup();
    return 1;
  }

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
  cleanup();

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
