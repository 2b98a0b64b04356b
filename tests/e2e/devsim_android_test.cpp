// The simulated Android's services through the real adb server: the looper-stats session the
// daemon runs (setting, reset, a launch, the dump with rows attributed to the app), and a fault
// (unplug: the device goes offline; replug: it comes back as a device). Helpers as in
// devsim_adb_test.cpp: each test owns its adb server on a private port and its devsim process.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/common/subprocess.h"
#include "tests/common/child_process.h"

namespace droidlab::testutil {
namespace {

using std::chrono::milliseconds;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;

// A port nobody listens on now: bind port 0 and give it back. Never 5037 (the default server)
// nor 5555-5585 (the adb server scans those as emulators): the kernel's ephemeral range is
// far above both.
int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// Owns one adb server on a private port; kill-server on destruction, for that port only.
class AdbServer {
 public:
  AdbServer() : port_(FreeLoopbackPort()) {}
  ~AdbServer() {
    if (started_) RunProcess({kAdb, "-P", std::to_string(port_), "kill-server"});
  }
  bool Start() {
    const auto result = RunProcess({kAdb, "-P", std::to_string(port_), "start-server"});
    started_ = true;  // even a failed start may have left a server: kill-server it anyway
    return result.exit_code == 0;
  }
  ProcessResult Adb(std::vector<std::string> args) const {
    args.insert(args.begin(), {kAdb, "-P", std::to_string(port_)});
    return RunProcess(args);
  }
  int port() const { return port_; }

 private:
  int port_;
  bool started_ = false;
};

struct DevsimDevice {
  std::string address;  // 127.0.0.1:PORT, the serial adb gives it
  std::string serial;   // ro.serialno
};

// Reads devsim's "devsim listening on 127.0.0.1:PORT serial=S model=… sdk=N" lines.
std::vector<DevsimDevice> ReadListeningLines(ChildProcess& devsim, int count) {
  std::vector<DevsimDevice> devices;
  const std::regex pattern(R"(^devsim listening on (127\.0\.0\.1:\d+) serial=(\S+) )");
  for (int i = 0; i < count; ++i) {
    const auto line = devsim.ReadLine(milliseconds(10000));
    if (!line) break;
    std::smatch match;
    if (std::regex_search(*line, match, pattern)) devices.push_back({match[1], match[2]});
  }
  return devices;
}

// Polls `adb devices -l` (bounded) until `address` is listed as a device; returns its line.
std::string WaitForDevice(const AdbServer& server, const std::string& address) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    last = server.Adb({"devices", "-l"}).out;
    std::size_t at = last.find(address + " ");
    if (at != std::string::npos) {
      const std::string line = last.substr(at, last.find('\n', at) - at);
      if (line.find(" device ") != std::string::npos) return line;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  ADD_FAILURE() << "device " << address << " never became ready; last list:\n" << last;
  return "";
}

class DevsimAndroidTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kAdb.c_str(), X_OK) != 0) GTEST_SKIP() << "adb is not installed";
    ASSERT_GT(server_.port(), 0);
    ASSERT_TRUE(server_.Start()) << "adb start-server failed on port " << server_.port();
  }

  // Starts devsim with `args`, connects every device it reports, waits until adb lists them.
  std::vector<DevsimDevice> StartDevsim(std::vector<std::string> args, int count = 1) {
    args.insert(args.begin(), kDevsim);
    devsim_ = std::make_unique<ChildProcess>(args);
    auto devices = ReadListeningLines(*devsim_, count);
    EXPECT_EQ(devices.size(), static_cast<std::size_t>(count));
    for (const auto& device : devices) {
      const auto connect = server_.Adb({"connect", device.address});
      EXPECT_NE(connect.out.find("connected to " + device.address), std::string::npos)
          << connect.out << connect.err;
    }
    return devices;
  }

  ProcessResult Shell(const DevsimDevice& device, const std::string& command) {
    return server_.Adb({"-s", device.address, "shell", command});
  }

  void TearDown() override {
    if (devsim_) devsim_->Stop();
  }

  AdbServer server_;
  std::unique_ptr<ChildProcess> devsim_;
};

// What a looper-stats session does on an Android 14 phone that charges over USB: the charging
// gate is lifted with ignore_battery_status, the stats are reset, the app is launched, and the
// dump holds system_server rows attributed to the app's uid.
TEST_F(DevsimAndroidTest, LooperStatsSessionAttributesRowsToTheApp) {
  const std::string path = ::testing::TempDir() + "devsim_scenario_sdk34.json";
  std::ofstream(path) << R"({"seed": 7, "device": {"sdk": 34, "serial": "LOOPER34"},
      "noise_lines_per_s": 20})";
  const auto devices = StartDevsim({"--port", "0", "--scenario", path, "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  WaitForDevice(server_, device.address);

  EXPECT_EQ(Shell(device, "settings get global looper_stats").out, "null\n");
  const auto put = Shell(device,
                         "settings put global looper_stats "
                         "enabled=true,sampling_interval=1,track_screen_state=false,"
                         "ignore_battery_status=true");
  EXPECT_EQ(put.exit_code, 0) << put.err;
  const auto reset = Shell(device, "cmd looper_stats reset");
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(reset.out + reset.err, "");
  const auto am = Shell(device, "am start -W -n com.example.app/.MainActivity");
  ASSERT_NE(am.out.find("LaunchState: COLD\n"), std::string::npos) << am.out;

  const auto dump = Shell(device, "dumpsys looper_stats");
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_TRUE(std::regex_search(dump.out, std::regex("^Start time: \\d{4}-\\d\\d-\\d\\d "
                                                     "\\d\\d:\\d\\d:\\d\\d\n"
                                                     "On battery time \\(ms\\): 0\n"
                                                     "work_source_uid,thread_name,")))
      << dump.out;
  EXPECT_TRUE(std::regex_search(
      dump.out, std::regex("\ncom\\.example\\.app/u0a123,android\\.display,"
                           "com\\.android\\.server\\.wm\\.WindowManagerService\\$H,0x29,false,"
                           "3,3,\\d+,\\d+,\\d+,\\d+,3,\\d+,\\d+,0\n")))
      << dump.out;

  // Leave the device as found: the setting restored, the battery reset.
  EXPECT_EQ(Shell(device, "settings delete global looper_stats").out, "Deleted 1 rows\n");
  EXPECT_EQ(Shell(device, "dumpsys battery reset").exit_code, 0);
}

// On Android 13 ignore_battery_status is not read: only `dumpsys battery unplug` opens the gate.
TEST_F(DevsimAndroidTest, Android13NeedsBatteryUnplugForRows) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  WaitForDevice(server_, device.address);
  Shell(device,
        "settings put global looper_stats "
        "enabled=true,sampling_interval=1,ignore_battery_status=true");
  Shell(device, "cmd looper_stats reset");
  Shell(device, "am start -W -n com.example.app/.MainActivity");
  EXPECT_EQ(Shell(device, "dumpsys looper_stats").out.find("com.example.app/u0a123,"),
            std::string::npos);
  Shell(device, "dumpsys battery unplug && am force-stop com.example.app");
  Shell(device, "am start -W -n com.example.app/.MainActivity");
  EXPECT_NE(Shell(device, "dumpsys looper_stats").out.find("com.example.app/u0a123,"),
            std::string::npos);
  Shell(device, "dumpsys battery reset");
}

// Returns the device's state column in `adb devices` ("device", "offline", …) or "" if absent.
std::string DeviceState(const AdbServer& server, const std::string& address) {
  const std::string list = server.Adb({"devices"}).out;
  const std::size_t at = list.find(address + "\t");
  if (at == std::string::npos) return "";
  const std::size_t begin = at + address.size() + 1;
  return list.substr(begin, list.find('\n', begin) - begin);
}

bool WaitForState(const AdbServer& server, const std::string& address, const std::string& state,
                  std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (DeviceState(server, address) == state) return true;
    std::this_thread::sleep_for(milliseconds(100));
  }
  return false;
}

// devsim-fault unplug: the transport closes and the port refuses connections; adb shows the
// device offline, then back as a device once it listens again (adb retries by itself).
TEST_F(DevsimAndroidTest, UnplugGoesOfflineAndReplugComesBack) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  WaitForDevice(server_, device.address);
  const auto unplug = Shell(device, "devsim-fault unplug 2000");
  EXPECT_EQ(unplug.out, "unplugging for 2000 ms\n");
  EXPECT_TRUE(WaitForState(server_, device.address, "offline", std::chrono::seconds(5)))
      << DeviceState(server_, device.address);
  // adb retries after 250 ms, then every 10 s: back within ~13 s.
  EXPECT_TRUE(WaitForState(server_, device.address, "device", std::chrono::seconds(25)))
      << DeviceState(server_, device.address);
  EXPECT_EQ(Shell(device, "getprop ro.serialno").out, device.serial + "\n");
}

// devsim-fault hang: the next matching command never ends; the next one works.
TEST_F(DevsimAndroidTest, HungCommandAndTheNextOneWorks) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  WaitForDevice(server_, device.address);
  Shell(device, "devsim-fault hang 'dumpsys battery'");
  ChildProcess hung({kAdb, "-P", std::to_string(server_.port()), "-s", device.address, "shell",
                     "dumpsys battery"});
  EXPECT_FALSE(hung.ReadLine(milliseconds(1000)).has_value());
  hung.Stop();
  EXPECT_NE(Shell(device, "dumpsys battery").out.find("Current Battery Service state:\n"),
            std::string::npos);
}

}  // namespace
}  // namespace droidlab::testutil
