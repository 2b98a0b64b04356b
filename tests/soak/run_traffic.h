// The soak's traffic: runs submitted continuously over the REST API (cold-launch runs and
// looper-stats runs, a few iterations each, now and then one cancelled), and every answer of
// GET /runs/{id}/launches recorded, so that the end can check that each launch the API ever
// returned is still there with the same values.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/soak/soak_lab.h"

namespace droidlab::soak {

struct SubmittedRun {
  std::string serial;
  bool looper = false;
  int iterations = 0;
  std::string status;  // the last the API said; "" before the first answer
  std::string error;
  bool final_launches_read = false;  // launches read once the status was terminal
};

struct TrafficCounts {
  int submitted = 0;
  int submitted_cold = 0;
  int submitted_looper = 0;
  int refused = 0;       // a 4xx/5xx to a well-formed run (listed as a problem)
  int unanswered = 0;    // no answer: the daemon was down or died under the request
  int cancels_sent = 0;
  int launch_reads = 0;  // launches answers recorded
};

bool IsTerminal(const std::string& status);

class RunTraffic {
 public:
  RunTraffic(SoakLab& lab, uint64_t seed, int max_open_runs);
  ~RunTraffic();

  void Start();
  // Stops submitting; the reader goes on until Stop.
  void StopSubmitting();
  void Stop();

  // Runs not yet seen in a terminal state.
  int OpenRuns();
  // Reads every open run's status (and launches) once more, now: for the drain.
  void ReadAllOnce();

  // Snapshots for the end (taken after Stop).
  std::map<int64_t, SubmittedRun> runs();
  // run id → iteration → the launch object as the API returned it.
  std::map<int64_t, std::map<int64_t, nlohmann::json>> launches_seen();
  // A launch the API returned with other values than before, or a 5xx: each a line.
  std::vector<std::string> problems();
  TrafficCounts counts();

 private:
  void SubmitLoop();
  void ReadLoop();
  void SubmitOne(uint16_t port);
  // One GET of the run and, when it ran or runs, of its launches.
  void ReadRun(uint16_t port, int64_t id);
  void RecordLaunches(int64_t id, const nlohmann::json& launches);

  SoakLab& lab_;
  std::mt19937_64 rng_;
  const int max_open_runs_;
  std::atomic<bool> submitting_{false};
  std::atomic<bool> running_{false};
  std::thread submitter_;
  std::thread reader_;

  std::mutex mutex_;  // guards what follows
  std::map<int64_t, SubmittedRun> runs_;
  std::map<int64_t, std::map<int64_t, nlohmann::json>> launches_;
  std::vector<std::string> problems_;
  TrafficCounts counts_;
};

}  // namespace droidlab::soak
