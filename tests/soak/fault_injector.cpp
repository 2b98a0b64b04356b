#include "tests/soak/fault_injector.h"

#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "tests/common/wait_until.h"
#include "tests/soak/soak_http.h"

namespace droidlab::soak {

using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// What the daemon sends during a run (orchestrator/run/device_commands.cpp): the command lines a
// hang, a truncation or a trickle is aimed at.
const std::vector<std::string> kCommandPrefixes = {
    "am start",        "settings put",        "settings get",     "settings delete",
    "dumpsys battery", "dumpsys looper_stats", "cmd looper_stats", "cat /proc",
    "logcat",          "getprop",              "pidof",            "dumpsys package"};

// Relative weights of the fault kinds.
const std::vector<std::pair<std::string, int>> kKinds = {
    {"unplug", 4},      {"reboot", 3},         {"unauthorized", 1}, {"hang", 4},
    {"truncate", 3},    {"slow", 2},           {"garbage", 3},      {"clear", 2},
    {"adb_restart", 1}, {"daemon_kill9", 1},   {"daemon_sigterm", 1}, {"bad_requests", 3}};

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string DescribeStatus(int status) {
  if (status < 0) return "still running";
  // devsim and serve both exit 0 on SIGTERM: unasked for, someone outside the soak sent it.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    return "exit 0, i.e. a SIGTERM the soak did not send";
  }
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// Now as daemon.log's spdlog prints it (UTC, milliseconds), to line the two logs up.
std::string UtcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds_now = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds_now, &utc);
  char text[96];  // room for any int the compiler imagines in each field
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms));
  return text;
}

}  // namespace

void FaultInjector::Log(const std::string& line) { log_ << UtcNow() << " " << line << std::endl; }

bool FaultInjector::AnyPhone(Phone& phone) {
  const auto live = lab_.LivePhones();
  if (live.empty()) return false;
  std::uniform_int_distribution<size_t> which(0, live.size() - 1);
  phone = live[which(rng_)];
  return true;
}

void FaultInjector::NoteLostPhones() {
  for (const auto& phone : lab_.phones()) {
    if (lost_phones_.count(phone.address) != 0) continue;
    const int status = lab_.DevsimExited(phone);
    if (status < 0) continue;
    lost_phones_.insert(phone.address);
    Log(phone.address + " devsim ended: " + DescribeStatus(status));
    problems_.push_back("droidlab-devsim of " + phone.address + " ended during the soak (" +
                        DescribeStatus(status) + " at " + UtcNow() + "); see " +
                        lab_.devsim_log() + " and, for the faults before it, " +
                        lab_.faults_log() + "; the phone is left out from then on");
  }
}

void FaultInjector::RunUntil(std::chrono::steady_clock::time_point until) {
  std::uniform_int_distribution<int> pause(1000, 4000);
  while (std::chrono::steady_clock::now() < until) {
    // The pause is the fault rate, not a wait for anything.
    std::this_thread::sleep_for(milliseconds(pause(rng_)));
    NoteLostPhones();
    if (lost_phones_.size() == lab_.phones().size()) return;  // no phone left
    CheckDaemonAlive();
    InjectOne();
  }
}

void FaultInjector::InjectOne() {
  int total = 0;
  for (const auto& [kind, weight] : kKinds) total += weight;
  std::uniform_int_distribution<int> draw(0, total - 1);
  int at = draw(rng_);
  std::string kind;
  for (const auto& [k, weight] : kKinds) {
    if (at < weight) {
      kind = k;
      break;
    }
    at -= weight;
  }
  std::uniform_int_distribution<size_t> prefix_index(0, kCommandPrefixes.size() - 1);
  const std::string prefix = Quoted(kCommandPrefixes[prefix_index(rng_)]);
  Phone phone;
  if (!AnyPhone(phone)) return;
  if (kind == "unplug") {
    std::uniform_int_distribution<int> ms(300, 8000);
    PhoneFault(kind, phone, "unplug " + std::to_string(ms(rng_)));
  } else if (kind == "reboot") {
    PhoneFault(kind, phone, "reboot");
  } else if (kind == "unauthorized") {
    std::uniform_int_distribution<int> ms(500, 5000);
    PhoneFault(kind, phone, "unauthorized " + std::to_string(ms(rng_)));
  } else if (kind == "hang") {
    std::uniform_int_distribution<int> n(1, 2);
    PhoneFault(kind, phone, "hang " + prefix + " " + std::to_string(n(rng_)));
  } else if (kind == "truncate") {
    std::uniform_int_distribution<int> bytes(0, 300);
    PhoneFault(kind, phone, "truncate " + prefix + " " + std::to_string(bytes(rng_)) + " 1");
  } else if (kind == "slow") {
    std::uniform_int_distribution<int> ms(20, 400);
    PhoneFault(kind, phone, "slow " + prefix + " " + std::to_string(ms(rng_)) + " 1");
  } else if (kind == "garbage") {
    std::uniform_int_distribution<int> n(5, 80);
    PhoneFault(kind, phone, "garbage " + std::to_string(n(rng_)));
  } else if (kind == "clear") {
    PhoneFault(kind, phone, "clear");
  } else if (kind == "adb_restart") {
    RestartAdb();
  } else if (kind == "daemon_kill9") {
    RestartDaemon(true);
  } else if (kind == "daemon_sigterm") {
    RestartDaemon(false);
  } else {
    BadRequests();
  }
}

void FaultInjector::PhoneFault(const std::string& kind, const Phone& phone,
                               const std::string& args) {
  const auto result = lab_.Shell(phone, "devsim-fault " + args);
  Log(phone.address + " devsim-fault " + args + " → exit " + std::to_string(result.exit_code));
  if (result.exit_code == 0) {
    ++counts_.injected[kind];
  } else if (result.exit_code == 2) {
    ++counts_.skipped[kind];  // a fault this devsim does not know (yet)
  } else {
    // The phone is unplugged, rebooting or adb is restarting: the fault did not land.
    ++counts_.skipped[kind + " (phone unreachable)"];
  }
}

void FaultInjector::RestartAdb() {
  Log("adb server: kill-server, start-server, phones reconnected");
  lab_.RestartAdbServer();
  ++counts_.injected["adb_restart"];
  // A new server knows no TCP phones until they are connected again (as after any restart);
  // phones unplugged now refuse until they listen again, so this is bounded, not fatal.
  if (!lab_.ReconnectAll(seconds(60))) {
    ++counts_.skipped["adb_restart (phones still offline after 60 s)"];
  }
}

void FaultInjector::RestartDaemon(bool kill9) {
  if (lab_.port() == 0) {
    StartDaemon();
    return;
  }
  Log(kill9 ? "daemon: kill -9, started again" : "daemon: SIGTERM, started again");
  if (kill9) {
    lab_.KillDaemon();
    ++counts_.injected["daemon_kill9"];
  } else {
    const auto started = std::chrono::steady_clock::now();
    const int status = lab_.TerminateDaemon(seconds(30));
    ++counts_.injected["daemon_sigterm"];
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      const auto took = std::chrono::duration_cast<milliseconds>(
          std::chrono::steady_clock::now() - started);
      problems_.push_back("SIGTERM: the daemon ended with " + DescribeStatus(status) + " after " +
                          std::to_string(took.count()) + " ms (want exit 0 within 30 s)");
    }
  }
  StartDaemon();
}

void FaultInjector::StartDaemon() {
  std::string why;
  // A start may fail on a busy machine; three tries, each noted.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (lab_.StartDaemon(why)) {
      ++counts_.daemon_restarts;
      return;
    }
    problems_.push_back("daemon start failed: " + why);
  }
}

void FaultInjector::BadRequests() {
  const uint16_t port = lab_.port();
  if (port == 0) return;
  Log("api: a burst of bad requests");
  counts_.bad_requests += bursts_.Burst(port, problems_);
  ++counts_.injected["bad_requests (bursts)"];
  // The daemon must still answer afterwards.
  const auto health = Call(port, "GET", "/api/v1/health", "", seconds(30));
  if (health.status != 200) {
    const int status = lab_.DaemonExitedOnItsOwn();
    problems_.push_back("after a burst of bad requests GET /health → " +
                        std::to_string(health.status) + "; daemon " + DescribeStatus(status));
  }
}

void FaultInjector::CheckDaemonAlive() {
  if (lab_.port() == 0) {
    StartDaemon();
    return;
  }
  const int status = lab_.DaemonExitedOnItsOwn();
  if (status < 0) return;
  Log("daemon ended by itself: " + DescribeStatus(status));
  problems_.push_back("the daemon ended by itself: " + DescribeStatus(status) + " (see " +
                      lab_.daemon_log() + ")");
  StartDaemon();
}

bool FaultInjector::ClearAll() {
  Log("faults over: clear on every phone");
  bursts_.CloseSlowClients();
  NoteLostPhones();
  CheckDaemonAlive();
  if (!lab_.ReconnectAll(seconds(120))) {
    std::string missing;
    for (const auto& phone : lab_.PhonesNotOnline()) missing += " " + phone.address;
    problems_.push_back("phones not online in adb after the faults:" + missing);
  }
  bool ok = true;
  // A phone rebooting or unplugged right now answers a little later: two minutes for all.
  const auto deadline = std::chrono::steady_clock::now() + seconds(120);
  for (const auto& phone : lab_.LivePhones()) {
    testutil::ProcessResult cleared;
    const auto left = std::chrono::duration_cast<milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const bool done = testutil::WaitUntil(
        [&] {
          cleared = lab_.Shell(phone, "devsim-fault clear");
          return cleared.exit_code == 0;
        },
        std::max(left, milliseconds(0)), milliseconds(500));
    if (!done) {
      problems_.push_back("devsim-fault clear failed on " + phone.address + ": " + cleared.out +
                          cleared.err);
      ok = false;
    }
  }
  return ok;
}

}  // namespace droidlab::soak
