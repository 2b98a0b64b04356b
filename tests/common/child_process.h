// A child process that lives as long as its owner: for servers a test starts and must not
// leave behind (droidlab-devsim). The destructor sends SIGTERM, then SIGKILL after a grace
// period, and reaps the child, so a failed ASSERT still cleans up.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace droidlab::testutil {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with stdout on a pipe the test reads; stderr stays the test's.
  // Throws std::runtime_error when the program cannot be started.
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line of the child's stdout without its '\n', or nullopt on EOF or timeout.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }
  // Terminates and reaps the child; returns its wait status. Safe to call twice.
  int Stop();
  // Waits up to `limit` for the child to exit on its own and reaps it; its wait status, or
  // nullopt when it is still running (Stop then ends it).
  std::optional<int> Wait(std::chrono::milliseconds limit);

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string buffered_;
  std::optional<int> status_;
};

}  // namespace droidlab::testutil
