#include "tests/soak/run_traffic.h"

#include <chrono>

#include "tests/soak/soak_http.h"

namespace droidlab::soak {

using Json = nlohmann::json;
using std::chrono::milliseconds;

bool IsTerminal(const std::string& status) {
  return status == "succeeded" || status == "failed" || status == "cancelled" ||
         status == "interrupted";
}

RunTraffic::RunTraffic(SoakLab& lab, uint64_t seed, int max_open_runs)
    : lab_(lab), rng_(seed), max_open_runs_(max_open_runs) {}

RunTraffic::~RunTraffic() { Stop(); }

void RunTraffic::Start() {
  submitting_ = true;
  running_ = true;
  submitter_ = std::thread([this] { SubmitLoop(); });
  reader_ = std::thread([this] { ReadLoop(); });
}

void RunTraffic::StopSubmitting() {
  submitting_ = false;
  if (submitter_.joinable()) submitter_.join();
}

void RunTraffic::Stop() {
  StopSubmitting();
  running_ = false;
  if (reader_.joinable()) reader_.join();
}

int RunTraffic::OpenRuns() {
  std::lock_guard lock(mutex_);
  int open = 0;
  for (const auto& [id, run] : runs_) open += IsTerminal(run.status) ? 0 : 1;
  return open;
}

void RunTraffic::SubmitLoop() {
  while (submitting_) {
    const uint16_t port = lab_.port();
    // Pacing, not synchronisation: a steady stream of runs rather than a flood.
    std::uniform_int_distribution<int> pause(50, 300);
    const int wait_ms = pause(rng_);
    if (port != 0 && OpenRuns() < max_open_runs_) SubmitOne(port);
    std::this_thread::sleep_for(milliseconds(wait_ms));
  }
}

void RunTraffic::SubmitOne(uint16_t port) {
  const auto phones = lab_.LivePhones();  // a phone whose devsim crashed gets no more runs
  if (phones.empty()) return;
  std::uniform_int_distribution<size_t> which(0, phones.size() - 1);
  std::uniform_int_distribution<int> coin(0, 99);
  std::uniform_int_distribution<int> iterations(2, 4);
  SubmittedRun run;
  run.serial = phones[which(rng_)].address;
  run.looper = coin(rng_) < 40;
  run.iterations = run.looper ? 2 : iterations(rng_);
  Json body = {{"serial", run.serial},
               {"package", "com.example.app"},
               {"mode", "cold"},
               {"iterations", run.iterations}};
  if (run.looper) body["looper_stats"] = {{"sampling_interval", 1}};
  const auto created = Call(port, "POST", "/api/v1/runs", body.dump());
  // One in twenty: cancel an open run (a DELETE races the run's own end; both are fine).
  const bool cancel = coin(rng_) < 5;

  int64_t cancel_id = 0;
  {
    std::lock_guard lock(mutex_);
    if (created.status == 201) {
      const Json answer = Json::parse(created.body, nullptr, false);
      if (answer.is_object() && answer["id"].is_number_integer()) {
        const int64_t id = answer["id"].get<int64_t>();
        if (runs_.count(id) != 0) {
          problems_.push_back("POST /runs returned id " + std::to_string(id) +
                              " a second time (run ids reused)");
        }
        runs_[id] = run;
        ++counts_.submitted;
        ++(run.looper ? counts_.submitted_looper : counts_.submitted_cold);
        if (cancel) cancel_id = id;
      } else {
        problems_.push_back("POST /runs: 201 without an id: " + created.body.substr(0, 200));
      }
    } else if (created.status == 0 || created.status == 503) {
      ++counts_.unanswered;  // the daemon was down, dying or starting
    } else {
      ++counts_.refused;
      problems_.push_back("POST /runs " + body.dump() + " → " + std::to_string(created.status) +
                          " " + created.body.substr(0, 200));
    }
  }
  if (cancel_id != 0) {
    Call(port, "DELETE", "/api/v1/runs/" + std::to_string(cancel_id));
    std::lock_guard lock(mutex_);
    ++counts_.cancels_sent;
  }
}

void RunTraffic::ReadLoop() {
  while (running_) {
    ReadAllOnce();
    std::this_thread::sleep_for(milliseconds(300));  // pacing between passes
  }
}

void RunTraffic::ReadAllOnce() {
  std::vector<int64_t> ids;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, run] : runs_) {
      if (!run.final_launches_read) ids.push_back(id);
    }
  }
  for (int64_t id : ids) {
    const uint16_t port = lab_.port();
    if (port == 0) return;
    ReadRun(port, id);
  }
}

void RunTraffic::ReadRun(uint16_t port, int64_t id) {
  const std::string target = "/api/v1/runs/" + std::to_string(id);
  const auto answer = Call(port, "GET", target);
  if (answer.status == 0 || answer.status == 503) return;  // the daemon is down or going down
  if (answer.status != 200) {
    std::lock_guard lock(mutex_);
    problems_.push_back("GET " + target + " → " + std::to_string(answer.status) + " " +
                        answer.body.substr(0, 200));
    return;
  }
  const Json run = Json::parse(answer.body, nullptr, false);
  if (!run.is_object() || !run["status"].is_string()) return;
  const std::string status = run["status"].get<std::string>();
  const std::string error = run["error"].is_string() ? run["error"].get<std::string>() : "";
  {
    std::lock_guard lock(mutex_);
    runs_[id].status = status;
    runs_[id].error = error;
  }
  if (status == "queued") return;
  const auto launches = Call(port, "GET", target + "/launches");
  if (launches.status != 200) return;
  const Json rows = Json::parse(launches.body, nullptr, false);
  if (!rows.is_object() || !rows["launches"].is_array()) return;
  RecordLaunches(id, rows["launches"]);
  if (IsTerminal(status)) {
    std::lock_guard lock(mutex_);
    runs_[id].final_launches_read = true;
  }
}

void RunTraffic::RecordLaunches(int64_t id, const Json& launches) {
  std::lock_guard lock(mutex_);
  ++counts_.launch_reads;
  auto& seen = launches_[id];
  for (const auto& launch : launches) {
    if (!launch.is_object() || !launch["iteration"].is_number_integer()) continue;
    const int64_t iteration = launch["iteration"].get<int64_t>();
    const auto [at, inserted] = seen.emplace(iteration, launch);
    if (!inserted && at->second != launch) {
      problems_.push_back("run " + std::to_string(id) + " launch " + std::to_string(iteration) +
                          " changed: " + at->second.dump() + " then " + launch.dump());
    }
  }
}

std::map<int64_t, SubmittedRun> RunTraffic::runs() {
  std::lock_guard lock(mutex_);
  return runs_;
}

std::map<int64_t, std::map<int64_t, Json>> RunTraffic::launches_seen() {
  std::lock_guard lock(mutex_);
  return launches_;
}

std::vector<std::string> RunTraffic::problems() {
  std::lock_guard lock(mutex_);
  return problems_;
}

TrafficCounts RunTraffic::counts() {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace droidlab::soak
