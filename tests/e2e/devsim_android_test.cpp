// The simulated Android's services through the real adb server: the looper-stats session the
// daemon runs (setting, reset, a launch, the dump with rows attributed to the app), and a fault
// (unplug: the device goes offline; replug: it comes back as a device). Helpers as in
// devsim_adb_test.cpp: each test owns its adb server on a private port and its devsim process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/common/adb_lab.h"

namespace droidlab::testutil {
namespace {

using std::chrono::milliseconds;

using DevsimAndroidTest = AdbLabTest;

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
  ChildProcess hung({AdbPath(), "-P", std::to_string(server_.port()), "-s", device.address, "shell",
                     "dumpsys battery"});
  EXPECT_FALSE(hung.ReadLine(milliseconds(1000)).has_value());
  hung.Stop();
  EXPECT_NE(Shell(device, "dumpsys battery").out.find("Current Battery Service state:\n"),
            std::string::npos);
}

}  // namespace
}  // namespace droidlab::testutil
