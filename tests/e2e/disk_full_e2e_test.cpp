// Issue 13 §3, end to end: what `droidlab serve` reports is what it committed. The real daemon,
// the real adb server, a devsim phone, a real database file and real HTTP.
//
// The full disk: the daemon is started with SIGXFSZ ignored (the disposition survives exec), and
// once its run has stored a few launches its RLIMIT_FSIZE is set, with prlimit(2) (same user, no
// privilege), to the size its WAL has then. SQLite's next append to the WAL fails with EFBIG
// (which it reports as a disk I/O error; a full disk's ENOSPC is "database or disk is full"), and
// the writer loses the batch as it would on a full disk. The limit is set at that moment
// rather than before exec because where a limit fixed at start-up bites depends on how much the
// daemon wrote while starting (devices, state changes). That is not the same from one start to
// the next, and the run could then fail to be created at all.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/common/http_client.h"
#include "tests/common/wait_until.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Each `data:` line of the event stream's `run` events, as JSON.
std::vector<Json> RunEvents(const std::string& stream) {
  std::vector<Json> events;
  size_t at = 0;
  while ((at = stream.find("event: run\ndata: ", at)) != std::string::npos) {
    at += 17;
    const size_t end = stream.find('\n', at);
    if (end == std::string::npos) break;
    Json event = Json::parse(stream.substr(at, end - at), nullptr, false);
    if (!event.is_discarded()) events.push_back(std::move(event));
    at = end;
  }
  return events;
}

bool LimitFileSize(pid_t pid, rlim_t bytes) {
  rlimit limit{};
  if (::prlimit(pid, RLIMIT_FSIZE, nullptr, &limit) != 0) return false;
  limit.rlim_cur = bytes;
  return ::prlimit(pid, RLIMIT_FSIZE, &limit, nullptr) == 0;
}

class DiskFullE2eTest : public DaemonLabTest {
 protected:
  void SetUp() override {
    DaemonLabTest::SetUp();
    // Inherited by the daemon: a write over the limit fails with EFBIG instead of killing it.
    previous_xfsz_ = std::signal(SIGXFSZ, SIG_IGN);
  }
  void TearDown() override {
    std::signal(SIGXFSZ, previous_xfsz_);
    DaemonLabTest::TearDown();
  }
  Json Launches(uint16_t port, int64_t id) {
    return Get(port, "/api/v1/runs/" + std::to_string(id) + "/launches")["launches"];
  }
  Json ProcSamples(uint16_t port, int64_t id) {
    return Get(port, "/api/v1/runs/" + std::to_string(id) + "/proc-samples")["samples"];
  }

  void (*previous_xfsz_)(int) = SIG_DFL;
};

// A disk that fills mid-run. Whatever the daemon announced of the run (its event stream) is what
// its store holds: no end that was not committed, and no progress counting launches that are not
// there. Its status in the store after a restart without the limit is the one the API gave, and
// never `succeeded` with launches missing. Once the disk has room again, the next run succeeds.
TEST_F(DiskFullE2eTest, ARunOnADiskThatFillsReportsOnlyWhatWasStored) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));

  RawHttpClient stream(port);
  ASSERT_TRUE(stream.connected());
  stream.Send(HttpRequestBytes("GET", "/api/v1/events", "", "", false));
  ASSERT_TRUE(stream.ReadUntil("droidlab events")) << stream.raw();

  constexpr int kIterations = 40;
  const std::string body = R"({"serial":")" + serial +
                           R"(","package":"com.example.app","mode":"cold","iterations":)" +
                           std::to_string(kIterations) + R"(,"proc_sample_interval_ms":50})";
  const int64_t id = PostRun(port, body);
  ASSERT_NE(id, 0);
  ASSERT_TRUE(WaitForLaunches(port, id, 2));

  struct stat wal {};
  ASSERT_EQ(::stat(dir_.File("lab.db-wal").c_str(), &wal), 0);
  ASSERT_TRUE(LimitFileSize(daemon_->pid(), static_cast<rlim_t>(wal.st_size)));

  // The run is over once the queue no longer keeps its progress (GET /runs/{id} has none).
  ASSERT_TRUE(WaitUntil(
      [&] {
        const Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
        return run.is_object() && run["progress"].is_null();
      },
      seconds(90)));
  const std::string status_before_restart = RunStatus(port, id);

  // Room again: a run posted now is told after all of the first one's events (one stream, in
  // order), so the stream read up to its `queued` holds all the daemon said of the first run.
  ASSERT_TRUE(LimitFileSize(daemon_->pid(), RLIM_INFINITY));
  const int64_t next = PostRun(port, R"({"serial":")" + serial +
                                         R"(","package":"com.example.app","mode":"cold",)"
                                         R"("iterations":1})");
  ASSERT_NE(next, 0);
  const std::string next_queued = R"("id":)" + std::to_string(next);
  ASSERT_TRUE(stream.ReadUntil(next_queued, seconds(10))) << stream.raw();
  EXPECT_TRUE(WaitUntil([&] { return RunStatus(port, next) == "succeeded"; }, seconds(30)))
      << RunStatus(port, next);

  // Restart without the limit (the next start marks a run it finds `running` interrupted).
  ::kill(daemon_->pid(), SIGTERM);
  const int stopped = daemon_->Stop();
  EXPECT_TRUE(WIFEXITED(stopped) && WEXITSTATUS(stopped) == 0) << stopped;
  port = StartDaemon();
  ASSERT_NE(port, 0);
  const Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  ASSERT_TRUE(run.is_object());
  const std::string stored_status = run["status"].get<std::string>();
  const int64_t stored_launches = static_cast<int64_t>(Launches(port, id).size());

  // The fault happened mid-run: not every launch reached the disk.
  EXPECT_LT(stored_launches, kIterations);
  EXPECT_GE(stored_launches, 2);
  EXPECT_NE(stored_status, "succeeded") << "succeeded with " << stored_launches << " of "
                                        << kIterations << " launches stored";

  EXPECT_EQ(stream.raw().find("event: lagged"), std::string::npos) << "events were dropped";
  std::string announced_end;
  for (const Json& e : RunEvents(stream.raw())) {
    if (e["id"] != id) continue;
    const std::string status = e["status"].get<std::string>();
    if (status != "queued" && status != "running") announced_end = status;
    if (e["progress"].is_object()) {
      // Progress announces launches the store has, never ones only queued to its writer.
      EXPECT_LE(e["progress"]["iterations_done"].get<int64_t>(), stored_launches) << e.dump();
      EXPECT_LE(e["progress"]["valid_launches"].get<int64_t>(), stored_launches) << e.dump();
    }
  }
  if (announced_end.empty()) {
    // No end was announced: none was committed, and the store says so.
    EXPECT_EQ(status_before_restart, "running");
    EXPECT_EQ(stored_status, "interrupted") << run.dump();
  } else {
    EXPECT_EQ(announced_end, status_before_restart);
    EXPECT_EQ(announced_end, stored_status) << run.dump();
  }
}

// Proc samples are on disk while the run goes: a launch that takes four seconds has its samples
// stored before it ends (the sampler hands them to the writer every second), not only after it.
TEST_F(DiskFullE2eTest, ProcSamplesAreStoredWhileALaunchIsStillGoing) {
  const auto devices = StartDevsim(
      {"--port", "0", "--scenario", ColdLaunchScenario("slow", 3, 4000, 1)});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  const uint16_t port = StartDaemon();
  ASSERT_NE(port, 0);
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));
  const int64_t id = PostRun(port, R"({"serial":")" + serial +
                                       R"(","package":"com.example.app","mode":"cold",)"
                                       R"("iterations":2,"proc_sample_interval_ms":20})");
  ASSERT_NE(id, 0);
  size_t launches_when_samples_came = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        // Samples first: launches read after them and still none means the samples were
        // stored before any launch.
        if (ProcSamples(port, id).empty()) return false;
        launches_when_samples_came = Launches(port, id).size();
        return true;
      },
      seconds(30)));
  EXPECT_EQ(launches_when_samples_came, 0u) << "samples were stored only with a launch";
  EXPECT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();
}

}  // namespace
}  // namespace droidlab::testutil
