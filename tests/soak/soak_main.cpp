// droidlab_soak: issue 13's soak. Phones on a real adb server, the real `droidlab serve`, runs
// submitted without pause, and for --minutes random faults on the phones, the adb server, the
// daemon and its API; then the faults are cleared, the queue drains, the daemon is started once
// more, and the soak checks that every phone is as it was found, every run ended with a reason,
// the database is sound and every launch the API ever returned is still there. Prints its figures;
// exits 1 with the list of failed checks. tools/run-soak.sh builds and runs it.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "tests/common/wait_until.h"
#include "tests/soak/fault_injector.h"
#include "tests/soak/run_traffic.h"
#include "tests/soak/soak_checks.h"
#include "tests/soak/soak_http.h"
#include "tests/soak/soak_lab.h"

namespace droidlab::soak {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::steady_clock;

struct Options {
  int minutes = 10;
  int phones = 30;
  int drain_minutes = 5;
  uint64_t seed = 0;
  bool keep = false;
};

const char kUsage[] =
    "usage: droidlab_soak [--minutes N] [--phones N] [--drain-minutes N] [--seed S] [--keep]\n"
    "  --minutes N        faults for N minutes (default 10)\n"
    "  --phones N         devsim phones (default 30)\n"
    "  --drain-minutes N  at most N minutes for queued runs to end afterwards (default 5)\n"
    "  --seed S           the faults' and runs' random seed (default: from the clock; printed)\n"
    "  --keep             keep the database and logs even when every check passes\n";

bool ParseOptions(int argc, char** argv, Options& options) {
  options.seed = static_cast<uint64_t>(steady_clock::now().time_since_epoch().count()) % 1000000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    try {
      if (arg == "--minutes" && has_value) {
        options.minutes = std::stoi(argv[++i]);
      } else if (arg == "--phones" && has_value) {
        options.phones = std::stoi(argv[++i]);
      } else if (arg == "--drain-minutes" && has_value) {
        options.drain_minutes = std::stoi(argv[++i]);
      } else if (arg == "--seed" && has_value) {
        options.seed = std::stoull(argv[++i]);
      } else if (arg == "--keep") {
        options.keep = true;
      } else {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  return options.minutes >= 0 && options.phones > 0 && options.drain_minutes > 0;
}

void Say(const std::string& line) { std::cout << "soak: " << line << std::endl; }

// Runs queued or running as the API sees them (a POST whose answer was lost made runs the
// traffic does not know); -1 when the daemon does not answer.
int RunsNotEndedInApi(uint16_t port) {
  int count = 0;
  for (const char* status : {"queued", "running"}) {
    const auto answer =
        Call(port, "GET", std::string("/api/v1/runs?limit=1000&status=") + status);
    const Json body = Json::parse(answer.body, nullptr, false);
    if (answer.status != 200 || !body.is_object() || !body["runs"].is_array()) return -1;
    count += static_cast<int>(body["runs"].size());
  }
  return count;
}

// The lab's phones, every other one given a looper_stats setting of its own first, so that
// "restored" means put back, not only deleted.
void GivePhonesSettingsOfTheirOwn(const SoakLab& lab) {
  int i = 0;
  for (const auto& phone : lab.phones()) {
    if (i % 2 == 0) {
      lab.Shell(phone, "settings put global looper_stats sampling_interval=" +
                           std::to_string(3 + i % 7) + ",track_screen_state=false");
    }
    ++i;
  }
}

int Soak(const Options& options) {
  ::signal(SIGPIPE, SIG_IGN);  // a peer that hangs up on a bad request must not end the soak
  Say("seed " + std::to_string(options.seed) + " (replay: --seed " +
      std::to_string(options.seed) + "), " + std::to_string(options.phones) + " phones, " +
      std::to_string(options.minutes) + " min of faults");
  SoakLab lab;
  std::string why;
  if (!lab.StartPhones(options.phones, why)) {
    std::cerr << "soak: the lab did not start: " << why << "\n";
    lab.Keep();
    return 2;
  }
  Say("lab in " + lab.folder() + " (faults, devsim and daemon logs, database)");
  std::vector<std::string> problems;
  GivePhonesSettingsOfTheirOwn(lab);
  const auto before = ReadPhoneStates(lab, problems);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "soak: " << p << "\n";
    lab.Keep();
    return 2;
  }
  if (!lab.StartDaemon(why)) {
    std::cerr << "soak: " << why << "\n";
    lab.Keep();
    return 2;
  }

  FaultInjector faults(lab, options.seed);
  RunTraffic traffic(lab, options.seed + 1, 2 * options.phones);
  traffic.Start();
  const auto faults_end = steady_clock::now() + minutes(options.minutes);
  Say("faults until " + std::to_string(options.minutes) + " min from now");
  faults.RunUntil(faults_end);

  Say("faults over: clearing them, draining the queue");
  faults.ClearAll();
  traffic.StopSubmitting();
  const auto drain_end = steady_clock::now() + minutes(options.drain_minutes);
  bool drained = false;
  while (steady_clock::now() < drain_end) {
    faults.CheckDaemonAlive();
    if (traffic.OpenRuns() == 0 && RunsNotEndedInApi(lab.port()) == 0) {
      drained = true;
      break;
    }
    std::this_thread::sleep_for(seconds(1));  // polling the drain
  }
  if (!drained) {
    faults.Note("the queue did not drain within " + std::to_string(options.drain_minutes) +
                " min: " + std::to_string(traffic.OpenRuns()) + " runs still open");
  }
  traffic.Stop();
  const int64_t owed_before_final_start = OwedRestores(lab.db_path(), faults.lost_phones());

  // The final start: the daemon stopped (SIGTERM, exit 0 within 30 s) and started again; it must
  // pay whatever it still owes, bounded.
  const int stopped = lab.TerminateDaemon(seconds(30));
  if (stopped < 0 || !WIFEXITED(stopped) || WEXITSTATUS(stopped) != 0) {
    faults.Note("SIGTERM before the final start: wait status " + std::to_string(stopped));
  }
  if (!lab.StartDaemon(why)) faults.Note("the final start failed: " + why);
  // Paid: nothing owed to a live phone, and each live phone as it was found.
  const auto as_found = [&] {
    std::vector<std::string> differences;
    const auto now = ReadPhoneStates(lab, differences);
    CheckPhonesAsFound(before, now, differences);
    return differences.empty() && OwedRestores(lab.db_path(), faults.lost_phones()) == 0;
  };
  const bool paid = testutil::WaitUntil(as_found, seconds(180), milliseconds(1000));
  if (!paid) Say("after 180 s the phones are not all as found yet (listed below)");
  // Every launch the API ever returned, read again from the running daemon.
  CheckLaunchesThroughApi(lab.port(), traffic.launches_seen(), problems);
  const int final_stop = lab.TerminateDaemon(seconds(30));
  if (final_stop < 0 || !WIFEXITED(final_stop) || WEXITSTATUS(final_stop) != 0) {
    faults.Note("the final SIGTERM: wait status " + std::to_string(final_stop));
  }

  // The checks, with the daemon stopped.
  const auto after = ReadPhoneStates(lab, problems);  // the live phones
  CheckPhonesAsFound(before, after, problems);
  const auto launches_seen = traffic.launches_seen();
  const DatabaseFigures db = CheckDatabase(lab.db_path(), launches_seen, faults.lost_phones(), problems);
  for (const auto& p : traffic.problems()) problems.push_back(p);
  for (const auto& p : faults.problems()) problems.push_back(p);

  // The figures.
  const TrafficCounts counts = traffic.counts();
  const FaultCounts& f = faults.counts();
  int injected = 0;
  for (const auto& [kind, n] : f.injected) injected += n;
  std::cout << "\n== droidlab soak: seed " << options.seed << ", " << options.phones
            << " phones, " << options.minutes << " min of faults\n";
  std::cout << "faults injected: " << injected << "\n";
  for (const auto& [kind, n] : f.injected) std::cout << "  " << kind << ": " << n << "\n";
  for (const auto& [kind, n] : f.skipped) std::cout << "  skipped, " << kind << ": " << n << "\n";
  std::cout << "daemon restarts: " << f.daemon_restarts << " (" << lab.daemon_starts()
            << " starts in all)\n";
  std::cout << "bad requests sent: " << f.bad_requests << "\n";
  std::cout << "runs submitted: " << counts.submitted << " (cold " << counts.submitted_cold
            << ", looper_stats " << counts.submitted_looper << "); POSTs unanswered (daemon down): "
            << counts.unanswered << ", refused: " << counts.refused
            << "; cancels sent: " << counts.cancels_sent << "\n";
  int64_t runs_in_db = 0;
  for (const auto& [status, n] : db.runs_by_status) runs_in_db += n;
  std::cout << "runs in the database: " << runs_in_db << "\n";
  for (const auto& [status, n] : db.runs_by_status) std::cout << "  " << status << ": " << n << "\n";
  size_t launches_returned = 0;
  for (const auto& [id, l] : launches_seen) launches_returned += l.size();
  std::cout << "launches: " << db.launches << " in the database; " << launches_returned
            << " returned by the API (" << counts.launch_reads << " reads), all checked\n";
  std::cout << "restores: " << db.restores_recorded << " recorded (owed), " << db.restores_paid
            << " paid; " << owed_before_final_start
            << " still owed (to live phones) before the final start; "
            << db.restores_owed_to_lost_phones << " owed to phones whose devsim crashed\n";
  std::cout << "phones: " << options.phones << ", " << faults.lost_phones().size()
            << " lost to a devsim crash, " << after.size() << " checked as found\n";

  if (problems.empty()) {
    std::cout << "soak: PASS\n";
    if (options.keep) lab.Keep();
    return 0;
  }
  lab.Keep();
  std::cout << "soak: FAIL — " << problems.size() << " failed check(s):\n";
  for (const auto& p : problems) std::cout << "  - " << p << "\n";
  std::cout << "logs and database kept in " << lab.folder() << "\n";
  return 1;
}

}  // namespace
}  // namespace droidlab::soak

int main(int argc, char** argv) {
  droidlab::soak::Options options;
  if (!droidlab::soak::ParseOptions(argc, argv, options)) {
    std::fputs(droidlab::soak::kUsage, stderr);
    return 2;
  }
  return droidlab::soak::Soak(options);
}
