// `droidlab serve` as a process, as an operator runs it: the real adb server on a private port, a
// droidlab-devsim device, a real database file, real HTTP. A run posted to the API is measured on
// the device and read back through the API; SIGTERM stops the daemon cleanly; a daemon killed
// mid-run (kill -9) leaves the run `interrupted` at the next start, and its queued runs are
// taken up again. One daemon per database: a second `serve` on it exits 1 and the first goes on;
// a daemon whose port is taken exits 1 before touching the database. And the nightly question, end
// to end: the same scenario measured twice is "no significant change", a scenario 10 % slower is a
// "regression" (GET /runs/{id}/compare). Launches of ~200 ms with a 4 % spread: whole milliseconds
// still resolve the shift (at 100 ms the ties widened the CI of the change to 0), and a run waits a
// fifth of a real cold start.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "store/sqlite.h"
#include "store/store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/child_process.h"
#include "tests/common/http_client.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"
#include "tests/common/wait_until.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

class ServeE2eTest : public DaemonLabTest {};

TEST_F(ServeE2eTest, ARunPostedToTheApiIsMeasuredAndReadBack) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0) << "the daemon did not print its address";
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));
  EXPECT_EQ(Get(port, "/api/v1/health")["adb_server"]["reachable"], true);

  const std::string body =
      R"({"serial":")" + serial +
      R"(","package":"com.example.app","mode":"cold","iterations":3,)"
      R"("looper_stats":{"sampling_interval":1},"proc_sample_interval_ms":50})";
  auto created = HttpCall(port, "POST", "/api/v1/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const int64_t id = Json::parse(created.body)["id"];
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();

  Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  EXPECT_EQ(run["device_model"], "Pixel 7");
  EXPECT_TRUE(run["fingerprint"].is_string());
  EXPECT_EQ(run["summary"]["displayed_ms"]["count"], 3);
  Json launches = Get(port, "/api/v1/runs/" + std::to_string(id) + "/launches")["launches"];
  ASSERT_EQ(launches.size(), 3u);
  for (const auto& l : launches) {
    EXPECT_EQ(l["launch_state"], "COLD");
    EXPECT_EQ(l["valid"], true);
    EXPECT_EQ(l["displayed_ms"], l["total_time_ms"]);  // devsim prints both the same, as Android
    EXPECT_TRUE(l["intent_to_fork_ms"].is_number());
  }
  EXPECT_FALSE(
      Get(port, "/api/v1/runs/" + std::to_string(id) + "/looper-stats")["entries"].empty());
  EXPECT_FALSE(
      Get(port, "/api/v1/runs/" + std::to_string(id) + "/proc-samples")["samples"].empty());
  // The device's looper_stats setting is as it was (devsim starts with none).
  EXPECT_EQ(Shell(devices[0], "settings get global looper_stats").out, "null\n");
  // /metrics: the three launches in the histogram of their package and model, and the adb
  // commands the run made.
  auto metrics = HttpCall(port, "GET", "/metrics");
  EXPECT_NE(metrics.body.find("droidlab_launch_displayed_seconds_count{package=\"com.example.app\","
                              "model=\"Pixel 7\"} 3\n"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("droidlab_adb_command_duration_seconds_count{command=\"shell\"} "),
            std::string::npos)
      << metrics.body;
  // Fleet health (issue 17 §3): the phone, by this host, up and seen.
  const std::string phone = "{serial=\"" + serial + "\",model=\"Pixel 7\"}";
  EXPECT_NE(metrics.body.find("droidlab_device_up" + phone + " 1\n"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("droidlab_device_last_seen_timestamp_seconds" + phone + " 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("droidlab_device_properties_failing" + phone + " 0\n"),
            std::string::npos)
      << metrics.body;

  // SIGTERM: a clean stop, exit 0.
  ::kill(daemon_->pid(), SIGTERM);
  const int status = daemon_->Stop();
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Issue 16 §5 through the real daemon: a warm run on an Android 13 devsim phone whose app leaks
// one Activity per launch into its process (devsim's "memory"; ActivityThread.java
// dumpMemInfoTable's Objects section). GET /runs/{id}/memory serves each iteration's meminfo and
// reports the leak: Activities 2 → 5 over four iterations, one per iteration.
TEST_F(ServeE2eTest, AWarmRunsGrowingActivitiesAreServedAsASuspectedLeak) {
  const std::string scenario = dir_.File("leak.json");
  WriteFileBytes(scenario,
                 R"({"seed":5,"device":{"sdk":33},"packages":[{"name":"com.example.app",)"
                 R"("activity":".MainActivity","uid":10123,"warm":{"mean":60,"stddev":5},)"
                 R"("memory":{"activities":1,"activities_leak_per_launch":1,)"
                 R"("leaked_activity_kb":250,"java_heap_kb":10000}}]})");
  const auto devices = StartDevsim({"--port", "0", "--scenario", scenario, "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0) << "the daemon did not print its address";
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));
  const int64_t id = PostRun(port, R"({"serial":")" + serial +
                                       R"(","package":"com.example.app","mode":"warm",)"
                                       R"("iterations":4})");
  ASSERT_NE(id, 0);
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();

  const Json memory = Get(port, "/api/v1/runs/" + std::to_string(id) + "/memory");
  ASSERT_EQ(memory["iterations"].size(), 4u) << memory.dump();
  for (int i = 1; i <= 4; ++i) {
    const Json& it = memory["iterations"][i - 1];
    EXPECT_EQ(it["iteration"], i);
    EXPECT_EQ(it["objects"]["activities"], 1 + i);
    EXPECT_EQ(it["java_heap_kb"], 10000 + 250 * i);
    EXPECT_TRUE(it["total_rss_kb"].is_number());  // Android 11+
  }
  EXPECT_EQ(memory["leak_check"], "suspected");
  EXPECT_EQ(memory["leak_suspected"]["metric"], "activities");
  EXPECT_EQ(memory["leak_suspected"]["from"], 2);
  EXPECT_EQ(memory["leak_suspected"]["to"], 5);
  EXPECT_DOUBLE_EQ(memory["leak_suspected"]["slope_per_iteration"].get<double>(), 1.0);
  EXPECT_EQ(HttpCall(port, "GET", "/api/v1/runs/999999/memory").status, 404);
}

TEST_F(ServeE2eTest, AKilledDaemonLeavesItsRunInterruptedAndQueuedRunsGoOn) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));
  const std::string body = R"({"serial":")" + serial +
                           R"(","package":"com.example.app","mode":"cold","iterations":200})";
  auto first = HttpCall(port, "POST", "/api/v1/runs", body);
  ASSERT_EQ(first.status, 201);
  const std::string small =
      R"({"serial":")" + serial + R"(","package":"com.example.app","mode":"cold","iterations":2})";
  auto second = HttpCall(port, "POST", "/api/v1/runs", small);
  ASSERT_EQ(second.status, 201);
  const int64_t running = Json::parse(first.body)["id"];
  const int64_t queued = Json::parse(second.body)["id"];
  // Killed once some launches are stored (the writer commits every 50 ms).
  ASSERT_TRUE(WaitForLaunches(port, running, 2));
  ASSERT_EQ(RunStatus(port, running), "running");

  ::kill(daemon_->pid(), SIGKILL);
  daemon_->Stop();
  port = StartDaemon();
  ASSERT_NE(port, 0);
  Json run = Get(port, "/api/v1/runs/" + std::to_string(running));
  EXPECT_EQ(run["status"], "interrupted");
  EXPECT_TRUE(run["error"].is_string());
  // The launches measured before the kill are kept.
  EXPECT_FALSE(
      Get(port, "/api/v1/runs/" + std::to_string(running) + "/launches")["launches"].empty());
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, queued) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(queued)).dump();
}

// `droidlab serve` on this test's database with `listen`, bounded (timeout(1): a daemon that
// does not exit is killed after 20 s, exit code 124), its exit code and output captured.
ProcessResult ServeBounded(const std::string& db, const std::string& listen, uint16_t adb_port) {
  return RunProcess({"/usr/bin/timeout", "20", DROIDLAB_BINARY, "serve", "--listen", listen, "--db",
                     db, "--adb-server", "tcp:127.0.0.1:" + std::to_string(adb_port), "--adb-path",
                     AdbPath(), "--log-level", "warn"});
}

TEST_F(ServeE2eTest, ASecondDaemonOnTheSameDatabaseExits1AndTheFirstKeepsServing) {
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  const ProcessResult second =
      ServeBounded(dir_.File("lab.db"), "127.0.0.1:0", static_cast<uint16_t>(server_.port()));
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.err.find("another droidlab daemon is serving " + dir_.File("lab.db")),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("pid " + std::to_string(daemon_->pid())), std::string::npos)
      << second.err;
  EXPECT_EQ(second.out.find("listening"), std::string::npos) << second.out;
  EXPECT_TRUE(Get(port, "/api/v1/health").is_object());
}

TEST_F(ServeE2eTest, ADaemonWhosePortIsTakenExits1AndHasNotTouchedItsRuns) {
  int64_t id = 0;
  {
    std::unique_ptr<store::Store> st = OpenTestStore(dir_, "lab.db");
    ASSERT_TRUE(st);
    store::NewRun run;
    run.spec_json = "{}";
    run.serial = "emulator-5554";
    run.package = "com.example.app";
    run.mode = "cold";
    run.created_at = 1;
    auto created = st->CreateRun(run);
    ASSERT_TRUE(created.ok());
    id = *created;
    store::RunStatusUpdate running;
    running.run_id = id;
    running.status = store::RunStatus::kRunning;
    ASSERT_TRUE(st->UpdateRunStatus(running).ok());
  }
  // The port, taken by the test.
  const int taken = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(taken, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(taken, 4), 0);
  ASSERT_EQ(::getsockname(taken, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string listen = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));

  const ProcessResult refused =
      ServeBounded(dir_.File("lab.db"), listen, static_cast<uint16_t>(server_.port()));
  ::close(taken);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("cannot listen on"), std::string::npos) << refused.err;
  {
    std::unique_ptr<store::Store> st = OpenTestStore(dir_, "lab.db");
    ASSERT_TRUE(st);
    auto run = st->Read([&](store::Reader& r) { return r.GetRun(id); });
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, store::RunStatus::kRunning)
        << "a daemon that could not listen marked the run " << store::RunStatusName(run->status);
  }
  // Its lock went with it: the next daemon starts, and recovers the run.
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  EXPECT_EQ(RunStatus(port, id), "interrupted");
}

// devsim draws each launch from its scenario's normal distribution (seeded, but the draws of
// unmeasured priming and probe launches interleave, so runs differ). At a 4 % spread and 40
// iterations a 10 % shift is caught essentially always; the A/A half can fail only at the
// verdict's false-positive rate (0.7 % measured, orchestrator/README.md).
TEST_F(ServeE2eTest, CompareJudgesAaAsNoChangeAndATenPercentShiftAsARegression) {
  const auto base =
      StartDevsim({"--port", "0", "--fast", "--scenario", ColdLaunchScenario("base", 7, 200, 8)});
  ASSERT_EQ(base.size(), 1u);
  // The same phone model with a build 10 % slower to launch.
  ChildProcess slower_devsim({DevsimPath(), "--port", "0", "--fast", "--scenario",
                              ColdLaunchScenario("slower", 11, 220, 9)});
  const auto slower = ReadListeningLines(slower_devsim, 1);
  ASSERT_EQ(slower.size(), 1u);
  server_.Adb({"connect", slower[0].address});

  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, base[0].address); }, seconds(20)));
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, slower[0].address); }, seconds(20)));

  auto run_on = [&](const std::string& serial) -> int64_t {
    const std::string body = R"({"serial":")" + serial +
                             R"(","package":"com.example.app","mode":"cold","iterations":40})";
    auto created = HttpCall(port, "POST", "/api/v1/runs", body);
    EXPECT_EQ(created.status, 201) << created.body;
    if (created.status != 201) return 0;
    const int64_t id = Json::parse(created.body)["id"];
    EXPECT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "succeeded"; }, seconds(90)))
        << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();
    return id;
  };
  const int64_t a1 = run_on(base[0].address);
  const int64_t a2 = run_on(base[0].address);
  const int64_t b = run_on(slower[0].address);
  ASSERT_TRUE(a1 && a2 && b);

  // A/A: the previous successful run of the same package, model and mode is the baseline.
  Json aa = Get(port, "/api/v1/runs/" + std::to_string(a2) + "/compare");
  EXPECT_EQ(aa["baseline_id"], a1);
  EXPECT_EQ(aa["verdict"], "no_significant_change") << aa.dump();

  Json shifted =
      Get(port, "/api/v1/runs/" + std::to_string(b) + "/compare?baseline=" + std::to_string(a1));
  EXPECT_EQ(shifted["verdict"], "regression") << shifted.dump();
  EXPECT_GT(shifted["delta_percent"].get<double>(), 5.0);
  EXPECT_LT(shifted["p_value"].get<double>(), 0.01);
}

// Unplugged mid-run with looper stats on: the run fails and cannot restore the device; when adb
// has the device back (it retries a TCP device every ~10 s), the daemon puts the setting back by
// itself — no later run needed — and undoes its `dumpsys battery unplug`.
TEST_F(ServeE2eTest, AnUnpluggedDeviceGetsItsLooperSettingBackWhenItReturns) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const auto& devices = mid.devices;
  const std::string& before = mid.before;
  const uint16_t port = mid.port;
  const int64_t id = mid.run_id;
  Shell(devices[0], "devsim-fault unplug 2000");
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "failed"; }, seconds(30)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();
  Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  EXPECT_NE(run["error"].get<std::string>().find("iteration "), std::string::npos) << run.dump();

  // Back in adb's list, the device gets its own setting back and a real battery again.
  ASSERT_TRUE(
      WaitUntil([&] { return Shell(devices[0], "settings get global looper_stats").out == before; },
                seconds(40)))
      << Shell(devices[0], "settings get global looper_stats").out;
  EXPECT_EQ(Shell(devices[0], "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
}

// kill -9 of the daemon in the middle of a looper-stats run with the battery unplugged (devsim's
// SDK 33 ignores ignore_battery_status): the restart, with no further run, puts the phone's
// setting and battery back as they were before the run — the restores were committed to the
// database before the changes were sent, and the new daemon pays them when it sees the device.
TEST_F(ServeE2eTest, AKilledDaemonsPhoneIsPutBackAtTheNextStart) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const auto& devices = mid.devices;
  const std::string& before = mid.before;
  uint16_t port = mid.port;
  const int64_t id = mid.run_id;
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->Stop();
  ASSERT_NE(Shell(devices[0], "settings get global looper_stats").out, before);
  ASSERT_NE(Shell(devices[0], "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);

  port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(
      WaitUntil([&] { return Shell(devices[0], "settings get global looper_stats").out == before; },
                seconds(30)))
      << Shell(devices[0], "settings get global looper_stats").out;
  EXPECT_TRUE(WaitUntil(
      [&] {
        return Shell(devices[0], "dumpsys battery").out.find("UPDATES STOPPED") ==
               std::string::npos;
      },
      seconds(10)));
  EXPECT_EQ(RunStatus(port, id), "interrupted");
}

// Issue 13: SIGTERM (systemctl stop, docker stop) in the middle of a looper-stats run with the
// battery unplugged: the daemon exits 0 within 30 s, the phone has its setting and battery back,
// and the run queued behind is still queued for the next start.
TEST_F(ServeE2eTest, SigtermMidLooperRunRestoresThePhoneAndKeepsQueuedRuns) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const DevsimDevice& phone = mid.devices[0];
  const int64_t queued = PostRun(mid.port, R"({"serial":")" + phone.address +
                                               R"(","package":"com.example.app","mode":"cold","iterations":3})");
  ASSERT_NE(queued, 0);
  ASSERT_NE(Shell(phone, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);

  const auto asked = std::chrono::steady_clock::now();
  ::kill(daemon_->pid(), SIGTERM);
  const std::optional<int> status = daemon_->Wait(seconds(30));
  ASSERT_TRUE(status) << "the daemon did not stop within 30 s of SIGTERM";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  EXPECT_LT(std::chrono::steady_clock::now() - asked, seconds(30));

  EXPECT_EQ(Shell(phone, "settings get global looper_stats").out, mid.before);
  EXPECT_EQ(Shell(phone, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
  StoppedDaemonsDatabase stopped(dir_.File("lab.db"));
  ASSERT_TRUE(stopped.db);
  EXPECT_EQ(stopped.Status(mid.run_id), "cancelled");
  EXPECT_EQ(stopped.Status(queued), "queued");
  EXPECT_EQ(stopped.Owed(phone.address), 0u);
}

// Issue 13: a restore command that hangs (settings put stuck behind a system_server lock): the
// daemon still ends within 30 s of SIGTERM, what it could not put back stays owed in the store,
// and the next start pays it once the phone answers again.
TEST_F(ServeE2eTest, AHungRestoreStaysOwedAndSigtermStillEndsInTime) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const DevsimDevice& phone = mid.devices[0];
  ASSERT_EQ(Shell(phone, "devsim-fault hang 'settings put' 1000").exit_code, 0);

  ::kill(daemon_->pid(), SIGTERM);
  const std::optional<int> status = daemon_->Wait(seconds(30));
  ASSERT_TRUE(status) << "a hung restore kept the daemon from stopping";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  // The command may have been applied (devsim's hang, like a real one, withholds the answer):
  // unanswered, it is not known to be, so the restore stays owed.
  {
    StoppedDaemonsDatabase stopped(dir_.File("lab.db"));
    ASSERT_TRUE(stopped.db);
    EXPECT_GE(stopped.Owed(phone.address), 1u);
  }

  ASSERT_EQ(Shell(phone, "devsim-fault clear").exit_code, 0);
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, phone.address); }, seconds(20)));
  // Paid by the new daemon as soon as it sees the phone (read beside it, read-only: WAL).
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto db = store::Database::Open(dir_.File("lab.db"), store::Database::Mode::kReadOnly);
        if (!db.ok()) return false;
        auto owed = db->QueryInt64("SELECT count(*) FROM device_restores WHERE paid_at IS NULL",
                                   "counting owed restores");
        return owed.ok() && *owed == 0;
      },
      seconds(30)));
  EXPECT_EQ(Shell(phone, "settings get global looper_stats").out, mid.before);
}

// The adb server killed mid-run: the run ends (failed, saying why) instead of hanging, and once
// the server is back with its devices the daemon goes on measuring the other device.
TEST_F(ServeE2eTest, AdbServerKilledMidRunEndsTheRunAndTheDaemonGoesOn) {
  const auto devices = StartDevsim({"--port", "0", "--fast", "--count", "2"}, 2);
  ASSERT_EQ(devices.size(), 2u);
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  for (const auto& d : devices) {
    ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, d.address); }, seconds(20)));
  }
  const std::string body = R"({"serial":")" + devices[0].address +
                           R"(","package":"com.example.app","mode":"cold","iterations":200})";
  const int64_t id = PostRun(port, body);
  ASSERT_NE(id, 0);
  ASSERT_TRUE(WaitForLaunches(port, id, 2));

  EXPECT_EQ(server_.Adb({"kill-server"}).exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "failed"; }, seconds(30)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();
  Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  EXPECT_FALSE(run["error"].get<std::string>().empty()) << run.dump();
  EXPECT_FALSE(Get(port, "/api/v1/runs/" + std::to_string(id) + "/launches")["launches"].empty());

  // A new server (the daemon starts one itself when the port is silent) knows no TCP devices
  // until they are connected again, as after any adb restart.
  for (const auto& d : devices) server_.Adb({"connect", d.address});
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, devices[1].address); }, seconds(30)));
  EXPECT_EQ(Get(port, "/api/v1/health")["adb_server"]["reachable"], true);
  const std::string small = R"({"serial":")" + devices[1].address +
                            R"(","package":"com.example.app","mode":"cold","iterations":2})";
  auto second = HttpCall(port, "POST", "/api/v1/runs", small);
  ASSERT_EQ(second.status, 201) << second.body;
  const int64_t next = Json::parse(second.body)["id"];
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, next) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(next)).dump();
}

// Issue 13: a 400 KB schedule body with a run nested 200,000 levels deep ended the daemon with
// SIGSEGV (nlohmann's recursive dump() on the io thread). Now: a 400, and the process lives on.
TEST_F(ServeE2eTest, ADeeplyNestedScheduleBodyIsRefusedAndTheDaemonLivesOn) {
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0) << "the daemon did not print its address";
  const size_t depth = 200'000;
  const std::string body =
      R"({"cron":"0 2 * * *","run":{"serial":"R58M123ABC","package":"com.example.app",)"
      R"("mode":"cold","iterations":3,"activity":)" +
      std::string(depth, '[') + "1" + std::string(depth, ']') + "}}";
  ASSERT_GT(body.size(), 400'000u);
  auto refused = HttpCall(port, "POST", "/api/v1/schedules", body);
  EXPECT_EQ(refused.status, 400) << refused.body.substr(0, 300);
  EXPECT_NE(refused.body.find("nested deeper than 64 levels"), std::string::npos) << refused.body;
  EXPECT_FALSE(daemon_->Wait(milliseconds(200)).has_value()) << "the daemon exited";
  EXPECT_EQ(HttpCall(port, "GET", "/api/v1/health").status, 200);
}

}  // namespace
}  // namespace droidlab::testutil
