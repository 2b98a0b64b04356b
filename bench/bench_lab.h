// What the adb benchmarks share: child processes, timing and CPU helpers, and AdbLab — a real
// adb server on a private port with droidlab-devsim devices connected to it, started for one
// benchmark run and stopped with it. Benchmark scaffolding only: nothing of droidlab uses it.
//
//   std::string why;
//   auto lab = bench::AdbLab::Start({.adb = kAdb, .devsim = kDevsim, .count = 100,
//                                    .devsim_args = {"--fast"}}, &why);
//   if (!lab) { std::printf("x_bench: %s\n", why.c_str()); return lab.skipped ? 0 : 1; }
//   lab->serials();    // "127.0.0.1:PORT", as adb lists them
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace droidlab::bench {

using Clock = std::chrono::steady_clock;

// A free TCP port on 127.0.0.1 (the kernel's choice), never 5037 nor 5555..5585 (adb's default
// port and the range its server polls for emulators). -1 when none could be had.
int FreeLoopbackPort();

// Starts argv[0] (a path) with stdout to `stdout_fd` (or /dev/null when -1), stderr to
// /dev/null. -1 when it could not be started.
pid_t Spawn(const std::vector<std::string>& argv, int stdout_fd);
// Waits for the child; its exit status, or -1 when it did not exit normally.
int Wait(pid_t pid);
// Runs argv to completion; its stdout, or nullopt when it could not run or did not exit 0.
std::optional<std::string> Capture(const std::vector<std::string>& argv);

// This process's CPU time (user + system, all threads), in microseconds.
double CpuMicros();
// CPU time of another process (all its threads), in microseconds: /proc/PID/task/*/schedstat
// (nanoseconds), else utime+stime from /proc/PID/stat (10 ms ticks). -1 when it is gone.
double ProcessCpuMicros(pid_t pid);
double MsSince(Clock::time_point start);

struct Stats {
  double median_ms = 0, p99_ms = 0, max_ms = 0;
};
// Median, p99 and max of the samples (zeros when there are none).
Stats Summarize(std::vector<double> ms);

// A real adb server on a private port and one droidlab-devsim process with `count` devices
// (`--port 0 --count N` plus devsim_args), each `adb connect`ed and listed as `device`.
class AdbLab {
 public:
  struct Options {
    std::string adb;     // path of adb; empty or not executable: skipped
    std::string devsim;  // path of droidlab-devsim; not executable: skipped
    int count = 1;
    std::vector<std::string> devsim_args;
    std::chrono::seconds ready_timeout{30};  // for every device to be listed as `device`
  };
  struct Started {
    std::unique_ptr<AdbLab> lab;
    std::string why;       // when !lab
    bool skipped = false;  // adb or devsim missing: the benchmark says why and exits 0
    AdbLab* operator->() const { return lab.get(); }
    explicit operator bool() const { return lab != nullptr; }
  };
  static Started Start(const Options& options);

  ~AdbLab();  // stops devsim (SIGTERM) and the adb server (kill-server)
  AdbLab(const AdbLab&) = delete;
  AdbLab& operator=(const AdbLab&) = delete;

  int port() const { return port_; }
  const std::string& adb() const { return adb_; }
  pid_t devsim_pid() const { return devsim_; }
  // The adb server's pid (found in /proc by its `-L tcp:PORT fork-server` command line), or -1.
  pid_t server_pid() const { return server_pid_; }
  // Serials as adb lists them ("127.0.0.1:PORT"), in devsim's order.
  const std::vector<std::string>& serials() const { return serials_; }

  // {adb, -P, PORT, args...}
  std::vector<std::string> AdbArgv(std::vector<std::string> args) const;
  // Runs `adb -P PORT args...` to completion with output discarded; its exit status.
  int Adb(std::vector<std::string> args) const;
  // A benchmark that reaps children with waitpid(-1) and got devsim tells the lab so.
  void DevsimReaped() { devsim_ = -1; }

 private:
  AdbLab() = default;
  std::string adb_;
  int port_ = -1;
  bool server_started_ = false;
  pid_t server_pid_ = -1;
  pid_t devsim_ = -1;
  int devsim_out_ = -1;  // kept open: devsim must not get EPIPE on a late line
  std::vector<std::string> serials_;
};

}  // namespace droidlab::bench
