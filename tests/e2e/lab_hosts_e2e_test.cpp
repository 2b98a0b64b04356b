// Issue 17 §2's lab test: three `droidlab serve` daemons on this machine, each with an adb
// server of its own on a private port and two devsim phones on it, all on one real PostgreSQL
// database (tests/common/pg_server.h). A pool of 12 runs posted to one daemon spreads over the
// hosts' phones; one daemon is kill -9'd mid-run. Every run ends in a terminal state, the killed
// host's running run is interrupted and its pool run measured again elsewhere as a new run, no
// run is measured by two hosts, no launch of a succeeded run is missing, every phone has its
// settings back once the killed host's daemon is started again (it pays what it owed), and one
// daemon's event stream tells the end of a run another host measured (LISTEN/NOTIFY).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/child_process.h"
#include "tests/common/http_client.h"
#include "tests/common/pg_server.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::seconds;

constexpr int kPhonesPerHost = 2;
constexpr int kPoolRuns = 12;
constexpr int kIterations = 6;

std::string Encoded(const std::string& serial) {
  std::string out;
  for (char c : serial) out += c == ':' ? std::string("%3A") : std::string(1, c);
  return out;
}

struct LabHost {
  std::string name;
  AdbServer adb;
  std::unique_ptr<ChildProcess> devsim;
  std::vector<DevsimDevice> phones;
  std::unique_ptr<ChildProcess> daemon;
  uint16_t port = 0;
};

class LabHostsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (AdbPath().empty()) GTEST_SKIP() << "adb is not installed";
    url_ = SharedPgServer().CreateDatabase("lab");
  }

  // The host's adb server and devsim phones, each phone's looper_stats set to a value of its own
  // (what the runs change and must put back).
  void StartHostPhones(LabHost& host, const std::string& name) {
    host.name = name;
    ASSERT_TRUE(host.adb.Start());
    host.devsim = std::make_unique<ChildProcess>(std::vector<std::string>{
        DevsimPath(), "--port", "0", "--count", std::to_string(kPhonesPerHost), "--fast"});
    host.phones = ReadListeningLines(*host.devsim, kPhonesPerHost);
    ASSERT_EQ(host.phones.size(), static_cast<size_t>(kPhonesPerHost));
    for (const DevsimDevice& phone : host.phones) {
      host.adb.Adb({"connect", phone.address});
      WaitForDevice(host.adb, phone.address);
      ASSERT_EQ(Shell(host, phone, "settings put global looper_stats sampling_interval=7")
                    .exit_code,
                0);
      before_[phone.address] = Shell(host, phone, "settings get global looper_stats").out;
    }
  }

  ProcessResult Shell(const LabHost& host, const DevsimDevice& phone, const std::string& command) {
    return host.adb.Adb({"-s", phone.address, "shell", command});
  }

  void StartDaemon(LabHost& host) {
    host.daemon = std::make_unique<ChildProcess>(std::vector<std::string>{
        DROIDLAB_BINARY, "serve", "--listen", "127.0.0.1:0", "--db", url_, "--host-name",
        host.name, "--adb-server", "tcp:127.0.0.1:" + std::to_string(host.adb.port()),
        "--adb-path", AdbPath(), "--log-level", "warn"});
    auto line = host.daemon->ReadLine(std::chrono::milliseconds(20000));
    ASSERT_TRUE(line) << host.name << " did not say it listens";
    const size_t at = line->find("http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << *line;
    host.port = static_cast<uint16_t>(std::stoi(line->substr(at + 17)));
  }

  Json Get(uint16_t port, const std::string& target) {
    auto r = HttpCall(port, "GET", target);
    if (r.status != 200) return Json();
    return Json::parse(r.body, nullptr, false);
  }

  // Every run the lab has (newest first), through one daemon's API.
  std::vector<Json> Runs(uint16_t port) {
    std::vector<Json> runs;
    std::string cursor;
    for (;;) {
      Json page = Get(port, "/api/v1/runs?limit=1000" + (cursor.empty() ? "" : "&cursor=" + cursor));
      if (!page.is_object()) return {};
      for (const Json& run : page["runs"]) runs.push_back(run);
      if (!page["next_cursor"].is_string() || page["next_cursor"].get<std::string>().empty()) break;
      cursor = page["next_cursor"].get<std::string>();
    }
    return runs;
  }

  std::string url_;
  std::map<std::string, std::string> before_;  // looper_stats per phone before any run
};

TEST_F(LabHostsE2eTest, APoolSpreadsOverThreeHostsAndSurvivesOneKilledMidRun) {
  LabHost hosts[3];
  const char* names[3] = {"lab-a", "lab-b", "lab-c"};
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(StartHostPhones(hosts[i], names[i]));
  for (LabHost& host : hosts) ASSERT_NO_FATAL_FAILURE(StartDaemon(host));
  LabHost& a = hosts[0];
  LabHost& c = hosts[2];

  // Any daemon serves the whole lab: a's API lists every host's phones, with their host.
  ASSERT_TRUE(WaitUntil(
      [&] {
        Json devices = Get(a.port, "/api/v1/devices");
        if (!devices.is_object()) return false;
        int ready = 0;
        for (const Json& d : devices["devices"]) {
          if (d["state"] == "device" && d["model"].is_string() && d["host"].is_string()) ++ready;
        }
        return ready == 3 * kPhonesPerHost;
      },
      seconds(30)))
      << Get(a.port, "/api/v1/devices").dump();
  Json hosts_seen = Get(c.port, "/api/v1/hosts");
  ASSERT_EQ(hosts_seen["hosts"].size(), 3u) << hosts_seen.dump();
  for (const LabHost& host : hosts) {
    for (const DevsimDevice& phone : host.phones) {
      auto labelled = HttpCall(a.port, "PUT", "/api/v1/devices/" + Encoded(phone.address) + "/labels",
                               R"({"labels":["nightly"]})");
      ASSERT_EQ(labelled.status, 200) << labelled.body;
    }
  }

  // lab-b's event stream, open before the runs: it must tell the ends of lab-a's runs too.
  RawHttpClient stream(hosts[1].port);
  ASSERT_TRUE(stream.connected());
  stream.Send(HttpRequestBytes("GET", "/api/v1/events", "", "", false));
  ASSERT_TRUE(stream.ReadUntil("droidlab events")) << stream.raw();

  const std::string body = R"({"pool":{"labels":["nightly"]},"devices":)" +
                           std::to_string(kPoolRuns) +
                           R"(,"package":"com.example.app","mode":"cold","iterations":)" +
                           std::to_string(kIterations) + R"(,"looper_stats":{"sampling_interval":3}})";
  auto created = HttpCall(a.port, "POST", "/api/v1/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_EQ(Json::parse(created.body)["runs"].size(), static_cast<size_t>(kPoolRuns));

  // lab-c measuring a run with a launch stored: kill -9 its daemon there.
  int64_t killed_run = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (const Json& run : Runs(a.port)) {
          if (run["status"] != "running" || run["host"] != "lab-c") continue;
          Json launches =
              Get(a.port, "/api/v1/runs/" + std::to_string(run["id"].get<int64_t>()) + "/launches");
          if (launches.is_object() && !launches["launches"].empty()) {
            killed_run = run["id"].get<int64_t>();
            return true;
          }
        }
        return false;
      },
      seconds(60)));
  ASSERT_EQ(::kill(c.daemon->pid(), SIGKILL), 0);
  c.daemon->Stop();  // reaps it

  // Every run ends (the killed host's after its claim lapses, 30 s), through a living daemon.
  std::vector<Json> runs;
  ASSERT_TRUE(WaitUntil(
      [&] {
        stream.ReadUntil("\n\n\n", std::chrono::milliseconds(1));  // keeps up with the stream
        runs = Runs(a.port);
        int succeeded = 0;
        for (const Json& run : runs) {
          if (run["status"] == "queued" || run["status"] == "running") return false;
          if (run["status"] == "succeeded") ++succeeded;
        }
        return succeeded >= kPoolRuns;
      },
      seconds(150)))
      << Json(runs).dump();

  std::map<std::string, int> succeeded_by_host;
  int interrupted = 0;
  for (const Json& run : runs) {
    const int64_t id = run["id"].get<int64_t>();
    const std::string status = run["status"];
    ASSERT_TRUE(run["pool"].get<bool>()) << run.dump();
    ASSERT_TRUE(run["host"].is_string()) << "every run was claimed: " << run.dump();
    if (status == "succeeded") {
      ++succeeded_by_host[run["host"].get<std::string>()];
      // Measured by one host, whole: its launches are its iterations, each once.
      Json launches = Get(a.port, "/api/v1/runs/" + std::to_string(id) + "/launches");
      std::set<int64_t> iterations;
      for (const Json& l : launches["launches"]) iterations.insert(l["iteration"].get<int64_t>());
      EXPECT_EQ(launches["launches"].size(), static_cast<size_t>(kIterations)) << run.dump();
      EXPECT_EQ(iterations.size(), static_cast<size_t>(kIterations)) << run.dump();
    } else if (status == "interrupted") {
      ++interrupted;
      EXPECT_EQ(run["host"], "lab-c") << run.dump();
      EXPECT_NE(run["error"].get<std::string>().find("host lab-c stopped renewing"),
                std::string::npos)
          << run.dump();
      EXPECT_NE(run["error"].get<std::string>().find("queued again as run"), std::string::npos)
          << run.dump();
    } else {
      ADD_FAILURE() << "run " << id << " ended " << status << ": " << run.dump();
    }
  }
  int succeeded = 0;
  for (const auto& [host, n] : succeeded_by_host) succeeded += n;
  EXPECT_EQ(succeeded, kPoolRuns) << "each of the pool's runs measured once, in full";
  EXPECT_GE(interrupted, 1);
  EXPECT_EQ(runs.size(), static_cast<size_t>(kPoolRuns + interrupted));
  EXPECT_GE(succeeded_by_host.size(), 2u) << "spread over the hosts";
  EXPECT_GT(succeeded_by_host["lab-a"] + succeeded_by_host["lab-b"], 0);
  Json killed = Get(a.port, "/api/v1/runs/" + std::to_string(killed_run));
  EXPECT_EQ(killed["status"], "interrupted") << killed.dump();

  // Every run lab-a measured, its end told on lab-b's stream.
  for (const Json& run : runs) {
    if (run["host"] != "lab-a" || run["status"] != "succeeded") continue;
    const std::string told = "\"id\":" + std::to_string(run["id"].get<int64_t>()) + ",";
    EXPECT_TRUE(WaitUntil(
        [&] {
          stream.ReadUntil("\n\n\n", std::chrono::milliseconds(20));
          for (size_t at = stream.raw().find(told); at != std::string::npos;
               at = stream.raw().find(told, at + 1)) {
            const size_t line_end = stream.raw().find('\n', at);
            if (stream.raw().substr(at, line_end - at).find("\"status\":\"succeeded\"") !=
                std::string::npos) {
              return true;
            }
          }
          return false;
        },
        seconds(10)))
        << "lab-b's stream never told run " << run["id"] << " (lab-a's) succeeded";
    // … and its progress before that, as lab-a told it (issue 17 §2: iteration N of M).
    bool progress_told = false;
    for (size_t at = stream.raw().find(told); at != std::string::npos && !progress_told;
         at = stream.raw().find(told, at + 1)) {
      const size_t start = stream.raw().rfind('{', at);
      const size_t line_end = stream.raw().find('\n', at);
      Json event = Json::parse(stream.raw().substr(start, line_end - start), nullptr, false);
      progress_told = event.is_object() && event["progress"].is_object() &&
                      event["progress"]["iterations_done"].get<int64_t>() >= 1 &&
                      event["progress"]["iterations"] == kIterations;
    }
    EXPECT_TRUE(progress_told) << "lab-b's stream never told run " << run["id"]
                               << "'s progress (lab-a's)";
  }

  // lab-c's daemon back (systemd would restart it): it pays what it owed its phones.
  ASSERT_NO_FATAL_FAILURE(StartDaemon(c));
  for (const LabHost& host : hosts) {
    for (const DevsimDevice& phone : host.phones) {
      EXPECT_TRUE(WaitUntil(
          [&] {
            return Shell(host, phone, "settings get global looper_stats").out ==
                   before_[phone.address];
          },
          seconds(30)))
          << host.name << " " << phone.address << ": "
          << Shell(host, phone, "settings get global looper_stats").out;
    }
  }
  for (LabHost& host : hosts) EXPECT_EQ(host.daemon->Stop(), 0) << host.name;
}

}  // namespace
}  // namespace droidlab::testutil
