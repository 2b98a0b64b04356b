#include "bench/bench_lab.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

extern char** environ;

namespace droidlab::bench {

int FreeLoopbackPort() {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const bool ok =
        ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    ::close(fd);
    if (!ok) return -1;
    const int port = ntohs(address.sin_port);
    if (port != 5037 && (port < 5555 || port > 5585)) return port;
  }
  return -1;
}

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

double CpuMicros() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double ProcessCpuMicros(pid_t pid) {
  if (pid <= 0) return -1;
  // Nanoseconds on the CPU per thread (/proc/PID/task/TID/schedstat, first field), summed.
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  if (DIR* tasks = ::opendir(task_dir.c_str())) {
    double ns = 0;
    bool any = false;
    while (const dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] == '.') continue;
      std::ifstream file(task_dir + "/" + entry->d_name + "/schedstat");
      double thread_ns = 0;
      if (file >> thread_ns) {
        ns += thread_ns;
        any = true;
      }
    }
    ::closedir(tasks);
    if (any) return ns / 1000;
  }
  // Without schedstat: utime + stime (fields 14 and 15 of /proc/PID/stat), in clock ticks.
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) * 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

namespace {

// The process whose command line holds "tcp:PORT" and "fork-server": adb's server for PORT.
pid_t FindAdbServer(int port) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return -1;
  pid_t found = -1;
  const std::string listen = "tcp:" + std::to_string(port);
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("fork-server") != std::string::npos &&
        (cmdline + " ").find(listen + " ") != std::string::npos) {
      found = pid;
      break;
    }
  }
  ::closedir(proc);
  return found;
}

}  // namespace

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Stats Summarize(std::vector<double> ms) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.median_ms = ms[ms.size() / 2];
  s.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  s.max_ms = ms.back();
  return s;
}

AdbLab::Started AdbLab::Start(const Options& options) {
  Started started;
  if (options.adb.empty() || ::access(options.adb.c_str(), X_OK) != 0) {
    started.why = "skipped: adb is not installed ('" + options.adb + "')";
    started.skipped = true;
    return started;
  }
  if (::access(options.devsim.c_str(), X_OK) != 0) {
    started.why = "skipped: droidlab-devsim is not built (" + options.devsim + ")";
    started.skipped = true;
    return started;
  }
  std::unique_ptr<AdbLab> lab(new AdbLab);
  lab->adb_ = options.adb;
  lab->port_ = FreeLoopbackPort();
  if (lab->port_ <= 0 || lab->Adb({"start-server"}) != 0) {
    started.why = "cannot start an adb server on port " + std::to_string(lab->port_);
    lab->server_started_ = lab->port_ > 0;  // kill whatever half-started
    return started;
  }
  lab->server_started_ = true;
  lab->server_pid_ = FindAdbServer(lab->port_);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    started.why = "pipe failed";
    return started;
  }
  std::vector<std::string> argv = {options.devsim, "--port", "0", "--count",
                                   std::to_string(options.count)};
  argv.insert(argv.end(), options.devsim_args.begin(), options.devsim_args.end());
  lab->devsim_ = Spawn(argv, out[1]);
  ::close(out[1]);
  lab->devsim_out_ = out[0];
  // One line per device once it listens: "devsim listening on 127.0.0.1:PORT serial=…".
  std::string text;
  const auto listen_deadline = Clock::now() + std::chrono::seconds(20);
  size_t lines = 0;
  while (lab->devsim_ > 0 && lines < static_cast<size_t>(options.count) &&
         Clock::now() < listen_deadline) {
    pollfd pfd{lab->devsim_out_, POLLIN, 0};
    if (::poll(&pfd, 1, 1000) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(lab->devsim_out_, chunk, sizeof chunk);
    if (n <= 0) break;
    text.append(chunk, static_cast<size_t>(n));
    lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  for (size_t at = 0; (at = text.find("127.0.0.1:", at)) != std::string::npos;) {
    const size_t end = text.find_first_of(" \n", at);
    lab->serials_.push_back(text.substr(at, end - at));
    at = end;
  }
  if (lab->devsim_ < 0 || lab->serials_.size() != static_cast<size_t>(options.count)) {
    started.why = "devsim did not start " + std::to_string(options.count) + " devices (" +
                  std::to_string(lab->serials_.size()) + " listening)";
    return started;
  }

  // Connect every device, then wait (bounded) until adb lists each one as `device`.
  const auto deadline = Clock::now() + options.ready_timeout;
  std::vector<std::string> pending = lab->serials_;
  while (!pending.empty() && Clock::now() < deadline) {
    for (const auto& serial : pending) lab->Adb({"connect", serial});
    const auto devices = Capture(lab->AdbArgv({"devices"}));
    std::vector<std::string> still;
    for (const auto& serial : pending) {
      if (!devices || devices->find(serial + "\tdevice") == std::string::npos) {
        still.push_back(serial);
      }
    }
    pending = std::move(still);
    if (!pending.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!pending.empty()) {
    started.why = std::to_string(pending.size()) + " of " + std::to_string(options.count) +
                  " devices never became `device` (first: " + pending.front() + ")";
    return started;
  }
  started.lab = std::move(lab);
  return started;
}

AdbLab::~AdbLab() {
  if (devsim_ > 0) {
    ::kill(devsim_, SIGTERM);
    Wait(devsim_);
  }
  if (devsim_out_ >= 0) ::close(devsim_out_);
  if (server_started_) Adb({"kill-server"});
}

std::vector<std::string> AdbLab::AdbArgv(std::vector<std::string> args) const {
  args.insert(args.begin(), {adb_, "-P", std::to_string(port_)});
  return args;
}

int AdbLab::Adb(std::vector<std::string> args) const {
  const pid_t pid = Spawn(AdbArgv(std::move(args)), -1);
  return pid < 0 ? -1 : Wait(pid);
}

}  // namespace droidlab::bench
