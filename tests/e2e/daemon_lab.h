// A lab with a daemon in it, for end-to-end tests of `droidlab serve` and of the client commands
// that talk to it: the real adb server and devsim devices (AdbLabTest), plus `droidlab serve` as
// a process on a kernel-chosen port with its database in a temporary folder.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/child_process.h"
#include "tests/common/temp_dir.h"

namespace droidlab::testutil {

class DaemonLabTest : public AdbLabTest {
 protected:
  // Starts the daemon on a kernel-chosen port, with `extra` flags; its port, or 0 when it did not
  // say it listens.
  uint16_t StartDaemon(const std::vector<std::string>& extra = {});
  // GET over HTTP (with `api_token_` when set); null JSON unless the answer is 200 with JSON.
  nlohmann::json Get(uint16_t port, const std::string& target);
  // The daemon lists `serial` as an adb `device` with its properties read.
  bool DeviceListed(uint16_t port, const std::string& serial);
  std::string RunStatus(uint16_t port, int64_t id);
  // POST /api/v1/runs with `body`: the new run's id, or 0 (and a failed expectation).
  int64_t PostRun(uint16_t port, const std::string& body);
  // Waits (bounded, 30 s) until at least `count` of the run's launches are stored.
  bool WaitForLaunches(uint16_t port, int64_t id, size_t count);
  // A devsim scenario file: com.example.app/.MainActivity whose cold launches draw from
  // N(mean, stddev) ms with `seed`.
  std::string ColdLaunchScenario(const std::string& name, int seed, int mean, int stddev);

  // A daemon measuring a 200-launch looper-stats run on one devsim phone whose setting was
  // `before`: two launches stored, so the setting is changed (and, on SDK 33, the battery
  // unplugged) now. Call in ASSERT_NO_FATAL_FAILURE.
  struct LooperRunMidway {
    std::vector<DevsimDevice> devices;
    std::string before;  // `settings get global looper_stats` before the run
    uint16_t port = 0;
    int64_t run_id = 0;
  };
  void StartLooperRunMidway(LooperRunMidway& mid);

  TempDir dir_;
  std::unique_ptr<ChildProcess> daemon_;
  std::string api_token_;  // sent by Get when not empty
};

// The database of a daemon that has stopped, read through the store: what the next start finds.
struct StoppedDaemonsDatabase {
  explicit StoppedDaemonsDatabase(const std::string& path);
  std::string Status(int64_t run_id);
  size_t Owed(const std::string& serial);
  std::unique_ptr<store::Store> db;
};

}  // namespace droidlab::testutil
