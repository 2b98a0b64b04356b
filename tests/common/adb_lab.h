// A lab on one machine for end-to-end tests: the real adb server (Debian's adb) on a free private
// port, and droidlab-devsim devices connected to it. Each test owns its server and its devsim
// process; both are stopped even when the test fails (never a server the test did not start,
// never port 5037).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/common/child_process.h"
#include "tests/common/subprocess.h"

namespace droidlab::testutil {

// Paths of the adb program and of droidlab-devsim this build was configured with.
const std::string& AdbPath();
const std::string& DevsimPath();

// A port nobody listens on now, for a process to bind: a random free one from 10000 up to the
// kernel's ephemeral range, which bind(0) never hands out (adb_lab.cpp says why). Never 5037
// (the default server) nor 5555-5585 (the adb server scans those as emulators). -1 on failure.
int FreeLoopbackPort();

// Owns one adb server on a private port; kill-server on destruction, for that port only.
class AdbServer {
 public:
  AdbServer();
  ~AdbServer();
  AdbServer(const AdbServer&) = delete;
  AdbServer& operator=(const AdbServer&) = delete;

  bool Start();
  // Runs `adb -P PORT args…` to completion.
  ProcessResult Adb(std::vector<std::string> args) const;
  int port() const { return port_; }

 private:
  int port_;
  bool started_ = false;
};

struct DevsimDevice {
  std::string address;  // 127.0.0.1:PORT, the serial adb gives it
  std::string serial;   // ro.serialno
};

// Reads `count` of devsim's "devsim listening on 127.0.0.1:PORT serial=S model=… sdk=N" lines.
std::vector<DevsimDevice> ReadListeningLines(ChildProcess& devsim, int count);

// Polls `adb devices -l` (bounded, 15 s) until `address` is listed as a device; returns its line
// (and fails the test with the last list when it never comes).
std::string WaitForDevice(const AdbServer& server, const std::string& address);

// Fixture: an adb server started in SetUp (the test is skipped when adb is not installed), and
// devsim devices on demand.
class AdbLabTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts devsim with `args`, connects every device it reports to the server.
  std::vector<DevsimDevice> StartDevsim(std::vector<std::string> args, int count = 1);
  // `adb -s DEVICE shell COMMAND`.
  ProcessResult Shell(const DevsimDevice& device, const std::string& command);

  AdbServer server_;
  std::unique_ptr<ChildProcess> devsim_;
};

}  // namespace droidlab::testutil
