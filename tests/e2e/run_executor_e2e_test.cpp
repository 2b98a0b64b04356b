// ExecuteRun against the real adb server (private port) and droidlab-devsim --fast, with a real
// SQLite file: what is stored for each launch is what the device printed (its logcat's Displayed
// lines and am start's TotalTime, read back with `adb logcat -d` after the run), per Android
// version (devsim's SDK 28/29/33/34 formats: ActivityManager vs ActivityTaskManager tags, no
// LaunchState on 28, ignore_battery_status read from 34 only); the looper_stats setting is the
// same before and after a run and after a cancel; faults (hung am start, log garbage, a cut
// looper dump, an unplug) end as the executor's header promises.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adb/client.h"
#include "analysis/leak.h"
#include "orchestrator/lab/run_reports.h"
#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/launch_matcher.h"
#include "orchestrator/run/owed_restores.h"
#include "orchestrator/run/run_executor.h"
#include "orchestrator/spec/run_spec.h"
#include "parsers/logcat.h"
#include "store/store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using orchestrator::Compilation;
using orchestrator::LaunchMode;
using orchestrator::RunOutcome;
using orchestrator::RunSpec;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kPackage[] = "com.example.app";
constexpr char kComponent[] = "com.example.app/.MainActivity";

// ExecuteRun on its own io thread; the test thread may act on the device while it runs.
class RunningExecution {
 public:
  RunningExecution(adb::ClientOptions client_options, store::Store& st, int64_t run_id,
                   RunSpec spec, orchestrator::OwedRestores* owed_restores = nullptr,
                   std::function<void(const orchestrator::RunProgress&)> also_on_progress = {})
      : io_(std::make_unique<asio::io_context>()),
        work_(asio::make_work_guard(*io_)),
        client_(io_->get_executor(), std::move(client_options)) {
    orchestrator::RunExecutorOptions options;
    options.owed_restores = owed_restores;
    options.cooldown_poll = std::chrono::milliseconds(250);  // a hot phone is read again soon
    options.on_progress = [this, also_on_progress](const orchestrator::RunProgress& p) {
      iterations_done_ = p.iterations_done;
      if (also_on_progress) also_on_progress(p);
    };
    options.log = [](std::string_view line) {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    };
    asio::co_spawn(*io_, orchestrator::ExecuteRun(client_, st, run_id, std::move(spec), options),
                   asio::bind_cancellation_slot(cancel_.slot(),
                                                [this](std::exception_ptr e, RunOutcome outcome) {
                                                  EXPECT_FALSE(e) << "ExecuteRun threw";
                                                  outcome_ = std::move(outcome);
                                                  finished_ = true;
                                                }));
    thread_ = std::thread([this] { io_->run(); });
  }
  ~RunningExecution() {
    if (abandoned_) {
      // Abandon joined the thread. The run's coroutine frames go with the io_context, and they
      // hold permits of the client's per-device semaphores: destroy the context (and the frames)
      // while the client is still alive. The client owns no I/O object of its own.
      io_.reset();
      return;
    }
    if (!finished_) Cancel();
    WaitUntil([this] { return finished_.load(); }, seconds(20));
    work_.reset();
    if (!finished_) io_->stop();
    thread_.join();
  }
  void Cancel() {
    asio::post(*io_, [this] { cancel_.emit(asio::cancellation_type::terminal); });
  }
  // As if the daemon died now (kill -9, OOM): the io thread stops where it is, no cancel, no
  // restore — nothing of the run runs again.
  void Abandon() {
    abandoned_ = true;
    work_.reset();
    io_->stop();
    thread_.join();
  }
  int64_t iterations_done() const { return iterations_done_; }
  // Waits for the end (bounded); the outcome, or nullopt when it never came.
  std::optional<RunOutcome> Wait(seconds limit = seconds(40)) {
    if (!WaitUntil([this] { return finished_.load(); }, limit)) return std::nullopt;
    return outcome_;
  }

 private:
  std::unique_ptr<asio::io_context> io_;  // reset first when abandoned (see the destructor)
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  adb::Client client_;
  asio::cancellation_signal cancel_;
  std::atomic<int64_t> iterations_done_{0};
  std::atomic<bool> finished_{false};
  bool abandoned_ = false;
  RunOutcome outcome_;
  std::thread thread_;
};

class RunExecutorE2eTest : public AdbLabTest {
 protected:
  void SetUp() override {
    AdbLabTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenTestStore(dir_, "lab.db");
    ASSERT_TRUE(store_);
  }

  // A devsim phone of `sdk` with quick launches (so a run takes ~a second), `extra` JSON
  // members of the scenario and `package_extra` members of its app.
  DevsimDevice StartPhone(int sdk, const std::string& extra = "",
                          const std::string& package_extra = "") {
    const std::string path = dir_.File("scenario" + std::to_string(sdk) + ".json");
    std::ofstream(path) << R"({"seed": )" << sdk << R"(, "device": {"sdk": )" << sdk
                        << R"(, "serial": "EXEC)" << sdk << R"("},
        "noise_lines_per_s": 30,
        "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
          "cold": {"mean": 180, "stddev": 20}, "warm": {"mean": 90, "stddev": 10},
          "hot": {"mean": 50, "stddev": 5}, "reports_fully_drawn": true,
          "fully_drawn": {"mean": 260, "stddev": 20})"
                        << package_extra << "}]" << extra << "}";
    auto devices = StartDevsim({"--port", "0", "--scenario", path, "--fast"});
    EXPECT_EQ(devices.size(), 1u);
    if (devices.empty()) return {};
    WaitForDevice(server_, devices[0].address);
    return devices[0];
  }

  adb::ClientOptions ClientOptions() const {
    adb::ClientOptions options;
    options.server.port = static_cast<uint16_t>(server_.port());
    options.adb_path = AdbPath();
    return options;
  }

  // One of `devsim-stats`' counters ("processes_started", "shell_services"); -1 when absent. The
  // read itself opens one shell and starts two processes (the shell and devsim-stats).
  int64_t DevsimStat(const DevsimDevice& phone, const std::string& name) {
    const auto stats = server_.Adb({"-s", phone.address, "shell", "devsim-stats"});
    const std::string key = name + " ";
    const size_t at = stats.out.find(key);
    EXPECT_NE(at, std::string::npos) << stats.out << stats.err;
    return at == std::string::npos ? int64_t{-1} : std::stoll(stats.out.substr(at + key.size()));
  }

  RunSpec Spec(const DevsimDevice& device, LaunchMode mode, int64_t iterations) {
    RunSpec spec;
    spec.serial = device.address;
    spec.package = kPackage;
    spec.mode = mode;
    spec.iterations = iterations;
    spec.launch_timeout_ms = 5000;
    return spec;
  }

  int64_t CreateRun(const RunSpec& spec, int64_t created_at = 1,
                    std::optional<std::string> model = std::nullopt) {
    store::NewRun run;
    run.device_model = std::move(model);
    run.spec_json = orchestrator::RunSpecToJson(spec);
    run.serial = spec.serial;
    run.package = spec.package;
    run.mode = orchestrator::LaunchModeName(spec.mode);
    run.iterations = spec.iterations;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok());
    return id.ok() ? *id : 0;
  }

  // Executes run `id` to its end; its outcome, or nullopt when it never ended (40 s).
  std::optional<RunOutcome> RunToEnd(int64_t id, const RunSpec& spec,
                                     orchestrator::OwedRestores* owed = nullptr) {
    RunningExecution run(ClientOptions(), *store_, id, spec, owed);
    return run.Wait();
  }
  std::vector<store::Launch> Launches(int64_t run_id) {
    EXPECT_TRUE(store_->Flush().ok());
    auto l = store_->Read([&](store::Reader& r) { return r.ListLaunches(run_id); });
    return l ? *l : std::vector<store::Launch>{};
  }
  std::optional<store::Run> StoredRun(int64_t run_id) {
    auto r = store_->Read([&](store::Reader& reader) { return reader.GetRun(run_id); });
    if (!r) return std::nullopt;
    return *r;
  }

  // The device's own launch lines, as `adb logcat -d -v epoch` prints them after the run.
  std::vector<parsers::LaunchEvent> DeviceLaunchLines(const DevsimDevice& device) {
    const auto log = server_.Adb({"-s", device.address, "logcat", "-d", "-v", "epoch"});
    parsers::LogcatReader reader;
    std::vector<parsers::LaunchEvent> events;
    size_t at = 0;
    while (at < log.out.size()) {
      size_t nl = log.out.find('\n', at);
      if (nl == std::string::npos) nl = log.out.size();
      std::string_view line(log.out.data() + at, nl - at);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      reader.AddLine(line, events);
      at = nl + 1;
    }
    std::vector<parsers::LaunchEvent> ours;
    for (auto& e : events) {
      if (e.package == kPackage) ours.push_back(std::move(e));
    }
    return ours;
  }
  static std::vector<int64_t> Values(const std::vector<parsers::LaunchEvent>& events,
                                     parsers::LaunchEventKind kind) {
    std::vector<int64_t> out;
    for (const auto& e : events) {
      if (e.kind == kind && e.duration_ms) out.push_back(*e.duration_ms);
    }
    return out;
  }

  // Stored launches against the device's log: the run's Displayed (and Fully drawn) values are
  // the log's last ones, in order, and am's TotalTime equals Displayed (devsim prints both from
  // one number, as ActivityMetricsLogger does for a single-window launch).
  void ExpectStoredEqualsDevice(const DevsimDevice& device, const std::vector<store::Launch>& ls,
                                bool fully_drawn) {
    const auto events = DeviceLaunchLines(device);
    const auto displayed = Values(events, parsers::LaunchEventKind::kDisplayed);
    ASSERT_GE(displayed.size(), ls.size());
    for (size_t i = 0; i < ls.size(); ++i) {
      const int64_t device_value = displayed[displayed.size() - ls.size() + i];
      EXPECT_EQ(ls[i].displayed_ms, device_value) << "iteration " << ls[i].iteration;
      EXPECT_EQ(ls[i].total_time_ms, device_value) << "iteration " << ls[i].iteration;
      ASSERT_TRUE(ls[i].wait_time_ms);
      EXPECT_GE(*ls[i].wait_time_ms, device_value);
      if (fully_drawn) {
        const auto drawn = Values(events, parsers::LaunchEventKind::kFullyDrawn);
        ASSERT_GE(drawn.size(), ls.size());
        EXPECT_EQ(ls[i].fully_drawn_ms, drawn[drawn.size() - ls.size() + i]) << [&] {
          std::string seq;
          for (const auto& e : events) {
            seq += e.time + " " + std::string(parsers::LaunchEventKindName(e.kind)) + " " +
                   std::to_string(e.duration_ms.value_or(-1)) + "\n";
          }
          return seq;
        }();
      }
    }
  }

  std::string LooperSetting(const DevsimDevice& device) {
    return Shell(device, "settings get global looper_stats").out;
  }

  TempDir dir_;
  std::unique_ptr<store::Store> store_;
};

// Android 9 (SDK 28): ActivityManager tag, no LaunchState: a cold launch is judged by its
// Start proc line. Phases: intent→fork equals the log's START→Start proc gap (10 ms ticks).
TEST_F(RunExecutorE2eTest, Sdk28ColdLaunchesEqualTheDeviceLog) {
  const DevsimDevice device = StartPhone(28);
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  EXPECT_EQ(outcome->valid_launches, 3);
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  ExpectStoredEqualsDevice(device, launches, false);
  const auto events = DeviceLaunchLines(device);
  std::vector<int64_t> gaps;  // START → Start proc on the log clock, per cold launch
  std::optional<int64_t> start_ms;
  for (const auto& e : events) {
    const auto t = parsers::LogTimeToEpochMs(e.log_time, 2026);
    if (e.kind == parsers::LaunchEventKind::kActivityStart) start_ms = t;
    if (e.kind == parsers::LaunchEventKind::kProcessStart && start_ms && t) {
      EXPECT_EQ(e.tag, "ActivityManager");
      gaps.push_back(*t - *start_ms);
    }
  }
  ASSERT_GE(gaps.size(), 3u);
  for (size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    EXPECT_TRUE(l.valid) << l.invalid_reason.value_or("");
    EXPECT_FALSE(l.launch_state);  // Android 9 prints ThisTime, not LaunchState
    ASSERT_TRUE(l.intent_to_fork_ms()) << "iteration " << l.iteration;
    // /proc/uptime has centiseconds and starttime 10 ms ticks: within 20 ms of the log's gap.
    EXPECT_NEAR(static_cast<double>(*l.intent_to_fork_ms()),
                static_cast<double>(gaps[gaps.size() - launches.size() + i]), 20.0);
    ASSERT_TRUE(l.fork_to_displayed_ms());
    EXPECT_GT(*l.fork_to_displayed_ms(), 0);
    EXPECT_TRUE(l.pid);
  }
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, store::RunStatus::kSucceeded);
  EXPECT_TRUE(stored->started_at && stored->finished_at);
  EXPECT_TRUE(stored->fingerprint && stored->fingerprint->find(":9/") != std::string::npos)
      << stored->fingerprint.value_or("");
}

// Android 10 (SDK 29): warm launches after one priming launch, LaunchState WARM, no new process.
TEST_F(RunExecutorE2eTest, Sdk29WarmLaunchesAreWarm) {
  const DevsimDevice device = StartPhone(29);
  RunSpec spec = Spec(device, LaunchMode::kWarm, 3);
  spec.proc_sample_interval_ms = 50;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  ExpectStoredEqualsDevice(device, launches, false);
  for (const auto& l : launches) {
    EXPECT_EQ(l.launch_state, "WARM");
    EXPECT_TRUE(l.valid) << l.invalid_reason.value_or("");
    EXPECT_FALSE(l.fork_at_ms);  // the process is older than the launch
    EXPECT_EQ(l.pid, launches[0].pid);
  }
  EXPECT_GT(outcome->proc_samples, 0);
  auto samples = store_->Read([&](store::Reader& r) { return r.ListProcSamples(id); });
  ASSERT_TRUE(samples);
  ASSERT_FALSE(samples->empty());
  EXPECT_EQ(samples->back().pid, launches[0].pid);
  EXPECT_GT(samples->back().rss_kb, 0);
  EXPECT_GT(samples->back().num_threads, 0);
}

// Android 13 (SDK 33): cold launches with Fully drawn and looper stats; devsim's 13 does not
// read ignore_battery_status, so the gate is opened with `dumpsys battery unplug` — and reset.
// A previous setting with a key of its own is put back verbatim.
TEST_F(RunExecutorE2eTest, Sdk33ColdWithLooperStatsRestoresSettingAndBattery) {
  const DevsimDevice device = StartPhone(33);
  ASSERT_EQ(
      Shell(device, "settings put global looper_stats sampling_interval=7,track_screen_state=false")
          .exit_code,
      0);
  const std::string before = LooperSetting(device);
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  spec.looper_sampling_interval = 1;
  spec.fully_drawn_timeout_ms = 3000;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 2u);
  ExpectStoredEqualsDevice(device, launches, true);
  for (const auto& l : launches) EXPECT_EQ(l.launch_state, "COLD");
  EXPECT_EQ(LooperSetting(device), before);
  EXPECT_EQ(Shell(device, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
  auto rows = store_->Read([&](store::Reader& r) { return r.ListLooperStats(id); });
  ASSERT_TRUE(rows);
  EXPECT_EQ(static_cast<int64_t>(rows->size()), outcome->looper_rows);
  EXPECT_TRUE(std::any_of(rows->begin(), rows->end(), [](const store::LooperStatsRow& r) {
    return r.is_app && r.package == std::string(kPackage);
  }));
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored && stored->preflight_json);
  EXPECT_NE(stored->preflight_json->find("\"charging_gate\":\"battery_unplug\""), std::string::npos)
      << *stored->preflight_json;
}

// Android 14 (SDK 34): hot launches; ignore_battery_status opens the gate; an unset setting is
// deleted again at the end ("null" before and after).
TEST_F(RunExecutorE2eTest, Sdk34HotWithLooperStatsUsesIgnoreBatteryStatus) {
  const DevsimDevice device = StartPhone(34);
  ASSERT_EQ(LooperSetting(device), "null\n");
  RunSpec spec = Spec(device, LaunchMode::kHot, 3);
  spec.looper_sampling_interval = 1;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  ExpectStoredEqualsDevice(device, launches, false);
  for (const auto& l : launches) EXPECT_EQ(l.launch_state, "HOT");
  EXPECT_EQ(LooperSetting(device), "null\n");
  EXPECT_GT(outcome->looper_rows, 0);
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored && stored->preflight_json);
  EXPECT_NE(stored->preflight_json->find("\"charging_gate\":\"ignore_battery_status\""),
            std::string::npos);
}

// The charging gate is found whatever the run's sampling interval: LooperStats creates an entry
// only for a sampled message (LooperStats.java findEntry), so a probe at the run's own interval —
// here the largest a spec takes — recorded nothing through an open gate, unplugged the battery
// for nothing, and failed the run ("recorded nothing, neither with ignore_battery_status=true nor
// with the battery unplugged"). The probe samples every message; the run's interval is put after.
// (A run window at 1 in 1,000,000 may hold no row: only the gate is asked of this run.)
TEST_F(RunExecutorE2eTest, Sdk34TheGateIsFoundAtASamplingIntervalNoProbeCouldMeet) {
  const DevsimDevice device = StartPhone(34);
  RunSpec spec = Spec(device, LaunchMode::kCold, 1);
  spec.looper_sampling_interval = orchestrator::kMaxSamplingInterval;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->error.value_or("").find("recorded nothing"), std::string::npos)
      << *outcome->error;
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored && stored->preflight_json);
  EXPECT_NE(stored->preflight_json->find("\"charging_gate\":\"ignore_battery_status\""),
            std::string::npos)
      << *stored->preflight_json;
  EXPECT_EQ(Shell(device, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
  EXPECT_EQ(LooperSetting(device), "null\n");
}

// A cancel mid-run stops within a second, restores the setting, and says cancelled.
// Issue 13 §3: the disk fills once the run is `running` (this process may write no further in
// any file: RLIMIT_FSIZE at the WAL's size, SIGXFSZ ignored, so SQLite's writes fail as they do
// on a full disk). Every launch and sample batch is lost after the writer took it: the run must
// not come back `succeeded`, and its end says what was lost and that it is not on disk.
TEST_F(RunExecutorE2eTest, ADiskThatFillsMidRunNeverEndsItSucceeded) {
  const DevsimDevice phone = StartPhone(33);
  RunSpec spec = Spec(phone, LaunchMode::kCold, 5);
  spec.proc_sample_interval_ms = 50;
  const int64_t id = CreateRun(spec);
  ASSERT_TRUE(store_->Flush().ok());
  const std::string wal = dir_.File("lab.db-wal");
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  std::signal(SIGXFSZ, SIG_IGN);
  std::atomic<bool> full{false};
  auto fill_the_disk = [&](const orchestrator::RunProgress& p) {
    if (p.phase != "launching" || full.exchange(true)) return;
    struct stat st {};
    const off_t size = ::stat(wal.c_str(), &st) == 0 ? st.st_size : 0;
    rlimit limit = before;
    limit.rlim_cur = static_cast<rlim_t>(size);
    ::setrlimit(RLIMIT_FSIZE, &limit);
  };
  std::optional<RunOutcome> outcome;
  {
    RunningExecution run(ClientOptions(), *store_, id, spec, nullptr, fill_the_disk);
    outcome = run.Wait(seconds(60));
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  ASSERT_TRUE(full.load()) << "the run never reached its launches";
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed) << outcome->error.value_or("");
  EXPECT_NE(outcome->error.value_or("").find("not stored"), std::string::npos)
      << outcome->error.value_or("");
  // Its end could not be written either: the run queue will not announce it (run_queue.cpp).
  EXPECT_FALSE(outcome->status_stored);
  auto stored = StoredRun(id);
  ASSERT_TRUE(stored);
  EXPECT_NE(stored->status, store::RunStatus::kSucceeded);
}

// Issue 13 §3: proc samples go to the store as the run goes (after each launch), not all at its
// end — a daemon that dies at iteration 30 of 40 has kept the samples of the first 29.
TEST_F(RunExecutorE2eTest, ProcSamplesAreStoredWhileTheRunGoes) {
  const DevsimDevice phone = StartPhone(33);
  RunSpec spec = Spec(phone, LaunchMode::kCold, 30);
  spec.proc_sample_interval_ms = 20;
  const int64_t id = CreateRun(spec);
  RunningExecution run(ClientOptions(), *store_, id, spec);
  ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 3; }, seconds(40)));
  size_t stored_midway = 0;
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto samples = store_->Read([&](store::Reader& r) { return r.ListProcSamples(id); });
        stored_midway = samples ? samples->size() : 0;
        return stored_midway > 0;
      },
      seconds(5)));
  EXPECT_LT(run.iterations_done(), 30) << "the run ended before it could be looked at midway";
  auto outcome = run.Wait();
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  auto all = store_->Read([&](store::Reader& r) { return r.ListProcSamples(id); });
  ASSERT_TRUE(all);
  EXPECT_EQ(static_cast<int64_t>(all->size()), outcome->proc_samples);
  EXPECT_GT(all->size(), stored_midway);
}

// Issue 17 §4: the proc sampler is one shell for the whole run, on the phone a loop that reads
// the stat with a builtin and finds the pid again after each force-stop; it dies with the run.
// devsim counts the processes its shells start (`devsim-stats`: one per shell service, per
// command that is not a builtin): one sample per command would cost the phone at least two
// per sample (adbd's shell and its cat), the stream about one (its sleep).
TEST_F(RunExecutorE2eTest, Sdk33ColdRunSamplesThroughOneStreamFollowingThePid) {
  const DevsimDevice phone = StartPhone(33);
  auto processes_started = [&] { return DevsimStat(phone, "processes_started"); };
  // The run's own commands cost the phone the same with or without sampling: measured by the
  // same run without it first (the two reads of the counter add 2 each: their shell and
  // devsim-stats).
  RunSpec unsampled = Spec(phone, LaunchMode::kCold, 6);
  const int64_t unsampled_id = CreateRun(unsampled);
  const int64_t unsampled_before = processes_started();
  std::optional<RunOutcome> outcome;
  {
    RunningExecution run(ClientOptions(), *store_, unsampled_id, unsampled);
    outcome = run.Wait();
  }
  ASSERT_TRUE(outcome);
  ASSERT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const int64_t own_processes = processes_started() - unsampled_before - 2;

  RunSpec spec = Spec(phone, LaunchMode::kCold, 6);
  spec.proc_sample_interval_ms = 20;
  const int64_t id = CreateRun(spec);
  const int64_t before = processes_started();
  {
    RunningExecution run(ClientOptions(), *store_, id, spec);
    outcome = run.Wait();
  }
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const int64_t after = processes_started();
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 6u);
  auto samples = store_->Read([&](store::Reader& r) { return r.ListProcSamples(id); });
  ASSERT_TRUE(samples);
  EXPECT_EQ(static_cast<int64_t>(samples->size()), outcome->proc_samples);
  ASSERT_GT(samples->size(), 20u);

  // The pid followed across the cold launches: every launch's process was sampled, in order
  // (the app's process from before the run may come first).
  std::vector<int64_t> pids;
  for (const auto& sample : *samples) {
    if (pids.empty() || pids.back() != sample.pid) pids.push_back(sample.pid);
    EXPECT_GT(sample.rss_kb, 0);
    EXPECT_GT(sample.num_threads, 0);
  }
  std::vector<int64_t> launched;
  for (const auto& launch : launches) {
    ASSERT_TRUE(launch.pid);
    launched.push_back(*launch.pid);
  }
  ASSERT_GE(pids.size(), launched.size());
  EXPECT_TRUE(std::equal(launched.rbegin(), launched.rend(), pids.rbegin()))
      << "sampled pids do not end with the launched ones";
  // CPU % is over the phone's own clock: never negative, and present once a pid was seen twice.
  int with_cpu = 0;
  for (const auto& sample : *samples) {
    if (!sample.cpu_pct) continue;
    ++with_cpu;
    EXPECT_GE(*sample.cpu_pct, 0.0);
  }
  EXPECT_GT(with_cpu, 0);

  // What sampling cost the phone beside the run's own commands: about one process a sample
  // (its sleep; pidof and its subshell only while the app has no process, the stream's shells
  // once), never the two or more of a command per sample.
  const int64_t sampling_processes = after - before - 2 - own_processes;
  EXPECT_GT(sampling_processes, 0);
  EXPECT_LT(sampling_processes, 2 * static_cast<int64_t>(samples->size()))
      << sampling_processes << " processes for " << samples->size() << " samples, " << own_processes
      << " for the run's own commands";

  // The loop died with the run: a few intervals later it has started nothing more (the two
  // reads of the counter add 2 each: their shell and devsim-stats).
  std::this_thread::sleep_for(milliseconds(200));  // 10 of its intervals
  EXPECT_EQ(processes_started() - after, 2);
}

class JoinedCommandsE2eTest : public RunExecutorE2eTest {
 protected:
  void ExpectJoinedCommandsEachWithTheirOwnResult(int sdk) {
    const DevsimDevice phone = StartPhone(sdk);
    auto commands = std::make_shared<int64_t>(0);
    adb::ClientOptions options = ClientOptions();
    options.on_command = [commands](std::string_view, adb::Clock::duration, bool) { ++*commands; };
    asio::io_context io(1);
    adb::Client client(io.get_executor(), options);
    auto serial = adb::Serial::Parse(phone.address);
    ASSERT_TRUE(serial.ok());
    orchestrator::DeviceShell shell(client, *serial);
    using Results = std::vector<orchestrator::CommandResult<adb::ShellResult>>;
    Results joined;
    Results ending;
    Results after_refusal;
    auto body = [&]() -> asio::awaitable<void> {
      std::vector<orchestrator::ShellPart> three{{{"getprop", "ro.build.version.sdk"}, true},
                                                 {{"no-such-command", "x"}, true},
                                                 {{"echo", "it's; fine"}, true}};
      auto running = shell.RunJoined(std::move(three), adb::DeadlineAfter(seconds(10)));
      joined = co_await std::move(running);
      std::vector<orchestrator::ShellPart> with_exit{
          {{"echo", "a"}, true}, {{"exit", "3"}, false}, {{"echo", "b"}, true}};
      auto running_exit = shell.RunJoined(std::move(with_exit), adb::DeadlineAfter(seconds(10)));
      ending = co_await std::move(running_exit);
      std::vector<orchestrator::ShellPart> two{{{"echo", "c"}, true}, {{"echo", "d"}, true}};
      auto running_two = shell.RunJoined(std::move(two), adb::DeadlineAfter(seconds(10)));
      after_refusal = co_await std::move(running_two);
    };
    asio::co_spawn(io, body(), [](std::exception_ptr e) { EXPECT_FALSE(e) << "RunJoined threw"; });
    io.run();

    ASSERT_EQ(joined.size(), 3u);
    ASSERT_TRUE(joined[0]) << joined[0].error().message;
    EXPECT_EQ(joined[0]->out, std::to_string(sdk) + "\n");
    EXPECT_EQ(joined[0]->exit_code, 0);
    ASSERT_FALSE(joined[1]);
    EXPECT_FALSE(joined[1].error().adb) << "the command failed, not the device";
    EXPECT_EQ(joined[1].error().message,
              "`no-such-command x` exited with 127: /system/bin/sh: no-such-command: inaccessible "
              "or not found");
    ASSERT_TRUE(joined[2]) << joined[2].error().message;
    EXPECT_EQ(joined[2]->out, "it's; fine\n");

    ASSERT_EQ(ending.size(), 3u);
    ASSERT_TRUE(ending[0]);
    EXPECT_EQ(ending[0]->out, "a\n");
    ASSERT_TRUE(ending[1]);
    if (sdk >= 24) {
      EXPECT_EQ(ending[1]->exit_code, 3);
    } else {
      EXPECT_FALSE(ending[1]->exit_code) << "shell v1 says no exit status of a command alone";
    }
    ASSERT_TRUE(ending[2]);
    EXPECT_EQ(ending[2]->out, "b\n");
    EXPECT_FALSE(shell.runs_joined());
    ASSERT_EQ(after_refusal.size(), 2u);
    ASSERT_TRUE(after_refusal[0] && after_refusal[1]);
    EXPECT_EQ(after_refusal[0]->out, "c\n");
    EXPECT_EQ(after_refusal[1]->out, "d\n");

    // One command for the first list; the second joined, then again one by one; the third one by
    // one from the start.
    EXPECT_EQ(*commands, 1 + (1 + 3) + 2);
  }
};

// DeviceShell::RunJoined through the real adb server to a devsim phone: three commands in one
// `adb shell`, each with its own output and exit status, a failing one in the middle (127, mksh's
// "not found") not the others' failure. Then a list whose second part ends the shell (`exit 3`):
// no marks after it, so the parts run again one by one, with the same results they would have
// had alone, and so does every later list of that shell. On Android 13 through the shell
// protocol; on Android 6, whose adbd has none (shell v1: no exit status of the whole, stderr
// mixed in), each part's status still comes from its mark.
TEST_F(JoinedCommandsE2eTest, Sdk33EachPartHasItsOwnResultThroughTheShellProtocol) {
  ExpectJoinedCommandsEachWithTheirOwnResult(33);
}

TEST_F(JoinedCommandsE2eTest, Sdk23EachPartHasItsOwnStatusThroughShellV1) {
  ExpectJoinedCommandsEachWithTheirOwnResult(23);
}

// Issue 17 §4: a lab of 200 phones is bound by the commands each launch sends through the one adb
// server. The reads that go together go as one: the cool-down's two dumps with the cold launch's
// force-stop, frames reset and pidof; the fork's stat, the frames and the memory at the end —
// three commands a launch with `am start -W`. Each part's result is still its own: every launch
// has its fork time, its conditions, its frames and its memory.
TEST_F(RunExecutorE2eTest, ColdLaunchSendsThreeCommandsWithEveryReadStillItsOwn) {
  const DevsimDevice phone = StartPhone(33);
  // The commands a launch sends: a run of 8 launches against one of 3 on the same phone, so that
  // the run's own once-a-run commands cancel out (each read of the counter opens one shell).
  auto shells_of_run = [&](int64_t iterations) -> std::pair<int64_t, int64_t> {
    const RunSpec spec = Spec(phone, LaunchMode::kCold, iterations);
    const int64_t id = CreateRun(spec);
    const int64_t before = DevsimStat(phone, "shell_services");
    std::optional<RunOutcome> outcome;
    {
      RunningExecution run(ClientOptions(), *store_, id, spec);
      outcome = run.Wait();
    }
    EXPECT_TRUE(outcome && outcome->status == store::RunStatus::kSucceeded)
        << (outcome ? outcome->error.value_or("") : "no outcome");
    return {id, DevsimStat(phone, "shell_services") - before - 1};
  };
  const auto [short_id, short_shells] = shells_of_run(3);
  const auto [id, shells] = shells_of_run(8);
  EXPECT_EQ(shells - short_shells, 3 * 5) << short_shells << " and " << shells << " shells";

  // Every part's result is still read as its own.
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 8u);
  for (const auto& launch : launches) {
    EXPECT_TRUE(launch.valid) << launch.invalid_reason.value_or("");
    EXPECT_TRUE(launch.pid) << "iteration " << launch.iteration;
    EXPECT_TRUE(launch.fork_at_ms) << "iteration " << launch.iteration;
    EXPECT_TRUE(launch.thermal_status) << "iteration " << launch.iteration;
    EXPECT_TRUE(launch.battery_temp_tenths_c) << "iteration " << launch.iteration;
  }
  auto frames = store_->Read([&](store::Reader& r) { return r.ListIterationFrameFigures(id); });
  ASSERT_TRUE(frames);
  EXPECT_EQ(frames->size(), 8u);
  auto memory = store_->Read([&](store::Reader& r) { return r.ListIterationMemory(id); });
  ASSERT_TRUE(memory);
  EXPECT_EQ(memory->size(), 8u);
}

TEST_F(RunExecutorE2eTest, CancelStopsRestoresAndIsCancelled) {
  const DevsimDevice device = StartPhone(34);
  const std::string before = LooperSetting(device);
  RunSpec spec = Spec(device, LaunchMode::kCold, 200);
  spec.looper_sampling_interval = 1;
  const int64_t id = CreateRun(spec);
  RunningExecution run(ClientOptions(), *store_, id, spec);
  ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 1; }, seconds(20)));
  const auto cancelled_at = std::chrono::steady_clock::now();
  run.Cancel();
  const auto outcome = run.Wait(seconds(10));
  ASSERT_TRUE(outcome);
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, milliseconds(1500));
  EXPECT_EQ(outcome->status, store::RunStatus::kCancelled);
  EXPECT_EQ(LooperSetting(device), before);
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, store::RunStatus::kCancelled);
  EXPECT_GE(Launches(id).size(), 1u);
}

// `am start` hangs once: that iteration times out with the reason; the others are measured.
TEST_F(RunExecutorE2eTest, HungAmStartTimesOutThatIterationOnly) {
  const DevsimDevice device = StartPhone(33);
  ASSERT_EQ(Shell(device, "devsim-fault hang 'am start' 1").exit_code, 0);
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  spec.launch_timeout_ms = 1500;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_FALSE(launches[0].valid);
  EXPECT_NE(launches[0].invalid_reason.value_or("").find("did not answer within 1500 ms"),
            std::string::npos)
      << launches[0].invalid_reason.value_or("");
  EXPECT_TRUE(launches[1].valid && launches[2].valid);
  EXPECT_EQ(outcome->valid_launches, 2);
}

// The same with "on_launch_failure": "fail": the run stops there, naming the iteration.
TEST_F(RunExecutorE2eTest, HungAmStartFailsTheRunWhenAskedTo) {
  const DevsimDevice device = StartPhone(33);
  ASSERT_EQ(Shell(device, "devsim-fault hang 'am start' 1").exit_code, 0);
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  spec.launch_timeout_ms = 1000;
  spec.on_launch_failure = orchestrator::OnLaunchFailure::kFail;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  EXPECT_EQ(outcome->error.value_or("").rfind("iteration 1 of 3: ", 0), 0u)
      << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_FALSE(launches[0].valid);
}

// Android 9 has no LooperStatsService: a run asking for looper stats fails saying so, and the
// setting it had already put is deleted again.
TEST_F(RunExecutorE2eTest, Sdk28LooperStatsUnavailableFailsAndRestores) {
  const DevsimDevice device = StartPhone(28);
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  spec.looper_sampling_interval = 1;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  EXPECT_NE(outcome->error.value_or("").find("looper stats unavailable"), std::string::npos)
      << outcome->error.value_or("");
  EXPECT_EQ(LooperSetting(device), "null\n");
  EXPECT_TRUE(Launches(id).empty());
}

// Random bytes in the log while the run reads it: every launch is still matched.
TEST_F(RunExecutorE2eTest, GarbageInLogcatStillMatchesLaunches) {
  const DevsimDevice device = StartPhone(33);
  RunSpec spec = Spec(device, LaunchMode::kCold, 4);
  const int64_t id = CreateRun(spec);
  RunningExecution run(ClientOptions(), *store_, id, spec);
  ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 1; }, seconds(20)));
  EXPECT_EQ(Shell(device, "devsim-fault garbage 200").exit_code, 0);
  const auto outcome = run.Wait();
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 4u);
  for (const auto& l : launches) EXPECT_TRUE(l.valid) << l.invalid_reason.value_or("");
  ExpectStoredEqualsDevice(device, launches, false);
}

// A looper dump cut off by the device: the run fails saying which command, and the setting is
// restored all the same.
TEST_F(RunExecutorE2eTest, TruncatedLooperDumpFailsClearlyAndRestores) {
  const DevsimDevice device = StartPhone(34);
  ASSERT_EQ(Shell(device, "devsim-fault truncate 'dumpsys looper_stats' 200 10").exit_code, 0);
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  spec.looper_sampling_interval = 1;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  EXPECT_NE(outcome->error.value_or("").find("dumpsys looper_stats"), std::string::npos)
      << outcome->error.value_or("");
  EXPECT_EQ(LooperSetting(device), "null\n");
  const auto stored = StoredRun(id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, store::RunStatus::kFailed);
  EXPECT_EQ(stored->error, outcome->error);
}

// Unplugged mid-run: the run fails naming the iteration; launches measured before stay stored.
TEST_F(RunExecutorE2eTest, UnplugMidRunFailsNamingTheIterationAndKeepsLaunches) {
  const DevsimDevice device = StartPhone(33);
  RunSpec spec = Spec(device, LaunchMode::kCold, 40);
  const int64_t id = CreateRun(spec);
  RunningExecution run(ClientOptions(), *store_, id, spec);
  ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 2; }, seconds(20)));
  Shell(device, "devsim-fault unplug 3000");
  const auto outcome = run.Wait();
  ASSERT_TRUE(outcome) << "the run did not end within 40 s";
  // Once in a CI run (not reproduced here, under load or not) one of these failed without
  // saying which launch or why: each now prints the run's error (its log is on stderr).
  const std::string error = outcome->error.value_or("");
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed) << error;
  EXPECT_NE(error.find("iteration "), std::string::npos) << error;
  const auto launches = Launches(id);
  EXPECT_GE(launches.size(), 2u) << error;
  EXPECT_LT(launches.size(), 40u) << error;
  EXPECT_EQ(static_cast<int64_t>(launches.size()), outcome->launches_recorded) << error;
  for (const auto& l : launches) {
    EXPECT_TRUE(l.displayed_ms) << "iteration " << l.iteration << ": "
                                << l.invalid_reason.value_or("valid") << "; run: " << error;
  }
}

// Unplugged mid-run with looper stats on: the restore cannot reach the device, so the run leaves
// it owing its setting; the device's next run pays the debt before its preflight reads the
// setting, so the device ends as it was before the first run.
TEST_F(RunExecutorE2eTest, UnplugMidLooperRunLeavesADebtTheNextRunPays) {
  const DevsimDevice device = StartPhone(33);
  ASSERT_EQ(Shell(device, "settings put global looper_stats sampling_interval=7").exit_code, 0);
  const std::string before = LooperSetting(device);
  orchestrator::OwedRestores owed(*store_);
  RunSpec spec = Spec(device, LaunchMode::kCold, 40);
  spec.looper_sampling_interval = 1;
  const int64_t first = CreateRun(spec);
  {
    RunningExecution run(ClientOptions(), *store_, first, spec, &owed);
    ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 2; }, seconds(20)));
    Shell(device, "devsim-fault unplug 2000");
    const auto outcome = run.Wait();
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  }
  EXPECT_TRUE(owed.Owes(device.address));
  // adb reconnects to a TCP device by itself (every 10 s or so).
  WaitForDevice(server_, device.address);
  // Nobody paid yet: the device still has the run's setting.
  EXPECT_NE(LooperSetting(device), before) << "the unplug came too late to leave a debt";
  RunSpec second_spec = Spec(device, LaunchMode::kCold, 2);
  const int64_t second = CreateRun(second_spec);
  const auto outcome = RunToEnd(second, second_spec, &owed);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  EXPECT_FALSE(owed.Owes(device.address));
  EXPECT_EQ(LooperSetting(device), before);
  EXPECT_EQ(Shell(device, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
}

// The daemon dies mid looper-stats run (simulated: its io thread stops where it is — no cancel,
// no restore) after the run enabled looper_stats and unplugged the battery. What undoes both was
// on disk before either command was sent, so the next daemon (the store reopened, a fresh
// ledger) finds it owed and, once it sees the device, puts the setting and the battery back —
// no further run needed. (Before 0002_device_restores, what was owed lived in memory and died
// with the daemon: the device kept the run's setting and its fake battery.)
TEST_F(RunExecutorE2eTest, ARunAbandonedMidLooperStatsIsRestoredByTheNextDaemon) {
  const DevsimDevice device = StartPhone(33);
  ASSERT_EQ(Shell(device, "settings put global looper_stats sampling_interval=7").exit_code, 0);
  const std::string before = LooperSetting(device);
  RunSpec spec = Spec(device, LaunchMode::kCold, 200);
  spec.looper_sampling_interval = 1;
  const int64_t id = CreateRun(spec);
  {
    RunningExecution run(ClientOptions(), *store_, id, spec);
    ASSERT_TRUE(WaitUntil([&] { return run.iterations_done() >= 2; }, seconds(20)));
    run.Abandon();
  }
  ASSERT_NE(LooperSetting(device), before);
  ASSERT_NE(Shell(device, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);

  // The next daemon over the same database.
  store_.reset();
  store_ = OpenTestStore(dir_, "lab.db");
  ASSERT_TRUE(store_);
  orchestrator::OwedRestores owed(*store_);
  EXPECT_TRUE(owed.Owes(device.address));
  asio::io_context io(1);
  adb::Client client(io.get_executor(), ClientOptions());
  std::optional<std::optional<std::string>> unpaid;
  auto log = [](std::string_view line) {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  };
  asio::co_spawn(io, owed.Pay(client, device.address, adb::DeadlineAfter(seconds(10)), log),
                 [&](std::exception_ptr e, std::optional<std::string> r) {
                   EXPECT_FALSE(e);
                   unpaid = std::move(r);
                 });
  io.run();
  ASSERT_TRUE(unpaid);
  EXPECT_FALSE(*unpaid) << **unpaid;
  EXPECT_FALSE(owed.Owes(device.address));
  EXPECT_EQ(LooperSetting(device), before);
  EXPECT_EQ(Shell(device, "dumpsys battery").out.find("UPDATES STOPPED"), std::string::npos);
}

// A locked phone (Android 13 devsim with its keyguard showing): the preflight refuses the run,
// saying why, before anything is launched; unlocked, the same device runs. The preflight JSON
// records what it read.
// Issue 14 §3, warm-up: the first `warmup` launches are measured and stored, marked, and left
// out of the count a run succeeds on.
TEST_F(RunExecutorE2eTest, WarmupLaunchesAreStoredMarkedAndNotCounted) {
  const DevsimDevice device = StartPhone(33);
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  spec.warmup = 2;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  EXPECT_EQ(outcome->valid_launches, 3);
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 5u);
  for (size_t i = 0; i < launches.size(); ++i) {
    EXPECT_EQ(launches[i].iteration, static_cast<int64_t>(i) + 1);
    EXPECT_EQ(launches[i].warmup, i < 2) << "iteration " << launches[i].iteration;
    EXPECT_TRUE(launches[i].valid) << launches[i].invalid_reason.value_or("");
    // devsim's Android 13 battery at 28.5 °C, thermal status NONE: read before each launch.
    EXPECT_EQ(launches[i].battery_temp_tenths_c, std::optional<int64_t>(285));
    EXPECT_EQ(launches[i].thermal_status, std::optional<std::string>("none"));
    EXPECT_EQ(launches[i].cooldown_wait_ms, std::optional<int64_t>(0));
  }
  ExpectStoredEqualsDevice(device, launches, false);
}

// Issue 14 §3, cool-down: a phone that starts hot (devsim heat: battery 42.5 °C, thermal LIGHT,
// cooling with a 3 s half-life) is waited for before the first launch until its battery is at
// most 38 °C; the launch keeps what it was measured in and how long it waited.
TEST_F(RunExecutorE2eTest, AHotPhoneIsWaitedForBeforeItsFirstLaunch) {
  const DevsimDevice device =
      StartPhone(33, R"(, "heat": {"start_c": 14, "half_life_s": 3})");
  ASSERT_NE(Shell(device, "dumpsys battery").out.find("temperature: 42"), std::string::npos);
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_TRUE(launches[0].cooldown_wait_ms);
  // 14 °C of excess must fall to 9.5: 3 s × log2(14 / 9.5) ≈ 1.7 s after devsim started.
  EXPECT_GT(*launches[0].cooldown_wait_ms, 0);
  ASSERT_TRUE(launches[0].battery_temp_tenths_c);
  EXPECT_LE(*launches[0].battery_temp_tenths_c, 380);
  EXPECT_GT(*launches[0].battery_temp_tenths_c, 340);  // not cooled far past the limit
  EXPECT_EQ(launches[0].thermal_status, std::optional<std::string>("none"));
  EXPECT_EQ(launches[1].cooldown_wait_ms, std::optional<int64_t>(0));
}

// Cold starts heat the phone (devsim: +4 °C each, barely cooling): after three, its battery is
// past 38 °C and a run that said "cooldown": "fail" with a 1 s bound ends before the fourth,
// saying why; the three launches it measured stay, each with the temperature it had.
TEST_F(RunExecutorE2eTest, APhoneHeatedByItsLaunchesFailsARunThatWillNotWait) {
  const DevsimDevice device =
      StartPhone(33, R"(, "heat": {"per_cold_launch_c": 4, "half_life_s": 3600})");
  RunSpec spec = Spec(device, LaunchMode::kCold, 5);
  spec.cooldown_fail = true;
  spec.cooldown_timeout_s = 1;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  const std::string error = outcome->error.value_or("");
  EXPECT_NE(error.find("iteration 4 of 5"), std::string::npos) << error;
  EXPECT_NE(error.find("stayed too hot for 1 s"), std::string::npos) << error;
  EXPECT_NE(error.find("battery 40.5 °C (at most 38.0 °C)"), std::string::npos) << error;
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].battery_temp_tenths_c, std::optional<int64_t>(285));
  EXPECT_EQ(launches[1].battery_temp_tenths_c, std::optional<int64_t>(325));
  EXPECT_EQ(launches[2].battery_temp_tenths_c, std::optional<int64_t>(365));
}

// Awaits a comparison on an io_context of its own (parameters by value: a coroutine's frame
// keeps copies, never references to a caller's temporaries).
asio::awaitable<void> CompareInto(orchestrator::RunReports* reports, int64_t run_id, bool allow,
                                  std::optional<store::StoreResult<orchestrator::RunComparison>>* out) {
  auto comparing = reports->CompareWithBaseline(run_id, std::nullopt, allow);
  out->emplace(co_await std::move(comparing));
}

// Issue 14 §4: two phones of one model, the second on a newer Android build (an OTA: another
// fingerprint). A run on each; the second against the previous is flagged as not comparable,
// and judged only when different conditions are allowed.
TEST_F(RunExecutorE2eTest, AComparisonAcrossAnOtaIsFlagged) {
  std::vector<int64_t> ids;
  // One devsim at a time (StartDevsim replaces the last): the phone before the OTA, then after.
  for (const std::string& extra :
       {std::string(), std::string(R"(, "device": {"sdk": 33, "serial": "EXEC33OTA",
            "fingerprint": "google/panther/panther:14/AP2A.240805.005/12025142:user/release-keys"})")}) {
    const DevsimDevice phone = StartPhone(33, extra);
    RunSpec spec = Spec(phone, LaunchMode::kCold, 3);
    // Like with like: the baseline is the previous run of the package on this model and mode.
    const int64_t id = CreateRun(spec, 1'000 + static_cast<int64_t>(ids.size()), "Pixel 7");
    const auto outcome = RunToEnd(id, spec);
    ASSERT_TRUE(outcome);
    ASSERT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
    ids.push_back(id);
  }
  ASSERT_TRUE(store_->Flush().ok());
  orchestrator::RunReports reports(*store_);
  for (const bool allow : {false, true}) {
    asio::io_context io;
    std::optional<store::StoreResult<orchestrator::RunComparison>> compared;
    asio::co_spawn(io, CompareInto(&reports, ids[1], allow, &compared),
                   [](std::exception_ptr e) { EXPECT_FALSE(e); });
    io.run();
    ASSERT_TRUE(compared && compared->ok()) << (compared ? compared->error().message : "");
    const orchestrator::RunComparison& c = **compared;
    EXPECT_EQ(c.baseline.id, ids[0]);
    EXPECT_FALSE(c.comparability.comparable);
    ASSERT_FALSE(c.comparability.differences.empty());
    EXPECT_NE(c.comparability.differences[0].find("the device's Android build changed"),
              std::string::npos)
        << c.comparability.differences[0];
    EXPECT_EQ(c.comparability.same_build, std::optional<bool>(true));
    EXPECT_EQ(c.not_comparable(), !allow);
  }
}

double MeanDisplayed(const std::vector<store::Launch>& launches) {
  double sum = 0;
  for (const auto& l : launches) sum += static_cast<double>(l.displayed_ms.value_or(0));
  return launches.empty() ? 0 : sum / static_cast<double>(launches.size());
}

nlohmann::json CompilationOf(const std::optional<store::Run>& run) {
  if (!run || !run->preflight_json) return nullptr;
  const auto preflight = nlohmann::json::parse(*run->preflight_json);
  return preflight.value("compilation", nlohmann::json());
}

// Issue 14 §2: a phone whose app background dexopt left only verified (Android 13). A run that
// takes it as it is measures it verified; a run asking speed-profile compiles it first
// (`cmd package compile -m speed-profile -f`), reads back that it got there, records both states
// — and launches faster (devsim: verified code starts 35 % slower).
TEST_F(RunExecutorE2eTest, ARunAskingSpeedProfileOnAPhoneLeftInVerifyGetsIt) {
  const DevsimDevice device = StartPhone(33, "", R"(, "compiler_filter": "verify")");
  // 12 launches a side: devsim's launch times are random (σ 20 ms on 180), and with 4 a side the
  // means came within 15 % of each other once in a full run (208.75 against 190.25 ms).
  RunSpec as_is = Spec(device, LaunchMode::kCold, 12);
  as_is.compilation = Compilation::kAsIs;
  const int64_t first = CreateRun(as_is);
  const auto measured_as_is = RunToEnd(first, as_is);
  ASSERT_TRUE(measured_as_is);
  ASSERT_EQ(measured_as_is->status, store::RunStatus::kSucceeded)
      << measured_as_is->error.value_or("");
  const nlohmann::json left = CompilationOf(StoredRun(first));
  EXPECT_EQ(left["requested"], "as-is");
  EXPECT_EQ(left["reached"], "verify");
  EXPECT_TRUE(left["command"].is_null());

  RunSpec compiled = Spec(device, LaunchMode::kCold, 12);  // the default: speed-profile
  const int64_t second = CreateRun(compiled);
  const auto measured = RunToEnd(second, compiled);
  ASSERT_TRUE(measured);
  ASSERT_EQ(measured->status, store::RunStatus::kSucceeded) << measured->error.value_or("");
  const nlohmann::json c = CompilationOf(StoredRun(second));
  EXPECT_EQ(c["requested"], "speed-profile");
  EXPECT_EQ(c["before"], "verify");
  EXPECT_EQ(c["reached"], "speed-profile");
  EXPECT_EQ(c["after"], "speed-profile");
  EXPECT_EQ(c["changed_during_run"], false);
  EXPECT_EQ(c["command"], "cmd package compile -m speed-profile -f " + std::string(kPackage));
  // The phone keeps what it was asked to become: the user's change, recorded, not undone.
  EXPECT_NE(Shell(device, "dumpsys package " + std::string(kPackage))
                .out.find("[status=speed-profile] [reason=cmdline]"),
            std::string::npos);
  const double verified = MeanDisplayed(Launches(first));
  const double profiled = MeanDisplayed(Launches(second));
  // Expected 0.74 (1 / 1.35); 0.9 leaves four standard deviations of the difference of means.
  EXPECT_LT(profiled, verified * 0.9) << "verify " << verified << " ms, speed-profile "
                                       << profiled << " ms";
}

// Android 14's ART Service compiles speed-profile without a profile as verify: the run asked
// for a state it did not get and fails before its first launch, saying why and what to do.
TEST_F(RunExecutorE2eTest, ACompilationStateNotReachedFailsTheRun) {
  const DevsimDevice device =
      StartPhone(34, "", R"(, "compiler_filter": "verify", "has_profile": false)");
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  const std::string error = outcome->error.value_or("");
  EXPECT_NE(error.find("asked for compilation \"speed-profile\", the phone reached \"verify\""),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("has none yet"), std::string::npos) << error;
  EXPECT_TRUE(Launches(id).empty());
  const nlohmann::json c = CompilationOf(StoredRun(id));
  EXPECT_EQ(c["reached"], "verify");
}

// Background dexopt that runs during a run (devsim: 0.5 s after each compile) moves the app
// from verify to speed-profile between launches: the run ends, marked, with both states, and
// a comparison with it is no verdict.
TEST_F(RunExecutorE2eTest, BackgroundDexoptDuringARunMarksIt) {
  const DevsimDevice device = StartPhone(33, "", R"(, "bg_dexopt_after_s": 0.5)");
  RunSpec spec = Spec(device, LaunchMode::kCold, 6);
  spec.compilation = Compilation::kVerify;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  ASSERT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto run = StoredRun(id);
  const nlohmann::json c = CompilationOf(run);
  EXPECT_EQ(c["reached"], "verify");
  EXPECT_EQ(c["after"], "speed-profile");
  EXPECT_EQ(c["changed_during_run"], true);
  ASSERT_TRUE(run && run->preflight_json);
  EXPECT_NE(run->preflight_json->find("the compilation state changed during the run: verify → "
                                      "speed-profile"),
            std::string::npos)
      << *run->preflight_json;
}

TEST_F(RunExecutorE2eTest, ALockedOrDarkScreenIsRefusedAtPreflight) {
  const DevsimDevice device = StartPhone(33, R"(, "screen": {"on": true, "locked": true})");
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  const int64_t locked = CreateRun(spec);
  {
    const auto outcome = RunToEnd(locked, spec);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
    EXPECT_NE(outcome->error.value_or("").find("locked"), std::string::npos)
        << outcome->error.value_or("");
    EXPECT_EQ(outcome->launches_recorded, 0);
  }
  Shell(device, "input keyevent KEYCODE_SLEEP");
  const int64_t dark = CreateRun(spec);
  {
    const auto outcome = RunToEnd(dark, spec);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
    EXPECT_NE(outcome->error.value_or("").find("mWakefulness=Asleep"), std::string::npos)
        << outcome->error.value_or("");
  }
  Shell(device, "input keyevent KEYCODE_WAKEUP");
  Shell(device, "wm dismiss-keyguard");
  const int64_t unlocked = CreateRun(spec);
  const auto outcome = RunToEnd(unlocked, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto stored = StoredRun(unlocked);
  ASSERT_TRUE(stored && stored->preflight_json);
  EXPECT_NE(
      stored->preflight_json->find(R"("screen":{"keyguard_showing":false,"wakefulness":"Awake"})"),
      std::string::npos)
      << *stored->preflight_json;
}

// Issue 16 §1–2: a run with a scenario (a tap, a wait, a swipe) after each cold launch of an
// Android 13 phone whose app renders 30 frames per launch and 20 per input, every 10th frame of
// the process 40 ms, the rest 8 ms (devsim's "frames"). Each iteration's frames are exactly the
// launch's and the scenario's: 70, 7 janky (hwui's own count); of them droidlab counts the 69
// with Flags 0 (the first is a new window's layout), 7 over 16.7 and 33 ms, none over 50;
// Matrix's drop for a 40 ms frame at 60 Hz is round(23.3 / 16.7) = 1 (its "best" level), and
// PerfDog's rule needs > 84 ms: no jank. The steps reach the phone in order, twice.
TEST_F(RunExecutorE2eTest, Sdk33ScenarioStepsRunAfterEachLaunchAndItsFramesAreStored) {
  const DevsimDevice device = StartPhone(
      33, "",
      R"(, "frames": {"per_launch": 30, "per_input": 20, "ms": 8, "jank_every": 10,
           "jank_ms": 40, "refresh_hz": 60})");
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  auto parsed = orchestrator::ParseRunSpec(
      R"({"serial":"x","package":"com.example.app","mode":"cold","iterations":2,"scenario":)"
      R"([{"tap":[540,1200]},{"wait_ms":50},{"swipe":[540,1600,540,400,100]}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  spec.scenario = parsed->scenario;
  Shell(device, "devsim-input-log clear");
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 2u);
  for (const auto& l : launches) EXPECT_TRUE(l.valid) << l.invalid_reason.value_or("");

  EXPECT_EQ(Shell(device, "devsim-input-log").out,
            "tap 540 1200\nswipe 540 1600 540 400 100\ntap 540 1200\nswipe 540 1600 540 400 100\n");

  auto frames = store_->Read([&](store::Reader& r) { return r.ListIterationFrames(id); });
  ASSERT_TRUE(frames.ok()) << frames.error().message;
  ASSERT_EQ(frames->size(), 2u);
  for (const store::IterationFrames& f : *frames) {
    SCOPED_TRACE("iteration " + std::to_string(f.iteration));
    EXPECT_EQ(f.total_frames, 70);
    EXPECT_EQ(f.janky_frames, 7);
    EXPECT_EQ(f.frame_rows, 70);
    EXPECT_EQ(f.counted, 69);
    EXPECT_NEAR(static_cast<double>(f.refresh_period_ns), 16'666'667.0, 1.0);
    EXPECT_DOUBLE_EQ(f.p50_ms.value_or(-1), 8.0);
    EXPECT_EQ(f.over_16_7ms, 7);
    EXPECT_EQ(f.over_33ms, 7);
    EXPECT_EQ(f.over_50ms, 0);
    EXPECT_EQ(f.dropped_frames, 7);
    EXPECT_EQ(f.matrix_normal + f.matrix_middle + f.matrix_high + f.matrix_frozen, 0);
    EXPECT_EQ(f.jank, 0);
    const auto columns = nlohmann::json::parse(f.columns_json);
    EXPECT_EQ(columns.size(), 23u);  // Android 13's FrameInfoNames
    EXPECT_EQ(nlohmann::json::parse(f.rows_json).size(), 70u);
  }
}

// Frames before Android 13 carry no FrameInterval: on Android 11 (SDK 30) a 120 Hz phone's
// frames are judged at the period `dumpsys SurfaceFlinger --latency` prints (its first line,
// SurfaceFlinger::dumpStatsLocked), not at 60 Hz. devsim's app draws 12 ms frames, one in ten
// 40 ms: every counted frame is over one 8.33 ms vsync, the 40 ms ones over two and three (and
// over the fixed 16.7 ms), and Matrix's level of a 40 ms frame is "normal" (4 dropped at
// 120 Hz; 1, "best", if 60 Hz were assumed).
TEST_F(RunExecutorE2eTest, Sdk30OneTwentyHertzFramesAreJudgedAtTheDisplaysPeriod) {
  const std::string path = dir_.File("scenario120.json");
  std::ofstream(path) << R"({"seed": 30, "device": {"sdk": 30, "serial": "HZ120", "refresh_hz": 120},
      "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
        "cold": {"mean": 180, "stddev": 20},
        "frames": {"per_launch": 30, "ms": 12, "jank_every": 10, "jank_ms": 40,
                   "refresh_hz": 120}}]})";
  auto devices = StartDevsim({"--port", "0", "--scenario", path, "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  WaitForDevice(server_, devices[0].address);
  const RunSpec spec = Spec(devices[0], LaunchMode::kCold, 2);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  auto frames = store_->Read([&](store::Reader& r) { return r.ListIterationFrames(id); });
  ASSERT_TRUE(frames.ok()) << frames.error().message;
  ASSERT_EQ(frames->size(), 2u);
  for (const store::IterationFrames& f : *frames) {
    SCOPED_TRACE("iteration " + std::to_string(f.iteration));
    EXPECT_EQ(f.refresh_period_ns, 8'333'333);
    EXPECT_GT(f.counted, 20);
    EXPECT_DOUBLE_EQ(f.p50_ms.value_or(-1), 12.0);
    EXPECT_GE(f.over_16_7ms, 2);
    EXPECT_EQ(f.over_1_vsync, f.counted);
    EXPECT_EQ(f.over_2_vsyncs, f.over_16_7ms);
    EXPECT_EQ(f.over_3_vsyncs, f.over_16_7ms);
    EXPECT_EQ(f.matrix_normal, f.over_16_7ms);
    EXPECT_EQ(f.dropped_frames, 4 * f.over_16_7ms);
  }
}

// Issue 16 §5: warm runs on a phone whose app leaks one Activity with each launch into its
// process, each keeping 250 KiB of Java heap (devsim's "memory"). The figures follow what
// frameworks/base core/java/android/app/ActivityThread.java dumpMemInfoTable prints (called by
// dumpMemInfo under ActivityManagerService.dumpApplicationMemoryUsage): on Android 13 (SDK 33)
// the App Summary with Pss(KB) and Rss(KB) columns and "TOTAL PSS: … TOTAL RSS: … TOTAL SWAP
// PSS:"; on Android 9 (SDK 28) the older layout, Pss(KB) only and "TOTAL: … TOTAL SWAP PSS:",
// no Rss. The priming launch makes the process (its one Activity); each measured launch
// (BACK, then am start) leaks one more: iteration i ends with 1 + i Activities and a Java heap of
// 10000 + 250 i KiB. The App Summary prints each field as set, so the total PSS is their sum
// (47800) plus what leaked; the swap PSS is the one set. Every iteration's memory is stored
// with those figures, and the leak check the API runs over them (analysis/leak.h) suspects
// Activities: 2 → 5, one per iteration.
class MemoryE2eTest : public RunExecutorE2eTest {
 protected:
  void RunAndCheck(int sdk, const std::vector<std::optional<int64_t>>& rss) {
    const DevsimDevice device = StartPhone(
        sdk, "",
        R"(, "memory": {"java_heap_kb": 10000, "native_heap_kb": 20000, "code_kb": 6000,
             "stack_kb": 800, "graphics_kb": 4000, "private_other_kb": 2000, "system_kb": 5000,
             "swap_pss_kb": 300, "views": 50, "view_root_impl": 1, "app_contexts": 3,
             "activities": 1, "activities_leak_per_launch": 1, "leaked_activity_kb": 250})");
    const RunSpec spec = Spec(device, LaunchMode::kWarm, 4);
    const int64_t id = CreateRun(spec);
    const auto outcome = RunToEnd(id, spec);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
    const auto launches = Launches(id);
    ASSERT_EQ(launches.size(), 4u);

    auto memory = store_->Read([&](store::Reader& r) { return r.ListIterationMemory(id); });
    ASSERT_TRUE(memory.ok()) << memory.error().message;
    ASSERT_EQ(memory->size(), 4u);
    std::vector<analysis::MemoryCounts> counts;
    for (size_t k = 0; k < memory->size(); ++k) {
      const store::IterationMemory& m = (*memory)[k];
      const int64_t i = static_cast<int64_t>(k) + 1;
      SCOPED_TRACE("SDK " + std::to_string(sdk) + " iteration " + std::to_string(i));
      EXPECT_EQ(m.iteration, i);
      EXPECT_EQ(m.pid, launches[k].pid);
      EXPECT_EQ(m.pid, (*memory)[0].pid);  // warm: one process
      EXPECT_EQ(m.total_pss_kb, 47800 + 250 * i);
      EXPECT_EQ(m.total_rss_kb, rss[k]);
      EXPECT_EQ(m.total_swap_pss_kb, 300);
      EXPECT_EQ(m.java_heap_kb, 10000 + 250 * i);
      EXPECT_EQ(m.native_heap_kb, 20000);
      EXPECT_EQ(m.code_kb, 6000);
      EXPECT_EQ(m.stack_kb, 800);
      EXPECT_EQ(m.graphics_kb, 4000);
      EXPECT_EQ(m.private_other_kb, 2000);
      EXPECT_EQ(m.system_kb, 5000);
      EXPECT_EQ(m.views, 50);
      EXPECT_EQ(m.view_root_impl, 1);
      EXPECT_EQ(m.app_contexts, 3);
      EXPECT_EQ(m.activities, 1 + i);
      EXPECT_EQ(m.assets, 10);  // devsim's fixed Objects
      EXPECT_EQ(m.local_binders, 16);
      EXPECT_EQ(m.proxy_binders, 33);
      EXPECT_EQ(m.death_recipients, 1);
      EXPECT_EQ(m.webviews, 0);
      counts.push_back({m.iteration, m.pid, m.activities, m.view_root_impl, m.app_contexts});
    }
    const analysis::LeakVerdict leak = analysis::CheckActivityLeak(counts);
    ASSERT_EQ(leak.check, analysis::LeakCheck::kSuspected);
    EXPECT_EQ(leak.suspected->metric, "activities");
    EXPECT_EQ(leak.suspected->from, 2);
    EXPECT_EQ(leak.suspected->to, 5);
    EXPECT_DOUBLE_EQ(leak.suspected->slope_per_iteration, 1.0);
  }
};

TEST_F(MemoryE2eTest, Sdk33WarmLeakingActivitiesStoredPerIterationAndSuspected) {
  // Rss (11+): each table row's Rss is its Pss and half again (devsim's meminfo_dump.cpp), summed.
  RunAndCheck(33, {71623, 71997, 72372, 72748});
}

TEST_F(MemoryE2eTest, Sdk28WarmOldLayoutWithoutRssStoredAndSuspected) {
  RunAndCheck(28, {std::nullopt, std::nullopt, std::nullopt, std::nullopt});
}

// An app that crashes on its third launch (the second measured one; devsim's crash_on_launch:
// the process is gone once the launch is shown): `dumpsys meminfo` answers "No process found
// for", so that iteration has no memory and the run goes on. The next launch starts a new
// process, whose counts start again (one Activity, then two): the iterations of the old and the
// new process are no stretch of three, so the leak check is not applicable.
TEST_F(MemoryE2eTest, ACrashedAppLeavesItsIterationWithoutMemoryAndTheRunGoesOn) {
  const DevsimDevice device = StartPhone(
      33, "", R"(, "memory": {"activities": 1, "activities_leak_per_launch": 1},
                 "crash_on_launch": [3])");
  const RunSpec spec = Spec(device, LaunchMode::kWarm, 4);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  ASSERT_EQ(Launches(id).size(), 4u);
  auto memory = store_->Read([&](store::Reader& r) { return r.ListIterationMemory(id); });
  ASSERT_TRUE(memory.ok()) << memory.error().message;
  ASSERT_EQ(memory->size(), 3u);
  EXPECT_EQ((*memory)[0].iteration, 1);
  EXPECT_EQ((*memory)[0].activities, 2);
  EXPECT_EQ((*memory)[1].iteration, 3);  // iteration 2 crashed: no process to dump
  EXPECT_EQ((*memory)[1].activities, 1);
  EXPECT_NE((*memory)[1].pid, (*memory)[0].pid);
  EXPECT_EQ((*memory)[2].iteration, 4);
  EXPECT_EQ((*memory)[2].activities, 2);
  EXPECT_EQ((*memory)[2].pid, (*memory)[1].pid);
  std::vector<analysis::MemoryCounts> counts;
  for (const store::IterationMemory& m : *memory) {
    counts.push_back({m.iteration, m.pid, m.activities, m.view_root_impl, m.app_contexts});
  }
  EXPECT_EQ(analysis::CheckActivityLeak(counts).check, analysis::LeakCheck::kNotApplicable);
}

}  // namespace
}  // namespace droidlab::testutil

namespace droidlab::testutil {
namespace {

// The faults a run stored, read back.
std::vector<store::IterationFault> StoredFaults(store::Store& store, int64_t run_id) {
  EXPECT_TRUE(store.Flush().ok());
  auto faults = store.Read([&](store::Reader& r) { return r.ListIterationFaults(run_id); });
  EXPECT_TRUE(faults.ok()) << faults.error().message;
  return faults.ok() ? *faults : std::vector<store::IterationFault>{};
}

// Issue 16 §3 on Android 13 (SDK 33): the app crashes in onResume on each of its launches
// (devsim's crash_on_launch: RuntimeInit's KillApplicationHandler lines in the crash buffer,
// am_crash with Recoverable in the events buffer, EventLogTags.logtags 30039). The run's stream
// reads both buffers; each iteration is marked with its own crash, once (the am_crash line says
// it again), with the trace's lines; the run fails with the crash, not "no valid launch".
TEST_F(RunExecutorE2eTest, Sdk33AnAppCrashingInEveryIterationFailsTheRunWithTheCrash) {
  const DevsimDevice device = StartPhone(33, "", R"(, "crash_on_launch": [1, 2])");
  const RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  EXPECT_EQ(outcome->error.value_or(""),
            "every iteration crashed: java.lang.IllegalStateException: devsim crash_on_launch 1");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 2u);
  const auto faults = StoredFaults(*store_, id);
  ASSERT_EQ(faults.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i + 1));
    const std::string exception =
        "java.lang.IllegalStateException: devsim crash_on_launch " + std::to_string(i + 1);
    EXPECT_FALSE(launches[i].valid);
    EXPECT_EQ(launches[i].invalid_reason.value_or(""), "crash: " + exception);
    const store::IterationFault& f = faults[i];
    EXPECT_EQ(f.iteration, static_cast<int64_t>(i + 1));
    EXPECT_EQ(f.kind, "crash");
    EXPECT_EQ(f.process_name, kPackage);
    EXPECT_EQ(f.reason, exception);
    EXPECT_EQ(f.pid, launches[i].pid);  // the process this launch started
    ASSERT_EQ(f.stack.size(), 10u);     // the AndroidRuntime lines, not am_crash's
    EXPECT_EQ(f.stack[0], "\tat com.example.app.MainActivity.onResume(MainActivity.java:42)");
    ASSERT_TRUE(f.at_ms && launches[i].displayed_at_ms);
    EXPECT_GE(*f.at_ms, *launches[i].displayed_at_ms);  // logged after the activity was shown
  }
}

// Issue 16 §3, a native crash: the app dies of SIGSEGV on its second launch (devsim's
// native_crash_on_launch: bionic's "Fatal signal" line, then crash_dump's tombstone head under
// DEBUG in the crash buffer — Android 10's libdebuggerd/tombstone.cpp, Android 13's
// tombstone_proto_to_text.cpp with Cmdline and uid between the lines read and the address
// printed 16 digits wide). That iteration is marked with the native crash (the signal line, the
// app's pid from the "pid:" line, crash_dump being another process), left out of the timings;
// the others count and the run succeeds; the next launch starts a new process.
TEST_F(RunExecutorE2eTest, ANativeCrashMarksItsIterationOnAndroid10And13AndTheRunGoesOn) {
  for (const auto& [sdk, fault_addr] :
       {std::pair{29, "0x0"}, std::pair{33, "0x0000000000000000"}}) {
    SCOPED_TRACE("SDK " + std::to_string(sdk));
    const DevsimDevice device = StartPhone(sdk, "", R"(, "native_crash_on_launch": [2])");
    const RunSpec spec = Spec(device, LaunchMode::kCold, 3);
    const int64_t id = CreateRun(spec);
    const auto outcome = RunToEnd(id, spec);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
    const auto launches = Launches(id);
    ASSERT_EQ(launches.size(), 3u);
    const std::string signal =
        std::string("signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr ") + fault_addr;
    EXPECT_TRUE(launches[0].valid);
    EXPECT_FALSE(launches[1].valid);
    EXPECT_EQ(launches[1].invalid_reason.value_or(""), "native_crash: " + signal);
    EXPECT_TRUE(launches[2].valid);
    EXPECT_NE(launches[2].pid, launches[1].pid) << "the crashed process is gone";
    const auto faults = StoredFaults(*store_, id);
    ASSERT_EQ(faults.size(), 1u);
    EXPECT_EQ(faults[0].iteration, 2);
    EXPECT_EQ(faults[0].kind, "native_crash");
    EXPECT_EQ(faults[0].reason, signal);
    EXPECT_EQ(faults[0].process_name, kPackage);
    EXPECT_EQ(faults[0].pid, launches[1].pid);
  }
}

// A crash before the launch's Displayed line is in (on a phone: a crash in onCreate, which never
// draws; here a launch timeout shorter than the app's ~180 ms launch, the crash 5 ms after it):
// the iteration's reason is the crash, not "no Displayed line", and so is the run's. Android 13,
// RuntimeInit's lines in the crash buffer.
TEST_F(RunExecutorE2eTest, Sdk33ACrashWinsOverAMissingDisplayedLine) {
  const DevsimDevice device = StartPhone(33, "", R"(, "crash_on_launch": [1, 2])");
  RunSpec spec = Spec(device, LaunchMode::kCold, 2);
  spec.launch_timeout_ms = 100;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kFailed);
  EXPECT_EQ(outcome->error.value_or(""),
            "every iteration crashed: java.lang.IllegalStateException: devsim crash_on_launch 1");
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(launches[i].displayed_ms) << "iteration " << i + 1;
    EXPECT_EQ(
        launches[i].invalid_reason.value_or(""),
        "crash: java.lang.IllegalStateException: devsim crash_on_launch " + std::to_string(i + 1));
  }
  const auto faults = StoredFaults(*store_, id);
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[1].iteration, 2);
  EXPECT_EQ(faults[1].stack.size(), 10u);
}

// Android 9 (SDK 28: am_crash without Recoverable, ActivityManager's tag for launches): only the
// second of three launches crashes. That iteration alone is marked and left out of the
// statistics; the run succeeds on the other two.
TEST_F(RunExecutorE2eTest, Sdk28OneCrashingIterationIsMarkedAndTheRunGoesOn) {
  const DevsimDevice device = StartPhone(28, "", R"(, "crash_on_launch": [2])");
  const RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  EXPECT_EQ(outcome->valid_launches, 2);
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_TRUE(launches[0].valid) << launches[0].invalid_reason.value_or("");
  EXPECT_FALSE(launches[1].valid);
  EXPECT_EQ(launches[1].invalid_reason.value_or(""),
            "crash: java.lang.IllegalStateException: devsim crash_on_launch 2");
  EXPECT_TRUE(launches[2].valid) << launches[2].invalid_reason.value_or("");
  const auto faults = StoredFaults(*store_, id);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].iteration, 2);
  EXPECT_EQ(faults[0].kind, "crash");
  EXPECT_EQ(faults[0].pid, launches[1].pid);
  EXPECT_EQ(faults[0].stack.size(), 10u);
}

// An ANR comes late: ActivityManager logs "ANR in" once the input dispatcher gave up (5 s after
// the input it waited for; ProcessErrorStateRecord.appNotResponding, Android 12+), so it reaches
// the host while a later iteration runs. devsim's app stops responding on its second launch and
// its ANR lines (system buffer, and am_anr in events) are dated 5 s after that launch was shown;
// each iteration waits 2 s in its scenario, so they come during the fourth. The ANR names the
// second launch's process: the second iteration is the invalid one, and the fault is stored
// under it, not under the iteration it came in. Android 13 (SDK 33).
TEST_F(RunExecutorE2eTest, Sdk33AnAnrThatComesLateIsTheIterationsWhoseProcessItNames) {
  const DevsimDevice device = StartPhone(33, "", R"(, "anr_on_launch": [2])");
  RunSpec spec = Spec(device, LaunchMode::kCold, 4);
  auto parsed = orchestrator::ParseRunSpec(
      R"({"serial":"x","package":"com.example.app","mode":"cold","iterations":4,"scenario":)"
      R"([{"wait_ms":2000}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  spec.scenario = parsed->scenario;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  EXPECT_EQ(outcome->valid_launches, 3);
  const auto launches = Launches(id);
  ASSERT_EQ(launches.size(), 4u);
  for (size_t i : {0u, 2u, 3u}) {
    EXPECT_TRUE(launches[i].valid) << i + 1 << ": " << launches[i].invalid_reason.value_or("");
  }
  EXPECT_FALSE(launches[1].valid);
  EXPECT_EQ(launches[1].invalid_reason.value_or(""),
            "anr: Input dispatching timed out (Application does not have a focused window)");
  const auto faults = StoredFaults(*store_, id);
  ASSERT_EQ(faults.size(), 1u);  // the ANR, once (am_anr says it again)
  EXPECT_EQ(faults[0].iteration, 2);
  EXPECT_EQ(faults[0].seq, 0);
  EXPECT_EQ(faults[0].kind, "anr");
  EXPECT_EQ(faults[0].pid, launches[1].pid);
  ASSERT_TRUE(faults[0].at_ms && launches[1].displayed_at_ms && launches[3].intent_at_ms);
  // Logged 5 s after the second launch was shown, after the fourth began.
  EXPECT_NEAR(*faults[0].at_ms - *launches[1].displayed_at_ms, 5000, 50);
  EXPECT_GT(*faults[0].at_ms, *launches[3].intent_at_ms);
}

// "slow_message_ms" (issue 16 §4): droidlab sets log.looper.<uid>.main.slow before the first
// launch, so each new process of the app (Looper.java, Android 9+, reads it when its main loop
// starts) logs the messages over the threshold; the property is recorded before it is set and
// put back after the run. devsim's app (uid 10123) takes 900 ms and 300 ms over two messages on
// every launch: only the 900 ms one is over 500 ms.
TEST_F(RunExecutorE2eTest, Sdk33SlowMessagePropertyIsSetForTheLaunchesAndPutBack) {
  const DevsimDevice device = StartPhone(
      33, "",
      R"(, "slow_messages": [{"kind": "dispatch", "ms": 900, "h": "android.app.ActivityThread$H",)"
      R"( "c": "null", "m": 159}, {"kind": "delivery", "ms": 300}])");
  const std::string property = "log.looper.10123.main.slow";
  ASSERT_EQ(Shell(device, "setprop " + property + " 40").exit_code, 0);
  RunSpec spec = Spec(device, LaunchMode::kCold, 3);
  spec.slow_message_ms = 500;
  const int64_t id = CreateRun(spec);
  const auto outcome = RunToEnd(id, spec);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, store::RunStatus::kSucceeded) << outcome->error.value_or("");
  // One line per measured launch (and the priming launch's none: a cold run primes nothing).
  const std::string log = Shell(device, "logcat -d -b main").out;
  size_t slow = 0;
  for (size_t at = log.find("Slow dispatch took 900ms main h=android.app.ActivityThread$H c=null m=159");
       at != std::string::npos; at = log.find("Slow dispatch took 900ms", at + 1)) {
    ++slow;
  }
  EXPECT_EQ(slow, 3u) << log;
  EXPECT_EQ(log.find("Slow delivery took 300ms"), std::string::npos);
  // Stored with each iteration, with handler, callback and what; they make nothing invalid.
  const auto faults = StoredFaults(*store_, id);
  ASSERT_EQ(faults.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    const store::IterationFault& f = faults[static_cast<size_t>(i)];
    EXPECT_EQ(f.iteration, i + 1);
    EXPECT_EQ(f.kind, "slow_dispatch");
    EXPECT_EQ(f.duration_ms, 900);
    EXPECT_EQ(f.reason, "main h=android.app.ActivityThread$H c=null m=159");
  }
  for (const auto& l : Launches(id)) EXPECT_TRUE(l.valid) << l.invalid_reason.value_or("");
  // Put back, exactly.
  EXPECT_EQ(Shell(device, "getprop " + property).out, "40\n");
  orchestrator::OwedRestores owed(*store_);
  EXPECT_FALSE(owed.Owes(device.address));
}

}  // namespace
}  // namespace droidlab::testutil
