// The client commands as a user and a nightly job run them: `droidlab devices | run | watch` as
// processes against `droidlab serve`, the real adb server and devsim devices. Exit codes, stdout
// and the one-line errors are the contract (daemon/README.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/adb_lab.h"
#include "tests/common/child_process.h"
#include "tests/common/http_client.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_data.h"
#include "tests/common/wait_until.h"
#include "tests/common/xml_document.h"
#include "tests/api/webhook_receiver.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::seconds;

class ClientE2eTest : public DaemonLabTest {
 protected:
  // Starts the daemon (with `extra` flags) and waits until it lists `serials` as devices.
  void StartDaemonWith(const std::vector<std::string>& serials,
                       const std::vector<std::string>& extra = {}) {
    port_ = StartDaemon(extra);
    ASSERT_NE(port_, 0) << "the daemon did not print its address";
    for (const auto& serial : serials) {
      ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port_, serial); }, seconds(20))) << serial;
    }
  }

  ProcessResult Client(std::vector<std::string> args) {
    std::vector<std::string> argv = {DROIDLAB_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--server");
    argv.push_back("http://127.0.0.1:" + std::to_string(port_));
    return RunProcess(argv);
  }

  static std::vector<std::string> ColdRun(const std::string& serial, const std::string& package,
                                          int iterations) {
    return {"run",       "--serial",     serial,
            "--package", package,        "--mode",
            "cold",      "--iterations", std::to_string(iterations)};
  }

  // tests/data/apk/NAME copied into the test's folder: its path.
  std::string TestApk(const std::string& name) {
    const std::string path = dir_.File(name);
    std::ofstream(path, std::ios::binary) << ReadTestData("apk/" + name);
    return path;
  }

  // One cold launch of com.example.app on `serial` with `build` (an id or a file), waited for
  // until it ends `status`: how its preflight says the build came (preflight.build).
  Json BuildRun(const std::string& serial, const std::string& build,
                const std::string& status = "succeeded") {
    auto run = Client(With(ColdRun(serial, "com.example.app", 1), {"--build", build, "--json"}));
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    const Json queued = Json::parse(run.out.substr(0, run.out.find('\n')), nullptr, false);
    if (!queued.is_object()) return Json();
    const int64_t id = queued["id"].get<int64_t>();
    EXPECT_TRUE(WaitUntil([&] { return RunStatus(port_, id) == status; }, seconds(30)))
        << RunStatus(port_, id);
    return Get(port_, "/api/v1/runs/" + std::to_string(id))["preflight"]["build"];
  }

  static std::vector<std::string> With(std::vector<std::string> args,
                                       const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  uint16_t port_ = 0;
};

TEST_F(ClientE2eTest, DevicesListsTheSimulatedDevices) {
  const auto devices = StartDevsim({"--port", "0", "--fast", "--count", "2"}, 2);
  ASSERT_EQ(devices.size(), 2u);
  StartDaemonWith({devices[0].address, devices[1].address});

  auto table = Client({"devices"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.err, "");
  EXPECT_EQ(table.out.rfind("SERIAL ", 0), 0u) << table.out;
  for (const auto& device : devices) {
    // One row per device: its serial, adb's state and the model devsim reports.
    const size_t row = table.out.find("\n" + device.address + " ");
    ASSERT_NE(row, std::string::npos) << table.out;
    const std::string line = table.out.substr(row + 1, table.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find(" device "), std::string::npos) << line;
    EXPECT_NE(line.find(" Pixel 7 "), std::string::npos) << line;
  }

  auto json = Client({"devices", "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  Json body = Json::parse(json.out, nullptr, false);
  ASSERT_TRUE(body.is_object()) << json.out;
  std::vector<std::string> serials;
  for (const auto& d : body["devices"]) serials.push_back(d["serial"].get<std::string>());
  std::sort(serials.begin(), serials.end());
  std::vector<std::string> expected = {devices[0].address, devices[1].address};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(serials, expected);
}

// Issue 14 §1 from the command line: `droidlab build add` streams each APK to the daemon, which
// keeps it beside its database (builds/<sha256>.apk) and answers what its manifest says; the same
// file again is the same build; a file that is not an APK stops with the daemon's reason.
TEST_F(ClientE2eTest, BuildAddUploadsApksAndPrintsTheirIds) {
  StartDaemonWith({});
  const std::string apk = dir_.File("nightly.apk");
  std::ofstream(apk, std::ios::binary) << ReadTestData("apk/app_aapt2.apk");
  auto added = Client({"build", "add", apk});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out.rfind("build 1: com.example.app 1.2.3-nightly (versionCode 42), ", 0), 0u)
      << added.out;
  auto again = Client({"build", "add", apk, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const Json build = Json::parse(again.out, nullptr, false);
  ASSERT_TRUE(build.is_object()) << again.out;
  EXPECT_EQ(build["id"], 1);
  const std::string kept = dir_.File("builds/" + build["sha256"].get<std::string>() + ".apk");
  EXPECT_EQ(std::filesystem::file_size(kept), std::filesystem::file_size(apk));

  const std::string notes = dir_.File("notes.txt");
  std::ofstream(notes) << "not an APK\n";
  auto refused = Client({"build", "add", notes});
  EXPECT_EQ(refused.exit_code, 5);
  EXPECT_NE(refused.err.find("notes.txt: not an APK"), std::string::npos) << refused.err;
  auto listed = Client({"build", "list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("com.example.app"), std::string::npos) << listed.out;
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 2) << listed.out;
}

// Issue 14 §1: `droidlab run --build FILE` uploads tonight's APK, and the run installs it on the
// phone before its preflight (devsim, Android 13: abb_exec; the phone had versionCode 123, the
// build is 42: installed as a downgrade, as a lab measuring an older build needs); the run
// records the build it measured and its preflight reads the installed version. A run naming a
// build of another package is refused before it is queued.
TEST_F(ClientE2eTest, ARunInstallsItsBuildFirst) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address});
  const std::string apk = dir_.File("nightly.apk");
  std::ofstream(apk, std::ios::binary) << ReadTestData("apk/app_aapt2.apk");
  ASSERT_NE(Shell(devices[0], "dumpsys package com.example.app").out.find("versionCode=123"),
            std::string::npos);

  auto run = Client(With(ColdRun(devices[0].address, "com.example.app", 3),
                         {"--build", apk, "--wait", "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("build 1: com.example.app 1.2.3-nightly (versionCode 42)"),
            std::string::npos)
      << run.err;
  const Json ended = Json::parse(run.out.substr(0, run.out.find('\n')), nullptr, false);
  ASSERT_TRUE(ended.is_object()) << run.out;
  const auto shown = HttpCall(port_, "GET", "/api/v1/runs/" + std::to_string(ended["id"].get<int64_t>()));
  const Json stored = Json::parse(shown.body, nullptr, false);
  ASSERT_TRUE(stored.is_object()) << shown.body;
  EXPECT_EQ(stored["status"], "succeeded") << stored.dump();
  EXPECT_EQ(stored["spec"]["build"], 1) << stored.dump();
  EXPECT_EQ(stored["preflight"]["build"]["version_code"], 42) << stored.dump();
  EXPECT_EQ(stored["preflight"]["build"]["install_method"], "abb_exec") << stored.dump();
  EXPECT_EQ(stored["preflight"]["package"]["version_code"], 42) << stored.dump();
  EXPECT_NE(Shell(devices[0], "dumpsys package com.example.app").out.find("versionCode=42"),
            std::string::npos);

  // The build is in use only while a run names it: done, it may go.
  auto other = Client({"run", "--serial", devices[0].address, "--package", "com.other.app",
                       "--mode", "cold", "--iterations", "1", "--build", "1"});
  EXPECT_EQ(other.exit_code, 5);
  EXPECT_NE(other.err.find("build 1 is com.example.app, not the run's package com.other.app"),
            std::string::npos)
      << other.err;
}

// Issue 14 §4 and its "done when", from the command line only: tonight's APK against the release
// APK side by side on one phone, in ABBA blocks, reinstalling and recompiling at each switch.
// devsim makes versionCode 43 launch 10 % slower (launch_factor_by_version_code) than the
// scenario's ~200 ms at a 4 % spread: the gate exits 3 and names the builds and the conditions.
// Against a build with other bytes but the same code (aapt's APK of the same manifest, so the
// same speed) the same gate passes: no significant change.
TEST_F(ClientE2eTest, SideBySideRunCatchesASlowerBuildAndPassesAnIdenticalOne) {
  const std::string scenario = dir_.File("builds.json");
  WriteFileBytes(scenario,
                 R"({"seed":5,"packages":[{"name":"com.example.app","activity":".MainActivity",)"
                 R"("uid":10123,"cold":{"mean":200,"stddev":8},)"
                 R"("launch_factor_by_version_code":{"43":1.10}}]})");
  const auto devices = StartDevsim({"--port", "0", "--fast", "--scenario", scenario});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address});
  const std::string release = dir_.File("release.apk");
  std::ofstream(release, std::ios::binary) << ReadTestData("apk/app_aapt2.apk");  // code 42
  const std::string nightly = dir_.File("nightly.apk");
  std::ofstream(nightly, std::ios::binary) << ReadTestData("apk/next_aapt2.apk");  // code 43
  const std::string rebuilt = dir_.File("rebuilt.apk");
  std::ofstream(rebuilt, std::ios::binary) << ReadTestData("apk/app_aapt.apk");  // 42, aapt

  const std::vector<std::string> gate = {"--warmup", "1", "--block", "5", "--compilation",
                                         "speed-profile", "--fail-on-regression"};
  const std::string report = dir_.File("side-by-side.xml");
  auto slower = Client(With(ColdRun(devices[0].address, "com.example.app", 15),
                            With(gate, {"--build", nightly, "--baseline-build", release, "--junit",
                                        report})));
  EXPECT_EQ(slower.exit_code, 3) << slower.out << slower.err;
  EXPECT_NE(slower.out.find("\nregression against build 1 (side by side with build 2): median "),
            std::string::npos)
      << slower.out;
  EXPECT_NE(slower.out.find("\nconditions: compilation speed-profile; another build\n"),
            std::string::npos)
      << slower.out;
  EXPECT_NE(slower.err.find("droidlab run: run 1 is a regression against build 1 (side by side"),
            std::string::npos)
      << slower.err;

  auto doc = ParseXml(ReadFileBytes(report));
  ASSERT_TRUE(doc) << doc.error();
  const XmlElement* failure = (*doc)->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "regression");

  const Json compared = Json::parse(HttpCall(port_, "GET", "/api/v1/runs/1/compare").body);
  EXPECT_EQ(compared["verdict"], "regression") << compared.dump();
  EXPECT_EQ(compared["baseline_count"], 15);
  EXPECT_EQ(compared["candidate_count"], 15);
  // +10 % measured with 15 launches a side at a 4 % spread: the median's noise is ~2 % a side.
  EXPECT_GT(compared["delta_percent"].get<double>(), 5.0) << compared.dump();
  EXPECT_LT(compared["delta_percent"].get<double>(), 20.0) << compared.dump();
  EXPECT_EQ(compared["side_by_side"]["baseline_build"], 1);
  EXPECT_EQ(compared["side_by_side"]["candidate_build"], 2);

  // 15 a build in blocks of 5: A B B A A B — four installs, each followed by one warm-up, each
  // compiled again to speed-profile; every launch says which build it measured.
  const Json run = Json::parse(HttpCall(port_, "GET", "/api/v1/runs/1").body);
  const Json& installs = run["preflight"]["side_by_side"]["installs"];
  ASSERT_EQ(installs.size(), 4u) << run.dump();
  const std::vector<std::pair<std::string, int>> order = {
      {"baseline", 1}, {"candidate", 2}, {"baseline", 1}, {"candidate", 2}};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(installs[i]["arm"], order[i].first) << i;
    EXPECT_EQ(installs[i]["id"], order[i].second) << i;
    EXPECT_EQ(installs[i]["compilation_reached"], "speed-profile") << i;
  }
  EXPECT_EQ(installs[1]["before_iteration"], 7);  // after A's warm-up and 5 launches
  EXPECT_EQ(run["side_by_side"]["baseline"]["launches"]["valid"], 15);
  EXPECT_EQ(run["side_by_side"]["candidate"]["launches"]["valid"], 15);
  EXPECT_EQ(run["launches"]["warmup"], 4);
  const Json launches = Json::parse(HttpCall(port_, "GET", "/api/v1/runs/1/launches").body);
  std::string builds;
  for (const Json& l : launches["launches"]) builds += std::to_string(l["build_id"].get<int>());
  EXPECT_EQ(builds, "111111" "22222222222" "11111111111" "222222") << launches.dump();

  auto identical = Client(With(ColdRun(devices[0].address, "com.example.app", 15),
                               With(gate, {"--build", rebuilt, "--baseline-build", "1"})));
  EXPECT_EQ(identical.exit_code, 0) << identical.out << identical.err;
  EXPECT_NE(identical.out.find("\nno significant change against build 1 (side by side with build "
                               "3): median "),
            std::string::npos)
      << identical.out;
  EXPECT_NE(identical.out.find("\nconditions: compilation speed-profile; the same build\n"),
            std::string::npos)
      << identical.out;
}

// Issue 14 §1 with split APKs: `droidlab build add BASE SPLIT SPLIT APP.dm` is one build (the
// APKs are of one package and versionCode), uploaded as multipart; a run naming it installs the
// four files in one install session (devsim, Android 13: abb_exec install-create/-write/-commit),
// and the phone then lists the splits (dumpsys package `splits=[…]`). tests/data/apk/README.md.
TEST_F(ClientE2eTest, BuildAddOfSplitsIsOneBuildARunInstallsInOneSession) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address});
  const std::string base = dir_.File("app.apk");
  const std::string split = dir_.File("config.arm64_v8a.apk");
  const std::string feature = dir_.File("feature_camera.apk");
  const std::string dm = dir_.File("app.dm");
  std::ofstream(base, std::ios::binary) << ReadTestData("apk/app_aapt2.apk");
  std::ofstream(split, std::ios::binary) << ReadTestData("apk/split_aapt2.apk");
  std::ofstream(feature, std::ios::binary) << ReadTestData("apk/split_feature_aapt2.apk");
  std::ofstream(dm, std::ios::binary) << ReadTestData("apk/app_aapt2.dm");
  auto added = Client({"build", "add", split, dm, base, feature, "--json"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  ASSERT_EQ(std::count(added.out.begin(), added.out.end(), '\n'), 1) << added.out;
  const Json build = Json::parse(added.out, nullptr, false);
  ASSERT_TRUE(build.is_object()) << added.out;
  ASSERT_EQ(build["files"].size(), 4u) << build.dump();
  EXPECT_EQ(build["files"][0]["name"], "app.apk");
  EXPECT_EQ(build["files"][3]["kind"], "dm");

  auto run = Client(With(ColdRun(devices[0].address, "com.example.app", 2),
                         {"--build", std::to_string(build["id"].get<int64_t>()), "--wait",
                          "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json ended = Json::parse(run.out.substr(0, run.out.find('\n')), nullptr, false);
  ASSERT_TRUE(ended.is_object()) << run.out;
  EXPECT_EQ(ended["status"], "succeeded") << ended.dump();
  EXPECT_EQ(ended["preflight"]["build"]["install_method"], "abb_exec") << ended.dump();
  const std::string dump = Shell(devices[0], "dumpsys package com.example.app").out;
  EXPECT_NE(dump.find("versionCode=42 "), std::string::npos) << dump;
  EXPECT_NE(dump.find("splits=[base, config.arm64_v8a, feature_camera]"), std::string::npos)
      << dump;

  // A .dm that goes with no APK given is a usage error, said before anything is sent.
  auto lone = Client({"build", "add", base, dm + ".orphan.dm"});
  EXPECT_EQ(lone.exit_code, 2) << lone.err;
}

// Issue 14 §1 and §2: a second run of the same build on the same phone does not install it again
// (devsim Android 13: dumpsys package shows the APK's versionCode and its signer's hash, the
// same as the build's, and droidlab's last install there was those bytes — and its code path,
// new with every real install, stays); another versionCode or another key is installed. The
// device's page says what droidlab last put on it.
TEST_F(ClientE2eTest, TheSameBuildIsNotInstalledTwice) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  StartDaemonWith({serial});
  auto code_path = [&] {
    const std::string dump = Shell(devices[0], "dumpsys package com.example.app").out;
    const size_t at = dump.find("codePath=");
    return at == std::string::npos ? std::string() : dump.substr(at, dump.find('\n', at) - at);
  };

  const Json first = BuildRun(serial, TestApk("signed_v2v3.apk"));
  EXPECT_EQ(first["install_method"], "abb_exec") << first.dump();
  EXPECT_GT(first["bytes"].get<int64_t>(), 0);
  const Json build = Get(port_, "/api/v1/builds/1");
  std::string java_hash = ReadTestData("apk/testkey.hashcode.txt");
  java_hash.pop_back();
  EXPECT_EQ(build["signature"], java_hash) << build.dump();
  const std::string installed_at = code_path();
  ASSERT_NE(installed_at, "");

  const Json second = BuildRun(serial, "1");
  EXPECT_EQ(second["install_method"], "already-installed") << second.dump();
  EXPECT_EQ(second["bytes"], 0);
  EXPECT_EQ(second["id"], 1);
  EXPECT_EQ(code_path(), installed_at);

  const Json newer = BuildRun(serial, TestApk("signed43_v2v3.apk"));  // build 2: versionCode 43
  EXPECT_EQ(newer["install_method"], "abb_exec") << newer.dump();
  EXPECT_NE(code_path(), installed_at);
  const Json back = BuildRun(serial, "1");  // versionCode 42 again: a downgrade, installed
  EXPECT_EQ(back["install_method"], "abb_exec") << back.dump();
  // versionCode 42 by another key (build 3): the phone's signer differs, so it is installed
  // (a phone would refuse it, INSTALL_FAILED_UPDATE_INCOMPATIBLE; devsim checks no signature),
  // and build 1 after it is installed again too.
  const Json other_key = BuildRun(serial, TestApk("otherkey_v2v3.apk"));
  EXPECT_EQ(other_key["install_method"], "abb_exec") << other_key.dump();
  const Json again = BuildRun(serial, "1");
  EXPECT_EQ(again["install_method"], "abb_exec") << again.dump();
  EXPECT_EQ(BuildRun(serial, "1")["install_method"], "already-installed");

  // GET /devices/{serial}: per package, the last build droidlab put there and by which run.
  std::string encoded;
  for (char c : serial) encoded += c == ':' ? std::string("%3A") : std::string(1, c);
  const Json device = Get(port_, "/api/v1/devices/" + encoded);
  ASSERT_TRUE(device.is_object());
  ASSERT_EQ(device["installed_builds"].size(), 1u) << device.dump();
  const Json& installed = device["installed_builds"][0];
  EXPECT_EQ(installed["package"], "com.example.app");
  EXPECT_EQ(installed["build_id"], 1);
  EXPECT_EQ(installed["version_code"], 42);
  EXPECT_EQ(installed["sha256"], build["sha256"]);
  EXPECT_EQ(installed["install_method"], "already-installed");
  EXPECT_EQ(installed["run_id"], 7);
}

// A run that installed its build and then failed its preflight (the screen off) still records
// what it put on the phone. signed_v1v2.apk and signed_v2v3.apk are com.example.app 42 signed by
// the same key — the same to dumpsys package, other bytes (a nightly rebuilt without a new
// versionCode) —, so only droidlab's record tells the phone has build 2, and build 1 is
// installed again.
TEST_F(ClientE2eTest, ABuildInstalledByARunThatFailedIsStillKnown) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  StartDaemonWith({serial});
  EXPECT_EQ(BuildRun(serial, TestApk("signed_v2v3.apk"))["install_method"], "abb_exec");
  Shell(devices[0], "input keyevent KEYCODE_SLEEP");
  const Json failed = BuildRun(serial, TestApk("signed_v1v2.apk"), "failed");
  EXPECT_EQ(failed["id"], 2) << failed.dump();
  EXPECT_EQ(failed["install_method"], "abb_exec") << failed.dump();
  Shell(devices[0], "input keyevent KEYCODE_WAKEUP");
  Shell(devices[0], "wm dismiss-keyguard");
  EXPECT_EQ(BuildRun(serial, "1")["install_method"], "abb_exec");
  EXPECT_EQ(BuildRun(serial, "1")["install_method"], "already-installed");
}

// A side-by-side run leaves on the phone the build it installed last, and says so
// (preflight.build): signed_v2v3.apk (build 1) and signed_v1v2.apk (build 2) look the same to
// dumpsys package (com.example.app 42, one key), so after 1, then 1 against 2 (A B: 2 is left),
// a run of 1 must install it again — with the side-by-side run's installs unknown to the check
// it would not. Each switch of that run installed too: the phone had the other build.
TEST_F(ClientE2eTest, ASideBySideRunLeavesItsLastBuildKnown) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  StartDaemonWith({serial});
  EXPECT_EQ(BuildRun(serial, TestApk("signed_v2v3.apk"))["install_method"], "abb_exec");
  auto ab = Client(With(ColdRun(serial, "com.example.app", 1),
                        {"--baseline-build", "1", "--build", TestApk("signed_v1v2.apk"), "--block",
                         "1", "--json"}));
  ASSERT_EQ(ab.exit_code, 0) << ab.out << ab.err;
  const Json run = Get(port_, "/api/v1/runs/2");
  EXPECT_EQ(run["status"], "succeeded") << run.dump();
  const Json& installs = run["preflight"]["side_by_side"]["installs"];
  ASSERT_EQ(installs.size(), 2u) << run.dump();
  EXPECT_EQ(installs[1]["id"], 2);
  EXPECT_EQ(installs[1]["install_method"], "abb_exec");
  EXPECT_EQ(run["preflight"]["build"]["id"], 2) << run.dump();
  EXPECT_EQ(BuildRun(serial, "1")["install_method"], "abb_exec");
}

// The crash window of an install (issue 14 §1): the daemon killed while the phone takes a build.
// The run recorded the build as `installing` before it sent a byte, so after the restart that run
// is interrupted with `installing`, and the next run of that build installs it — the phone may
// hold either build, and signed_v1v2.apk (build 2) looks like signed_v2v3.apk (build 1) to
// dumpsys package (com.example.app 42, one key), so only droidlab's record could tell. Then, the
// install seen to finish, the same build is not installed again.
TEST_F(ClientE2eTest, AnInstallCutShortByACrashIsTakenForUnknownAndInstalledAgain) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;
  const int fixed = FreeLoopbackPort();
  ASSERT_GT(fixed, 0);
  const std::vector<std::string> listen = {"--listen", "127.0.0.1:" + std::to_string(fixed)};
  StartDaemonWith({serial}, listen);
  EXPECT_EQ(BuildRun(serial, TestApk("signed_v2v3.apk"))["install_method"], "abb_exec");

  // The phone's package manager stops reading the next install: the daemon waits for its answer.
  EXPECT_EQ(Shell(devices[0], "devsim-fault hang 'cmd package install'").exit_code, 0);
  auto queued = Client(With(ColdRun(serial, "com.example.app", 1),
                            {"--build", TestApk("signed_v1v2.apk"), "--json"}));
  ASSERT_EQ(queued.exit_code, 0) << queued.out << queued.err;
  const int64_t cut = 2;
  // "" until the run has a preflight with a build in it (null while it is queued).
  auto install_method = [&](int64_t run) {
    const Json r = Get(port_, "/api/v1/runs/" + std::to_string(run));
    const Json* at = &r;
    for (const char* key : {"preflight", "build", "install_method"}) {
      if (!at->is_object() || !at->contains(key)) return std::string();
      at = &(*at)[key];
    }
    return at->is_string() ? at->get<std::string>() : std::string();
  };
  ASSERT_TRUE(WaitUntil([&] { return install_method(cut) == "installing"; }, seconds(20)))
      << Get(port_, "/api/v1/runs/" + std::to_string(cut)).dump();
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->Stop();
  StartDaemonWith({serial}, listen);

  const Json interrupted = Get(port_, "/api/v1/runs/" + std::to_string(cut));
  EXPECT_EQ(interrupted["status"], "interrupted") << interrupted.dump();
  EXPECT_EQ(interrupted["preflight"]["build"]["id"], 2) << interrupted.dump();
  EXPECT_EQ(install_method(cut), "installing");
  const Json again = BuildRun(serial, "2");
  EXPECT_EQ(again["install_method"], "abb_exec")
      << "an install not seen to finish is unknown: " << again.dump();
  EXPECT_EQ(BuildRun(serial, "2")["install_method"], "already-installed");
}

TEST_F(ClientE2eTest, RunWaitPrintsTheSummaryAndWatchFollowsAnEndedRun) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address});

  auto run = Client(With(ColdRun(devices[0].address, "com.example.app", 3), {"--wait"}));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("run 1 succeeded: com.example.app cold x3 on " + devices[0].address, 0),
            0u)
      << run.out;
  // The summary's displayed_ms row: METRIC COUNT MIN MEDIAN MEAN P90 MAX STDDEV.
  const size_t row = run.out.find("\ndisplayed_ms ");
  ASSERT_NE(row, std::string::npos) << run.out;
  std::istringstream cells(run.out.substr(row + 1, run.out.find('\n', row + 1) - row - 1));
  std::vector<std::string> summary{std::istream_iterator<std::string>(cells), {}};
  ASSERT_EQ(summary.size(), 8u) << run.out;
  EXPECT_EQ(summary[1], "3");
  // Progress on stderr, as lines (not a terminal), ending with the run's end.
  EXPECT_NE(run.err.find("run 1: running, launching"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("run 1: succeeded 3/3 (3 valid)\n"), std::string::npos) << run.err;

  auto watch = Client({"watch", "1", "--json"});
  EXPECT_EQ(watch.exit_code, 0) << watch.err;
  Json ended = Json::parse(watch.out, nullptr, false);
  ASSERT_TRUE(ended.is_object()) << watch.out;
  EXPECT_EQ(ended["status"], "succeeded");
  EXPECT_EQ(ended["summary"]["displayed_ms"]["count"], 3);

  auto runs = Client({"runs", "--status", "succeeded"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("\n 1  succeeded  " + devices[0].address), std::string::npos) << runs.out;

  // The daemon's refusal, with its own words, and exit 5.
  auto unknown = Client({"watch", "999"});
  EXPECT_EQ(unknown.exit_code, 5);
  EXPECT_EQ(unknown.err,
            "droidlab watch: the daemon answered 404 to GET /api/v1/runs/999: no run 999\n");
  auto bad = Client({"runs", "--status", "done"});
  EXPECT_EQ(bad.exit_code, 5);
  EXPECT_NE(bad.err.find("400"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("status: 'done' is not one of"), std::string::npos) << bad.err;
}

TEST_F(ClientE2eTest, AFailedRunExitsOneAndItsJunitReportFails) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address});

  const std::string report = dir_.File("failed.xml");
  auto run = Client(
      With(ColdRun(devices[0].address, "com.example.missing", 2), {"--wait", "--junit", report}));
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("run 1 failed: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("error: preflight: package com.example.missing is not installed"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find("droidlab run: run 1 failed\n"), std::string::npos) << run.err;

  auto doc = ParseXml(ReadFileBytes(report));
  ASSERT_TRUE(doc) << doc.error();
  const XmlElement* suite = (*doc)->Find("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->attributes.at("failures"), "1");
  const XmlElement* failure = suite->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "failed");
  EXPECT_NE(failure->attributes.at("message").find("com.example.missing is not installed"),
            std::string::npos);
}

// The nightly job's one line. The same model with a build ~20 % slower to launch (devsim
// scenarios of ~200 ms at a 4 % spread, as ServeE2eTest's comparison): the first night has no
// baseline and passes; the second is a regression, exit 3, and its JUnit report says so.
// Issue 15: nightly runs judged against their history. Four nights of the release build
// (versionCode 42), then a build whose launches devsim makes 20 % slower (43): tonight's
// `--baseline history --fail-on-regression` exits 3 against the four nights, and once three
// nights of it have followed, the series has one change point, at exactly its first night,
// explained by the build, and nowhere else. The webhook of the daemon's config gets one signed
// alert: the regression, none for the nights of the same build.
TEST_F(ClientE2eTest, AStepInTheNightlyHistoryIsARegressionAndOneChangePoint) {
  boost::asio::io_context io;
  testutil::WebhookReceiver receiver(io, "nightly secret", {200});
  std::atomic<int> posts{0};
  receiver.on_post([&posts] { ++posts; });
  std::thread receiving([&io] { io.run(); });
  struct Joined {
    boost::asio::io_context& io;
    std::thread& thread;
    ~Joined() {
      io.stop();
      thread.join();
    }
  } joined{io, receiving};
  const std::string config = dir_.File("alerts.json");
  WriteFileBytes(config, Json{{"alerts", {{"webhooks", Json::array({{{"url", receiver.url()},
                                                                      {"secret", "nightly secret"}}})}}}}
                             .dump());
  const std::string scenario = dir_.File("nightly.json");
  WriteFileBytes(scenario,
                 R"({"seed":9,"packages":[{"name":"com.example.app","activity":".MainActivity",)"
                 R"("uid":10123,"cold":{"mean":200,"stddev":8},)"
                 R"("launch_factor_by_version_code":{"43":1.20}}]})");
  const auto devices = StartDevsim({"--port", "0", "--fast", "--scenario", scenario});
  ASSERT_EQ(devices.size(), 1u);
  StartDaemonWith({devices[0].address}, {"--config", config});
  const std::string release = dir_.File("release.apk");
  std::ofstream(release, std::ios::binary) << ReadTestData("apk/app_aapt2.apk");  // code 42
  const std::string nightly = dir_.File("nightly.apk");
  std::ofstream(nightly, std::ios::binary) << ReadTestData("apk/next_aapt2.apk");  // code 43
  const std::vector<std::string> gate = {"--baseline", "history", "--fail-on-regression"};
  for (int night = 1; night <= 4; ++night) {
    auto run = Client(With(ColdRun(devices[0].address, "com.example.app", 12),
                           With(gate, {"--build", night == 1 ? release : "1"})));
    EXPECT_EQ(run.exit_code, 0) << night << ": " << run.out << run.err;
  }
  auto tonight = Client(With(ColdRun(devices[0].address, "com.example.app", 12),
                             With(gate, {"--build", nightly})));
  EXPECT_EQ(tonight.exit_code, 3) << tonight.out << tonight.err;
  EXPECT_NE(tonight.out.find("\nregression against its history (4 runs since run 1): median "),
            std::string::npos)
      << tonight.out;
  EXPECT_NE(tonight.err.find("droidlab run: run 5 is a regression against its history"),
            std::string::npos)
      << tonight.err;
  const Json verdict = Json::parse(HttpCall(port_, "GET", "/api/v1/runs/5/verdict").body);
  EXPECT_EQ(verdict["verdict"], "regression") << verdict.dump();
  EXPECT_GT(verdict["delta_pct"].get<double>(), 10.0) << verdict.dump();
  EXPECT_LT(verdict["delta_pct"].get<double>(), 30.0) << verdict.dump();
  for (int night = 6; night <= 7; ++night) {
    auto run = Client(
        With(ColdRun(devices[0].address, "com.example.app", 12), {"--build", "2", "--wait"}));
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  }
  const std::string model = Get(port_, "/api/v1/runs/1")["device_model"].get<std::string>();
  std::string encoded;
  for (char c : model) encoded += c == ' ' ? std::string("%20") : std::string(1, c);
  const Json series = Json::parse(
      HttpCall(port_, "GET", "/api/v1/series?package=com.example.app&model=" + encoded +
                                 "&mode=cold")
          .body);
  ASSERT_EQ(series["points"].size(), 7u) << series.dump();
  // The whole answer when it fails: each point's count, hot_launches and out_of_range say whether
  // a night was left out of the analysis (once under ASan at -j4: no change point, cause unseen).
  ASSERT_EQ(series["change_points"].size(), 1u) << series.dump();
  EXPECT_EQ(series["change_points"][0]["run_id"], 5);
  EXPECT_EQ(series["change_points"][0]["explained_by"], Json::array({"build"}));
  EXPECT_TRUE(series["change_points"][0]["app_change"].get<bool>());

  // Raised as run 5 ended (after its end was announced), delivered by the alert loop.
  ASSERT_TRUE(WaitUntil([&] { return posts.load() >= 1; }, seconds(20)));
  const Json alerts = Get(port_, "/api/v1/alerts");
  ASSERT_EQ(alerts["alerts"].size(), 1u) << alerts.dump();
  EXPECT_EQ(alerts["alerts"][0]["kind"], "regression");
  EXPECT_EQ(alerts["alerts"][0]["run_id"], 5);
  EXPECT_EQ(alerts["alerts"][0]["version_code"], 43);
  EXPECT_EQ(alerts["alerts"][0]["build_id"], 2);
  ASSERT_EQ(posts.load(), 1);
  const testutil::ReceivedPost& post = receiver.posts()[0];
  EXPECT_TRUE(post.signature_ok);
  const Json sent = Json::parse(post.body);
  EXPECT_EQ(sent["alert"]["kind"], "regression");
  EXPECT_EQ(sent["alert"]["package"], "com.example.app");
  EXPECT_GT(sent["alert"]["delta_pct"].get<double>(), 10.0) << post.body;
}

TEST_F(ClientE2eTest, FailOnRegressionExitsThreeOnASlowerBuild) {
  const auto base =
      StartDevsim({"--port", "0", "--fast", "--scenario", ColdLaunchScenario("base", 7, 200, 8)});
  ASSERT_EQ(base.size(), 1u);
  ChildProcess slower_devsim({DevsimPath(), "--port", "0", "--fast", "--scenario",
                              ColdLaunchScenario("slower", 11, 240, 9)});
  const auto slower = ReadListeningLines(slower_devsim, 1);
  ASSERT_EQ(slower.size(), 1u);
  server_.Adb({"connect", slower[0].address});
  StartDaemonWith({base[0].address, slower[0].address});

  const std::vector<std::string> gate = {"--baseline", "previous", "--fail-on-regression"};
  auto first = Client(With(ColdRun(base[0].address, "com.example.app", 15), gate));
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.err.find("droidlab run: no baseline to compare with: "), std::string::npos)
      << first.err;

  const std::string report = dir_.File("nightly.xml");
  auto second = Client(
      With(ColdRun(slower[0].address, "com.example.app", 15), With(gate, {"--junit", report})));
  EXPECT_EQ(second.exit_code, 3) << second.out << second.err;
  EXPECT_NE(second.out.find("\nregression against run 1: median "), std::string::npos)
      << second.out;
  EXPECT_NE(second.err.find("droidlab run: run 2 is a regression against run 1\n"),
            std::string::npos)
      << second.err;

  auto doc = ParseXml(ReadFileBytes(report));
  ASSERT_TRUE(doc) << doc.error();
  const XmlElement* suite = (*doc)->Find("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->attributes.at("tests"), "17");  // the run, 15 launches, the comparison
  EXPECT_EQ(suite->attributes.at("failures"), "1");
  const XmlElement* failure = suite->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "regression");
}

// A daemon with a token: refused without it (exit 5, the daemon's words), served with it from
// --token-file or DROIDLAB_TOKEN — the event stream of `run --wait` included.
TEST_F(ClientE2eTest, ATokenFromFileOrEnvironmentIsSent) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  api_token_ = "lab-token-7f3a";
  const std::string token_file = dir_.File("token");
  WriteFileBytes(token_file, api_token_ + "\n");
  ::chmod(token_file.c_str(), 0600);  // a token file others can read is refused, by both sides
  StartDaemonWith({devices[0].address}, {"--token-file", token_file});

  auto refused = Client({"devices"});
  EXPECT_EQ(refused.exit_code, 5);
  EXPECT_EQ(refused.err,
            "droidlab devices: the daemon answered 401 to GET /api/v1/devices: this daemon needs "
            "Authorization: Bearer TOKEN\n");
  auto wrong_file = Client({"devices", "--token-file", dir_.File("missing")});
  EXPECT_EQ(wrong_file.exit_code, 2);
  EXPECT_EQ(wrong_file.err,
            "droidlab devices: --token-file: cannot read " + dir_.File("missing") + "\n");

  auto listed = Client({"devices", "--token-file", token_file});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(devices[0].address), std::string::npos) << listed.out;

  std::vector<std::string> argv = {"/usr/bin/env", "DROIDLAB_TOKEN=" + api_token_, DROIDLAB_BINARY};
  for (const auto& arg : With(ColdRun(devices[0].address, "com.example.app", 2), {"--wait"})) {
    argv.push_back(arg);
  }
  argv.push_back("--server=http://127.0.0.1:" + std::to_string(port_));
  auto run = RunProcess(argv);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("run 1: running, launching"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("run 1 succeeded"), std::string::npos) << run.out;
}

// `watch` outlives its daemon: killed mid-run (kill -9) and started again on the same address,
// the daemon marks the run `interrupted`, and watch reports that (exit 1) rather than a lost
// connection.
TEST_F(ClientE2eTest, WatchWaitsForARestartedDaemonAndReportsTheRunInterrupted) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const int fixed = FreeLoopbackPort();
  ASSERT_GT(fixed, 0);
  const std::vector<std::string> listen = {"--listen", "127.0.0.1:" + std::to_string(fixed)};
  StartDaemonWith({devices[0].address}, listen);
  ASSERT_EQ(port_, fixed);

  auto queued = Client(ColdRun(devices[0].address, "com.example.app", 200));
  ASSERT_EQ(queued.exit_code, 0) << queued.err;
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port_, 1) == "running"; }, seconds(20)));

  ChildProcess watch({DROIDLAB_BINARY, "watch", "1", "--json", "--server",
                      "http://127.0.0.1:" + std::to_string(port_)});
  ASSERT_TRUE(WaitForLaunches(port_, 1, 2));
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->Stop();
  StartDaemonWith({}, listen);
  ASSERT_EQ(port_, fixed);

  auto line = watch.ReadLine(std::chrono::milliseconds(40000));
  ASSERT_TRUE(line.has_value()) << "watch printed nothing";
  Json ended = Json::parse(*line, nullptr, false);
  ASSERT_TRUE(ended.is_object()) << *line;
  EXPECT_EQ(ended["status"], "interrupted");
  const auto status = watch.Wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(status.has_value()) << "watch did not exit after the run ended";
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 1);
}

// No adb needed: nothing listens.
TEST(ClientUnreachableTest, NoDaemonIsExitFourWithOneLine) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  auto devices = RunProcess({DROIDLAB_BINARY, "devices", "--server", url});
  EXPECT_EQ(devices.exit_code, 4);
  EXPECT_EQ(devices.out, "");
  EXPECT_EQ(devices.err,
            "droidlab devices: cannot reach the daemon at " + url + ": Connection refused\n");
  // DROIDLAB_SERVER when there is no --server.
  auto run =
      RunProcess({"/usr/bin/env", "DROIDLAB_SERVER=" + url, DROIDLAB_BINARY, "run", "--serial", "S",
                  "--package", "com.a", "--mode", "cold", "--iterations", "2", "--wait"});
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_EQ(run.err, "droidlab run: cannot reach the daemon at " + url + ": Connection refused\n");
}

}  // namespace
}  // namespace droidlab::testutil
