// 100 devices through one real adb server, 100 commands in flight at once: `getprop
// ro.serialno` on every device concurrently through one adb::Client on one io_context thread,
// beside the same 100 commands as `adb -P PORT -s SERIAL shell getprop ro.serialno` processes
// (all 100 at once), rounds of the two interleaved, in one run against one adb server on a
// private port and one droidlab-devsim process with 100 devices (`--count 100 --fast`).
//
//   adb_fleet_bench [--quick] [--devices N] [--rounds R]
//
// Prints commands/s, p50/p99 latency (each command from its start to its result), this
// process's CPU per command through adb::Client (getrusage user+sys: the daemon-side cost), and
// the adb client processes' CPU per command (RUSAGE_CHILDREN). --quick: 10 devices, 3 rounds.
// Without adb or devsim: says why and exits 0.
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
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

double ChildrenCpuMicros() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct Side {
  std::vector<double> latency_ms;
  double wall_ms = 0;
  double cpu_us = 0;  // ours: this process; reference: the adb processes
  double server_us = 0, devsim_us = 0;  // the adb server's and devsim's CPU meanwhile
  int failures = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int devices = 100, rounds = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      devices = 10;
      rounds = 3;
    } else if (arg == "--devices" && i + 1 < argc) {
      devices = std::clamp(std::atoi(argv[++i]), 1, 500);
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: adb_fleet_bench [--quick] [--devices N] [--rounds R]\n");
      return 2;
    }
  }
  auto lab = bench::AdbLab::Start({.adb = kAdb, .devsim = kDevsim, .count = devices,
                                   .devsim_args = {"--fast"}});
  if (!lab) {
    std::printf("adb_fleet_bench: %s\n", lab.why.c_str());
    return lab.skipped ? 0 : 1;
  }
  const std::vector<std::string>& serials = lab->serials();
  const int port = lab->port();

  asio::io_context io(1);  // one thread runs it, as in the daemon
  adb::ClientOptions options;
  options.server.port = static_cast<uint16_t>(port);
  options.adb_path = kAdb;
  adb::Client client(io.get_executor(), options);
  std::vector<adb::Serial> adb_serials;
  for (const auto& s : serials) adb_serials.push_back(*adb::Serial::Parse(s));
  const auto command = *adb::BuildShellCommand({"getprop", "ro.serialno"});

  // What each device answered in the warm-up round: every later answer must be the same, and
  // the answers distinct (no cross-talk between devices).
  std::vector<std::string> expected(serials.size());
  bool distinct = true;

  // One round through adb::Client: every device's command started at once, all awaited.
  auto ours_round = [&](Side* side) -> asio::awaitable<void> {
    size_t remaining = adb_serials.size();
    asio::steady_timer all_done(io, Clock::time_point::max());
    const auto round_start = Clock::now();
    for (size_t i = 0; i < adb_serials.size(); ++i) {
      asio::co_spawn(
          io,
          [&, i]() -> asio::awaitable<void> {
            const auto start = Clock::now();
            auto r = co_await client.Shell(adb_serials[i], command,
                                           adb::DeadlineAfter(std::chrono::seconds(30)));
            const double ms = bench::MsSince(start);
            const bool ok = r.ok() && r->exit_code == 0 && !r->out.empty();
            if (side == nullptr) {
              if (ok) expected[i] = r->out;
            } else {
              side->latency_ms.push_back(ms);
              if (!ok || r->out != expected[i]) ++side->failures;
            }
            if (--remaining == 0) all_done.cancel();
          },
          asio::detached);
    }
    while (remaining > 0) co_await all_done.async_wait(asio::as_tuple(asio::use_awaitable));
    if (side != nullptr) side->wall_ms += bench::MsSince(round_start);
  };

  // One round of `adb shell` processes, all started at once, each reaped as it ends.
  std::vector<std::vector<std::string>> adb_argvs;
  for (const auto& s : serials) {
    adb_argvs.push_back(lab->AdbArgv({"-s", s, "shell", "getprop", "ro.serialno"}));
  }
  auto adb_round = [&](Side* side) {
    const double cpu_before = ChildrenCpuMicros();
    const auto round_start = Clock::now();
    std::map<pid_t, Clock::time_point> running;
    for (const auto& a : adb_argvs) {
      const auto start = Clock::now();
      const pid_t pid = bench::Spawn(a, -1);
      if (pid < 0) {
        if (side) ++side->failures;
        continue;
      }
      running.emplace(pid, start);
    }
    while (!running.empty()) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, 0);
      if (pid < 0) {
        if (errno == EINTR) continue;
        break;
      }
      const auto it = running.find(pid);
      if (it == running.end()) {  // devsim died: the round fails
        if (pid == lab->devsim_pid()) lab->DevsimReaped();
        if (side) ++side->failures;
        continue;
      }
      if (side) {
        side->latency_ms.push_back(bench::MsSince(it->second));
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++side->failures;
      }
      running.erase(it);
    }
    if (side) {
      side->wall_ms += bench::MsSince(round_start);
      side->cpu_us += ChildrenCpuMicros() - cpu_before;
    }
  };

  Side ours, ref;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // Warm-up: features cached, every path hot; the answers become the expected ones.
        co_await ours_round(nullptr);
        std::set<std::string> answers(expected.begin(), expected.end());
        distinct = answers.size() == expected.size() && !answers.contains("");
        co_await ours_round(nullptr);
        adb_round(nullptr);
        // Interleaved, so drift in the machine's load hits both alike.
        auto others = [&] {
          return std::pair(bench::ProcessCpuMicros(lab->server_pid()),
                           bench::ProcessCpuMicros(lab->devsim_pid()));
        };
        for (int r = 0; r < rounds; ++r) {
          const double cpu = bench::CpuMicros();
          auto before = others();
          co_await ours_round(&ours);
          ours.cpu_us += bench::CpuMicros() - cpu;
          auto after = others();
          ours.server_us += after.first - before.first;
          ours.devsim_us += after.second - before.second;
          adb_round(&ref);
          before = after;
          after = others();
          ref.server_us += after.first - before.first;
          ref.devsim_us += after.second - before.second;
        }
      },
      [](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "adb_fleet_bench: the benchmark loop threw\n");
      });
  io.run();
  const pid_t lab_server_pid = lab->server_pid();
  lab.lab.reset();  // stops devsim and the adb server

  const double commands = static_cast<double>(devices) * rounds;
  const auto o = bench::Summarize(ours.latency_ms), a = bench::Summarize(ref.latency_ms);
  const double ours_rate = commands / (ours.wall_ms / 1000);
  const double ref_rate = commands / (ref.wall_ms / 1000);
  std::printf("adb_fleet_bench: `shell getprop ro.serialno` on %d devsim devices at once, %d "
              "rounds (%.0f commands each), adb server on port %d\n",
              devices, rounds, commands, port);
  std::printf("  ours (adb::Client, 1 thread)  %7.0f commands/s  p50 %7.3f ms  p99 %7.3f ms  "
              "max %7.3f ms  failures %d\n",
              ours_rate, o.median_ms, o.p99_ms, o.max_ms, ours.failures);
  std::printf("  adb shell processes           %7.0f commands/s  p50 %7.3f ms  p99 %7.3f ms  "
              "max %7.3f ms  failures %d\n",
              ref_rate, a.median_ms, a.p99_ms, a.max_ms, ref.failures);
  std::printf("  CPU per command: ours %.0f us in this process (user+sys); adb processes %.0f us "
              "each\n",
              ours.cpu_us / commands, ref.cpu_us / commands);
  if (lab_server_pid > 0) {
    std::printf("  CPU per command elsewhere: adb server %.0f us (ours) / %.0f us (adb processes); "
                "devsim %.0f us / %.0f us\n",
                ours.server_us / commands, ref.server_us / commands, ours.devsim_us / commands,
                ref.devsim_us / commands);
    std::printf("  during our rounds the adb server was on a CPU %.0f%% of the time, devsim %.0f%%, "
                "this process %.0f%%\n",
                ours.server_us / (ours.wall_ms * 10), ours.devsim_us / (ours.wall_ms * 10),
                ours.cpu_us / (ours.wall_ms * 10));
  } else {
    std::printf("  (the adb server's pid was not found: no server CPU figure)\n");
  }
  std::printf("  ours / adb: throughput %.2fx, p99 %.2fx lower\n", ours_rate / ref_rate,
              a.p99_ms / o.p99_ms);
  if (!distinct) std::printf("  warm-up answers were not one distinct serialno per device\n");
  return (ours.failures + ref.failures) == 0 && distinct ? 0 : 1;
}
