// Random faults for the soak, drawn from a seeded generator (the seed is printed, so the same
// sequence of faults can be asked for again; the timing of what they hit differs from run to run):
// on a phone (devsim-fault: unplug, reboot, unauthorized, hang, truncate, slow, garbage, clear),
// on the adb server (killed, started again, phones reconnected), on the daemon (kill -9 or SIGTERM,
// then started again on the same database) and on its API (a burst of bad requests).
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/soak/bad_requests.h"
#include "tests/soak/soak_lab.h"

namespace droidlab::soak {

struct FaultCounts {
  std::map<std::string, int> injected;  // by kind
  std::map<std::string, int> skipped;   // by kind: devsim does not know it (usage error, exit 2)
  int daemon_restarts = 0;
  int bad_requests = 0;
};

class FaultInjector {
 public:
  FaultInjector(SoakLab& lab, uint64_t seed)
      : lab_(lab), rng_(seed), bursts_(seed ^ 0x5eed), log_(lab.faults_log()) {}

  // Injects faults until `until`, one every 1 to 4 s, each logged with its time in faults.log
  // (UTC, as daemon.log dates its lines). A phone whose devsim crashed is noted and left out
  // from then on; the faults end early when no phone is left.
  void RunUntil(std::chrono::steady_clock::time_point until);
  // Phones whose devsim crashed (by address).
  const std::set<std::string>& lost_phones() const { return lost_phones_; }
  // devsim-fault clear on every phone, slow clients closed, the daemon running, every phone back
  // in adb: the lab as it should be for the drain. False (with problems noted) when not.
  bool ClearAll();

  // A daemon that ended by itself since the last look is a crash: noted and started again (also
  // when none runs).
  void CheckDaemonAlive();

  const FaultCounts& counts() const { return counts_; }
  // Failed checks met on the way (a daemon that crashed, one that did not stop within 30 s of
  // SIGTERM, a bad request answered with a 5xx, …).
  const std::vector<std::string>& problems() const { return problems_; }
  void Note(std::string problem) { problems_.push_back(std::move(problem)); }

 private:
  void InjectOne();
  // A live phone; false when none is left.
  bool AnyPhone(Phone& phone);
  // Notes phones whose devsim ended since the last look.
  void NoteLostPhones();
  void Log(const std::string& line);
  // `devsim-fault ARGS` on `phone`; counted under `kind`, or as skipped on a usage error.
  void PhoneFault(const std::string& kind, const Phone& phone, const std::string& args);
  void RestartAdb();
  void RestartDaemon(bool kill9);
  void StartDaemon();
  void BadRequests();

  SoakLab& lab_;
  std::mt19937_64 rng_;
  BadRequestBursts bursts_;
  FaultCounts counts_;
  std::vector<std::string> problems_;
  std::ofstream log_;
  std::set<std::string> lost_phones_;
};

}  // namespace droidlab::soak
