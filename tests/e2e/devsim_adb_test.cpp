// The real adb server takes droidlab-devsim devices after `adb connect` and runs shell
// commands on them. Each test starts its own adb server on a free private port (never 5037)
// and stops only that server, and its own devsim process; both are stopped even on failure.
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

using DevsimAdbTest = AdbLabTest;

// The port a test's adb server gets is never one the kernel hands a devsim phone's bind(0):
// `adb start-server` on a port where devsim listens takes the phone for a server and waits
// forever (seen in CI: a 60 s timeout in SetUp). Below the ephemeral range, and free.
TEST(FreeLoopbackPortTest, IsBelowTheKernelsEphemeralRange) {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  for (int i = 0; i < 50; ++i) {
    const int port = FreeLoopbackPort();
    ASSERT_GE(port, 10000);
    ASSERT_LT(port, ephemeral_low);
  }
}

TEST_F(DevsimAdbTest, ListedWithModelAndRunsShellV2Commands) {
  const auto devices = StartDevsim({"--port", "0"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  const std::string line = WaitForDevice(server_, device.address);
  EXPECT_NE(line.find("model:Pixel_7"), std::string::npos) << line;  // adb shows ' ' as '_'
  EXPECT_NE(line.find("product:panther"), std::string::npos) << line;

  auto model = Shell(device, "getprop ro.product.model");
  EXPECT_EQ(model.exit_code, 0);
  EXPECT_EQ(model.out, "Pixel 7\n");
  EXPECT_EQ(Shell(device, "getprop ro.serialno").out, device.serial + "\n");

  // Exit codes and stderr travel through shell protocol v2.
  EXPECT_EQ(Shell(device, "exit 3").exit_code, 3);
  const auto missing = Shell(device, "no_such_tool --flag");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err, "/system/bin/sh: no_such_tool: inaccessible or not found\n");

  // Shell v1 (-x) loses the exit code, as with a real device.
  EXPECT_EQ(server_.Adb({"-s", device.address, "shell", "-x", "exit 3"}).exit_code, 0);
}

TEST_F(DevsimAdbTest, AmStartWaitAndLogcatDisplayedAgree) {
  const auto devices = StartDevsim({"--port", "0"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& device = devices[0];
  WaitForDevice(server_, device.address);

  EXPECT_EQ(Shell(device, "logcat -c").exit_code, 0);
  const auto am = Shell(device, "am start -W -n com.example.app/.MainActivity");
  ASSERT_EQ(am.exit_code, 0) << am.err;
  const std::regex am_pattern(
      "^Starting: Intent \\{ cmp=com.example.app/.MainActivity \\}\n"
      "Status: ok\n"
      "LaunchState: COLD\n"
      "Activity: com.example.app/.MainActivity\n"
      "TotalTime: (\\d+)\n"
      "WaitTime: (\\d+)\n"
      "Complete\n$");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(am.out, match, am_pattern)) << am.out;
  const long total = std::stol(match[1]);
  EXPECT_GE(std::stol(match[2]), total);

  const std::string pid = Shell(device, "pidof com.example.app").out;
  EXPECT_FALSE(pid.empty());

  // `adb logcat` sends "export ANDROID_LOG_TAGS=…; exec logcat -d" through shell v2.
  const auto logcat = server_.Adb({"-s", device.address, "logcat", "-d"});
  ASSERT_EQ(logcat.exit_code, 0) << logcat.err;
  const std::string displayed =
      total >= 1000 ? "+" + std::to_string(total / 1000) + "s" + std::to_string(total % 1000) + "ms"
                    : "+" + std::to_string(total) + "ms";
  // ActivityMetricsLogger prints the user from Android 12 (the default device is Android 13).
  EXPECT_NE(logcat.out.find(" I ActivityTaskManager: Displayed com.example.app/.MainActivity for user 0: " +
                            displayed + "\n"),
            std::string::npos)
      << logcat.out;
  EXPECT_NE(logcat.out.find(" I ActivityManager: Start proc " + pid.substr(0, pid.size() - 1) +
                            ":com.example.app/u0a123 for "),
            std::string::npos)
      << logcat.out;

  // The process is running now, so a second launch after HOME is hot.
  Shell(device, "input keyevent KEYCODE_HOME");
  EXPECT_NE(
      Shell(device, "am start -W -n com.example.app/.MainActivity").out.find("LaunchState: HOT"),
      std::string::npos);
}

TEST_F(DevsimAdbTest, StreamingLogcatDeliversTheLaunchLines) {
  const auto devices = StartDevsim({"--port", "0"});
  ASSERT_EQ(devices.size(), 1u);
  WaitForDevice(server_, devices[0].address);
  Shell(devices[0], "logcat -c");
  // `adb logcat` without -d follows the log until it is stopped.
  ChildProcess logcat({AdbPath(), "-P", std::to_string(server_.port()), "-s", devices[0].address,
                       "logcat", "ActivityTaskManager:I", "*:S"});
  // Whether the stream opens before or after the launch, the lines arrive: logcat without -d
  // prints the buffer first, then follows.
  const auto am = Shell(devices[0], "am start -W -n com.example.app/.MainActivity");
  ASSERT_EQ(am.exit_code, 0);
  std::vector<std::string> lines;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto line = logcat.ReadLine(milliseconds(500));
    if (!line) continue;
    lines.push_back(*line);
    if (line->find("Displayed com.example.app/.MainActivity for user 0: +") != std::string::npos) {
      break;
    }
  }
  ASSERT_FALSE(lines.empty());
  // Android 13 (the default device) prints the user since Android 12's ActivityMetricsLogger.
  EXPECT_NE(lines.back().find(
                " I ActivityTaskManager: Displayed com.example.app/.MainActivity for user 0: +"),
            std::string::npos);
  logcat.Stop();
  // The device keeps serving after the host closed the stream.
  EXPECT_EQ(Shell(devices[0], "echo still here").out, "still here\n");
}

// A crash logs its lines ahead of time, all with one time (devsim's crash_on_launch, 5 ms after
// the launch is shown): a followed stream shows them when that time comes and in the order they
// were logged, as logd would (RuntimeInit's "FATAL EXCEPTION" first, the trace's lines in order,
// then ActivityManager's am_crash). Timers due at one instant fire in any order, so one timer
// per line printed a crash's lines shuffled.
TEST_F(DevsimAdbTest, AFollowedStreamShowsLinesOfOneTimeInTheOrderLogged) {
  const std::string path = ::testing::TempDir() + "devsim_scenario_crash.json";
  std::ofstream(path) << R"({"seed": 1, "device": {"serial": "CRASHDEV", "sdk": 33},
      "noise_lines_per_s": 20,
      "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
                    "cold": {"mean": 300, "stddev": 0}, "crash_on_launch": [1]}]})";
  const auto devices = StartDevsim({"--port", "0", "--scenario", path, "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  WaitForDevice(server_, devices[0].address);
  ChildProcess logcat({AdbPath(), "-P", std::to_string(server_.port()), "-s", devices[0].address,
                       "logcat", "-b", "all", "-T", "1"});
  // The stream is attached when its -T 1 line came (the scenario's noise makes sure of one), so
  // the crash's lines come through the follow and not in a dump of the buffer.
  ASSERT_TRUE(logcat.ReadLine(milliseconds(5000)));
  ASSERT_EQ(Shell(devices[0], "am start -W -n com.example.app/.MainActivity").exit_code, 0);
  std::vector<std::string> messages;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto line = logcat.ReadLine(milliseconds(500));
    if (!line) continue;
    for (const std::string tag : {" E AndroidRuntime: ", " I am_crash: "}) {
      const size_t at = line->find(tag);
      if (at != std::string::npos) messages.push_back(line->substr(at + tag.size()));
    }
    if (line->find(" I am_crash: ") != std::string::npos) break;
  }
  logcat.Stop();
  ASSERT_EQ(messages.size(), 14u);
  EXPECT_EQ(messages[0], "FATAL EXCEPTION: main");
  EXPECT_EQ(messages[1].rfind("Process: com.example.app, PID: ", 0), 0u) << messages[1];
  EXPECT_EQ(messages[2], "java.lang.IllegalStateException: devsim crash_on_launch 1");
  EXPECT_EQ(messages[3], "\tat com.example.app.MainActivity.onResume(MainActivity.java:42)");
  EXPECT_EQ(messages[12], "\tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:947)");
  EXPECT_EQ(messages[13].rfind("[0,", 0), 0u) << messages[13];
}

TEST_F(DevsimAdbTest, ScenarioFileSelectsAndroid9Formats) {
  const std::string path = ::testing::TempDir() + "devsim_scenario_sdk28.json";
  std::ofstream(path) << R"({"seed": 1,
      "device": {"serial": "SDK28DEV", "model": "Moto G7", "device": "river", "product": "river",
                 "sdk": 28},
      "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
                    "cold": {"mean": 600, "stddev": 0}}]})";
  const auto devices = StartDevsim({"--port", "0", "--scenario", path, "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_NE(WaitForDevice(server_, devices[0].address).find("model:Moto_G7"), std::string::npos);
  EXPECT_EQ(Shell(devices[0], "getprop ro.build.version.release").out, "9\n");
  const auto am = Shell(devices[0], "am start -W -n com.example.app/.MainActivity");
  EXPECT_NE(am.out.find("ThisTime: 600\nTotalTime: 600\n"), std::string::npos) << am.out;
  EXPECT_EQ(am.out.find("LaunchState"), std::string::npos) << am.out;
  const auto logcat = server_.Adb({"-s", devices[0].address, "logcat", "-d"});
  EXPECT_NE(
      logcat.out.find(" I ActivityManager: Displayed com.example.app/.MainActivity: +600ms\n"),
      std::string::npos)
      << logcat.out;
}

TEST_F(DevsimAdbTest, SeveralDevicesFromOneProcess) {
  const auto devices = StartDevsim({"--port", "0", "--count", "3"}, 3);
  ASSERT_EQ(devices.size(), 3u);
  for (const auto& device : devices) {
    WaitForDevice(server_, device.address);
    EXPECT_EQ(Shell(device, "getprop ro.serialno").out, device.serial + "\n");
  }
}

}  // namespace
}  // namespace droidlab::testutil
