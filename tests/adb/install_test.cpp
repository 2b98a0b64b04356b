// adb::Client::Install and Push against the real adb server (Debian's adb, on a private port)
// and devsim phones of three Android versions, one per way adb installs
// (client/adb_install.cpp): SDK 23 pushes over sync: and runs `pm install`, SDK 28 streams over
// exec:cmd package install -S, SDK 30 over abb_exec:. What was installed is read back with
// `dumpsys package`; refusals come with the package manager's parsed reason; a deadline that
// passes mid-transfer and a cancellation end the install without a hang.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "adb/client.h"
#include "tests/common/adb_lab.h"
#include "tests/common/fake_adb_server.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using adb::AdbErrc;
using adb::DeadlineAfter;
using adb::InstallMethod;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string Fixture(const std::string& name) {
  return std::string(DROIDLAB_TEST_DATA_DIR) + "/apk/" + name;
}

// tests/data/apk/README.md: org.example.major, versionCodeMajor 3 and versionCode 7.
constexpr char kMajorApk[] = "major_aapt2.apk";
constexpr char kMajorVersionCode[] = "versionCode=12884901895 ";
constexpr char kMajorVersionName[] = "versionName=2026.11 \xe2\x98\x85\n";

// One install into `*out`, for a test that cancels it (a free function with value parameters:
// g++ 12 and lambda coroutines with captures do not mix).
asio::awaitable<void> InstallInto(adb::Client* client, adb::Serial serial, std::string path,
                                  std::optional<adb::Result<adb::InstallResult>>* out) {
  auto install = client->Install(serial, path, {}, {}, DeadlineAfter(seconds(30)));
  out->emplace(co_await std::move(install));
}

class InstallTest : public AdbLabTest {
 protected:
  // A devsim phone of `sdk` (its default apps: com.example.app at versionCode 123), connected.
  adb::Serial StartPhone(int sdk) {
    const std::string scenario = dir_.File("sdk" + std::to_string(sdk) + ".json");
    WriteFileBytes(scenario, "{\"device\": {\"sdk\": " + std::to_string(sdk) + "}}");
    const auto devices = StartDevsim({"--port", "0", "--fast", "--scenario", scenario});
    if (devices.size() != 1) {
      ADD_FAILURE() << "devsim did not start";
      return *adb::Serial::Parse("none");
    }
    WaitForDevice(server_, devices[0].address);
    return *adb::Serial::Parse(devices[0].address);
  }

  adb::ClientOptions Options() const {
    adb::ClientOptions options;
    options.server.port = static_cast<uint16_t>(server_.port());
    options.adb_path = AdbPath();
    return options;
  }

  adb::Result<adb::InstallResult> Install(adb::Client& client, const adb::Serial& serial,
                                          const std::string& path, adb::InstallOptions options,
                                          adb::ProgressCallback progress = {}) {
    return RunAwaitable(io_, client.Install(serial, path, options, std::move(progress),
                                            DeadlineAfter(seconds(20))));
  }

  std::string Shell(adb::Client& client, const adb::Serial& serial, std::vector<std::string> argv) {
    auto r = RunAwaitable(io_, client.ShellArgv(serial, argv, DeadlineAfter(seconds(10))));
    if (!r) {
      ADD_FAILURE() << r.error().message;
      return "";
    }
    return r->out + r->err;
  }

  // A file of `size` bytes (sparse: zeros) that no device would take as an APK.
  std::string BigFile(const std::string& name, off_t size) {
    const std::string path = dir_.File(name);
    WriteFileBytes(path, "");
    EXPECT_EQ(::truncate(path.c_str(), size), 0);
    return path;
  }

  // Runs `install` (which writes its result into `*result`), cancels it after 500 ms, and runs the
  // io_context until it ended or `limit` passed.
  void CancelMidway(asio::awaitable<void> install,
                    const std::optional<adb::Result<adb::InstallResult>>& result,
                    std::chrono::seconds limit) {
    asio::cancellation_signal cancel;
    asio::co_spawn(io_, std::move(install),
                   asio::bind_cancellation_slot(cancel.slot(),
                                                [](std::exception_ptr e) { EXPECT_FALSE(e); }));
    asio::steady_timer later(io_, milliseconds(500));
    later.async_wait(
        [&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    while (!result && std::chrono::steady_clock::now() - start < limit) {
      io_.run_one_for(milliseconds(50));
    }
  }

  TempDir dir_;
  asio::io_context io_;
};

struct WayCase {
  int sdk;
  InstallMethod method;
};

class InstallWayTest : public InstallTest, public ::testing::WithParamInterface<WayCase> {};

TEST_P(InstallWayTest, InstalledVersionIsWhatDumpsysPackageReports) {
  const auto serial = StartPhone(GetParam().sdk);
  adb::Client client(io_.get_executor(), Options());
  ASSERT_EQ(Shell(client, serial, {"dumpsys", "package", "org.example.major"}), "");
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  auto installed = Install(client, serial, Fixture(kMajorApk), {},
                           [&](uint64_t sent, uint64_t total) { calls.emplace_back(sent, total); });
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  EXPECT_TRUE(installed->success) << installed->output;
  EXPECT_EQ(installed->method, GetParam().method);
  const uint64_t size = ReadFileBytes(Fixture(kMajorApk)).size();
  EXPECT_EQ(installed->bytes, size);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(size, size));
  const std::string dump = Shell(client, serial, {"dumpsys", "package", "org.example.major"});
  EXPECT_NE(dump.find(kMajorVersionCode), std::string::npos) << dump;
  EXPECT_NE(dump.find(kMajorVersionName), std::string::npos) << dump;
  if (GetParam().method == InstallMethod::kPushThenPmInstall) {
    // The pushed copy is gone after pm install (install_app_legacy's delete_device_file).
    const std::string left =
        Shell(client, serial, {"sha1sum", "/data/local/tmp/" + std::string(kMajorApk)});
    EXPECT_NE(left.find("No such file or directory"), std::string::npos) << left;
  }
}

INSTANTIATE_TEST_SUITE_P(Ways, InstallWayTest,
                         ::testing::Values(WayCase{23, InstallMethod::kPushThenPmInstall},
                                           WayCase{28, InstallMethod::kExecCmd},
                                           WayCase{30, InstallMethod::kAbbExec}),
                         [](const auto& way) { return "Sdk" + std::to_string(way.param.sdk); });

TEST_F(InstallTest, NotAnApkIsRefusedWithTheParsedReason) {
  const auto serial = StartPhone(30);
  adb::Client client(io_.get_executor(), Options());
  const std::string path = dir_.File("notes.apk");
  WriteFileBytes(path, "these are not the bytes of a zip archive\n");
  auto refused = Install(client, serial, path, {});
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->code, "INSTALL_PARSE_FAILED_NOT_APK");
  EXPECT_TRUE(refused->reason.starts_with("Failed to parse /data/app/vmdl")) << refused->reason;
  EXPECT_EQ(refused->advice, "the file is not an APK");
}

TEST_F(InstallTest, NotAnApkOnAndroid6GivesTheCodeAlone) {
  const auto serial = StartPhone(23);
  adb::Client client(io_.get_executor(), Options());
  const std::string path = dir_.File("notes.apk");
  WriteFileBytes(path, "PK but no more\n");
  auto refused = Install(client, serial, path, {});
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->method, InstallMethod::kPushThenPmInstall);
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->code, "INSTALL_PARSE_FAILED_NOT_APK");
  EXPECT_EQ(refused->reason, "");
}

TEST_F(InstallTest, DowngradeIsRefusedUnlessAllowed) {
  const auto serial = StartPhone(28);
  adb::Client client(io_.get_executor(), Options());
  // app_aapt.apk is com.example.app at versionCode 42; devsim's phone has 123.
  auto refused = Install(client, serial, Fixture("app_aapt.apk"), {});
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->code, "INSTALL_FAILED_VERSION_DOWNGRADE");
  EXPECT_EQ(refused->reason, "Update version code 42 is older than current 123");
  EXPECT_FALSE(refused->advice.empty());
  EXPECT_NE(
      Shell(client, serial, {"dumpsys", "package", "com.example.app"}).find("versionCode=123 "),
      std::string::npos);

  adb::InstallOptions downgrade;
  downgrade.allow_downgrade = true;
  auto allowed = Install(client, serial, Fixture("app_aapt.apk"), downgrade);
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_TRUE(allowed->success) << allowed->output;
  const std::string dump = Shell(client, serial, {"dumpsys", "package", "com.example.app"});
  EXPECT_NE(dump.find("versionCode=42 "), std::string::npos) << dump;
  EXPECT_NE(dump.find("versionName=1.2.3-nightly\n"), std::string::npos) << dump;
}

TEST_F(InstallTest, DeadlineMidTransferIsATimeoutAndTheNextInstallWorks) {
  const auto serial = StartPhone(30);
  adb::Client client(io_.get_executor(), Options());
  // The phone takes none of the next install's bytes: the socket buffers fill, the write waits.
  Shell(client, serial, {"devsim-fault", "hang", "cmd package install"});
  const std::string big = BigFile("big.apk", 64 << 20);
  const auto start = std::chrono::steady_clock::now();
  auto timed_out = RunAwaitable(
      io_, client.Install(serial, big, {}, {}, DeadlineAfter(milliseconds(700))), seconds(10));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.error().code, AdbErrc::kTimeout) << timed_out.error().message;
  EXPECT_LT(took, seconds(3));
  auto next = Install(client, serial, Fixture(kMajorApk), {});
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_TRUE(next->success) << next->output;
}

TEST_F(InstallTest, CancelMidTransferEndsTheInstall) {
  const auto serial = StartPhone(28);
  adb::Client client(io_.get_executor(), Options());
  Shell(client, serial, {"devsim-fault", "hang", "cmd package install"});
  const std::string big = BigFile("big.apk", 64 << 20);
  std::optional<adb::Result<adb::InstallResult>> result;
  CancelMidway(InstallInto(&client, serial, big, &result), result, seconds(10));
  ASSERT_TRUE(result.has_value()) << "the install did not end after its cancellation";
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().code, AdbErrc::kCancelled) << result->error().message;
}

TEST_F(InstallTest, PushLandsByteForByteInDataChunks) {
  const auto serial = StartPhone(28);
  adb::Client client(io_.get_executor(), Options());
  // 300 KiB + 5 bytes: several full DATA messages and a short last one.
  std::string bytes(300 * 1024 + 5, '\0');
  std::mt19937 rng(7);
  for (char& c : bytes) c = static_cast<char>(rng());
  const std::string path = dir_.File("blob.bin");
  WriteFileBytes(path, bytes);
  auto pushed = RunAwaitable(
      io_, client.Push(serial, path, "/data/local/tmp/blob.bin", {}, DeadlineAfter(seconds(10))));
  ASSERT_TRUE(pushed.ok()) << pushed.error().message;
  EXPECT_EQ(*pushed, bytes.size());
  const ProcessResult local = RunProcess({"/usr/bin/sha1sum", path});
  ASSERT_EQ(local.exit_code, 0);
  const std::string device = Shell(client, serial, {"sha1sum", "/data/local/tmp/blob.bin"});
  EXPECT_EQ(device.substr(0, 40), local.out.substr(0, 40));

  auto refused = RunAwaitable(
      io_, client.Push(serial, path, "/system/blob.bin", {}, DeadlineAfter(seconds(10))));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, AdbErrc::kRejected);
  EXPECT_EQ(refused.error().message, "couldn't create file: Permission denied");
}

TEST_F(InstallTest, MissingLocalFileIsRefusedBeforeAnyIo) {
  adb::Client client(io_.get_executor(), Options());
  auto missing = Install(client, *adb::Serial::Parse("127.0.0.1:1"), dir_.File("none.apk"), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, AdbErrc::kInvalidArgument);
}

// ---- InstallMultiple: a base APK, its splits and a .dm in one install session ----
// (packages/modules/adb client/adb_install.cpp install_multiple_app_streamed; the answers are
// PackageManagerShellCommand's, devsim prints them per SDK: tools/devsim/android/
// install_commands.cpp.) tests/data/apk/README.md: app_aapt2.apk is com.example.app at
// versionCode 42 (devsim's phone has 123: a downgrade), split_aapt2.apk its config.arm64_v8a,
// split_feature_aapt2.apk its feature_camera, app_aapt2.dm a .dm holding primary.prof.

// devsim's first session id on a fresh phone (DeviceState::next_install_session).
constexpr int64_t kFirstSession = 1392406147;

std::vector<adb::SessionFile> AppWithSplits(bool with_dm) {
  std::vector<adb::SessionFile> files = {
      {Fixture("app_aapt2.apk"), "base.apk"},
      {Fixture("split_aapt2.apk"), "split_config.arm64_v8a.apk"},
      {Fixture("split_feature_aapt2.apk"), "split_feature_camera.apk"},
  };
  if (with_dm) files.push_back({Fixture("app_aapt2.dm"), "base.dm"});
  return files;
}

adb::InstallOptions Downgrade() {
  adb::InstallOptions options;
  options.allow_downgrade = true;
  return options;
}

// One InstallMultiple into `*out`, for the tests that cancel it.
asio::awaitable<void> InstallMultipleInto(adb::Client* client, adb::Serial serial,
                                          std::vector<adb::SessionFile> files,
                                          std::optional<adb::Result<adb::InstallResult>>* out) {
  auto install = client->InstallMultiple(serial, files, Downgrade(), {}, DeadlineAfter(seconds(30)));
  out->emplace(co_await std::move(install));
}

class InstallMultipleTest : public InstallTest {
 protected:
  adb::Result<adb::InstallResult> InstallMultiple(adb::Client& client, const adb::Serial& serial,
                                                  std::vector<adb::SessionFile> files,
                                                  adb::ProgressCallback progress = {}) {
    return RunAwaitable(io_, client.InstallMultiple(serial, std::move(files), Downgrade(),
                                                    std::move(progress), DeadlineAfter(seconds(20))));
  }
};

class InstallMultipleWayTest : public InstallMultipleTest,
                               public ::testing::WithParamInterface<WayCase> {};

TEST_P(InstallMultipleWayTest, BaseSplitsAndDmAreOneInstall) {
  const auto serial = StartPhone(GetParam().sdk);
  adb::Client client(io_.get_executor(), Options());
  // Android 9 (SDK 28) brought dex metadata; before it a .dm is no file the package manager takes.
  const bool with_dm = GetParam().sdk >= 28;
  const auto files = AppWithSplits(with_dm);
  uint64_t total = 0;
  for (const auto& file : files) total += ReadFileBytes(file.local_path).size();
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  auto installed = InstallMultiple(client, serial, files, [&](uint64_t sent, uint64_t all) {
    calls.emplace_back(sent, all);
  });
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  EXPECT_TRUE(installed->success) << installed->output;
  EXPECT_EQ(installed->method, GetParam().method);
  EXPECT_EQ(installed->session_id, std::optional<int64_t>(kFirstSession));
  EXPECT_EQ(installed->bytes, total);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(total, total));
  const std::string dump = Shell(client, serial, {"dumpsys", "package", "com.example.app"});
  EXPECT_NE(dump.find("versionCode=42 "), std::string::npos) << dump;
  // Settings.dumpPackageLPr / dumpSplitNames: the splits sorted by name after "base".
  EXPECT_NE(dump.find("splits=[base, config.arm64_v8a, feature_camera]\n"), std::string::npos)
      << dump;
  // The session is gone: committing it again is refused as an unknown session.
  const std::string again =
      Shell(client, serial, {"pm", "install-commit", std::to_string(kFirstSession)});
  EXPECT_NE(again.find("Caller has no access to session"), std::string::npos) << again;
  if (GetParam().method == InstallMethod::kPushThenPmInstall) {
    const std::string left = Shell(client, serial, {"sha1sum", "/data/local/tmp/base.apk"});
    EXPECT_NE(left.find("No such file or directory"), std::string::npos) << left;
  }
}

INSTANTIATE_TEST_SUITE_P(Ways, InstallMultipleWayTest,
                         ::testing::Values(WayCase{23, InstallMethod::kPushThenPmInstall},
                                           WayCase{28, InstallMethod::kExecCmd},
                                           WayCase{30, InstallMethod::kAbbExec},
                                           WayCase{34, InstallMethod::kAbbExec}),
                         [](const auto& way) { return "Sdk" + std::to_string(way.param.sdk); });

TEST_F(InstallMultipleTest, TheDmIsTheAppsProfileOnAndroid14) {
  // ART Service (Android 14) compiles speed-profile as verify when the app has no profile.
  const auto serial = StartPhone(34);
  adb::Client client(io_.get_executor(), Options());
  const std::vector<std::string> compile = {"cmd", "package", "compile", "-m", "speed-profile",
                                            "-f", "com.example.app"};
  auto without = InstallMultiple(client, serial, AppWithSplits(false));
  ASSERT_TRUE(without.ok() && without->success);
  Shell(client, serial, compile);
  EXPECT_NE(Shell(client, serial, {"dumpsys", "package", "com.example.app"})
                .find("[status=verify]"),
            std::string::npos);
  auto with = InstallMultiple(client, serial, AppWithSplits(true));
  ASSERT_TRUE(with.ok() && with->success);
  Shell(client, serial, compile);
  EXPECT_NE(Shell(client, serial, {"dumpsys", "package", "com.example.app"})
                .find("[status=speed-profile]"),
            std::string::npos);
}

struct RefusalCase {
  const char* name;
  std::vector<adb::SessionFile> files;
  const char* code;
  const char* reason;  // what the reason holds
};

class InstallMultipleRefusalTest : public InstallMultipleTest,
                                   public ::testing::WithParamInterface<RefusalCase> {};

// PackageInstallerSession.validateApkInstallLocked / assertApkConsistentLocked (Android 9–14).
TEST_P(InstallMultipleRefusalTest, CommitRefusesWithThePackageManagersWords) {
  const auto serial = StartPhone(30);
  adb::Client client(io_.get_executor(), Options());
  auto refused = InstallMultiple(client, serial, GetParam().files);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->code, GetParam().code);
  EXPECT_NE(refused->reason.find(GetParam().reason), std::string::npos) << refused->reason;
  EXPECT_FALSE(refused->advice.empty());
  EXPECT_NE(
      Shell(client, serial, {"dumpsys", "package", "com.example.app"}).find("versionCode=123 "),
      std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Splits, InstallMultipleRefusalTest,
    ::testing::Values(
        RefusalCase{"NoBase",
                    {{Fixture("split_aapt2.apk"), "split_config.arm64_v8a.apk"}},
                    "INSTALL_FAILED_INVALID_APK",
                    "Full install must include a base package"},
        RefusalCase{"OtherPackage",
                    {{Fixture("app_aapt2.apk"), "base.apk"},
                     {Fixture("split_other_package_aapt2.apk"), "split_config.xxhdpi.apk"}},
                    "INSTALL_FAILED_INVALID_APK",
                    "split_config.xxhdpi.apk package com.example.other inconsistent with "
                    "com.example.app"},
        RefusalCase{"OtherVersionCode",
                    {{Fixture("app_aapt2.apk"), "base.apk"},
                     {Fixture("split_other_version_aapt2.apk"), "split_config.xxhdpi.apk"}},
                    "INSTALL_FAILED_INVALID_APK",
                    "version code 43 inconsistent with 42"},
        RefusalCase{"TwoBases",
                    {{Fixture("app_aapt2.apk"), "base.apk"}, {Fixture("app_aapt.apk"), "other.apk"}},
                    "INSTALL_FAILED_INVALID_APK",
                    "Split null was defined multiple times"}),
    [](const auto& refusal) { return std::string(refusal.param.name); });

TEST_F(InstallMultipleTest, ADmBeforeAndroid9FailsTheCommit) {
  const auto serial = StartPhone(27);
  adb::Client client(io_.get_executor(), Options());
  auto refused = InstallMultiple(client, serial, AppWithSplits(true));
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->code, "INSTALL_PARSE_FAILED_NOT_APK");
}

TEST_F(InstallMultipleTest, BadNamesAndNoFilesAreRefusedBeforeAnyIo) {
  adb::Client client(io_.get_executor(), Options());
  const auto nowhere = *adb::Serial::Parse("127.0.0.1:1");
  auto none = InstallMultiple(client, nowhere, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, AdbErrc::kInvalidArgument);
  for (const char* name : {"base apk.apk", "../base.apk", "base.txt", "-r.apk", "a;b.apk", ""}) {
    auto bad = InstallMultiple(client, nowhere, {{Fixture("app_aapt2.apk"), name}});
    ASSERT_FALSE(bad.ok()) << name;
    EXPECT_EQ(bad.error().code, AdbErrc::kInvalidArgument) << name;
  }
}

TEST_F(InstallMultipleTest, CancelMidWriteAbandonsTheSession) {
  const auto serial = StartPhone(30);
  adb::Client client(io_.get_executor(), Options());
  // The phone takes none of a write's bytes; the big split fills the socket buffers.
  Shell(client, serial, {"devsim-fault", "hang", "cmd package install-write"});
  const std::string big = BigFile("big.apk", 64 << 20);
  std::optional<adb::Result<adb::InstallResult>> result;
  std::vector<adb::SessionFile> files = {{big, "base.apk"}};
  CancelMidway(InstallMultipleInto(&client, serial, files, &result), result, seconds(15));
  ASSERT_TRUE(result.has_value()) << "the install did not end after its cancellation";
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().code, AdbErrc::kCancelled) << result->error().message;
  // install-abandon went out: the session is unknown now, so a commit of it is refused.
  const std::string commit =
      Shell(client, serial, {"pm", "install-commit", std::to_string(kFirstSession)});
  EXPECT_NE(commit.find("Caller has no access to session"), std::string::npos) << commit;
  auto next = InstallMultiple(client, serial, AppWithSplits(true));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_TRUE(next->success) << next->output;
}

TEST_F(InstallMultipleTest, DeadlineMidWriteIsATimeoutAndAbandons) {
  const auto serial = StartPhone(28);
  adb::Client client(io_.get_executor(), Options());
  Shell(client, serial, {"devsim-fault", "hang", "cmd package install-write"});
  const std::string big = BigFile("big.apk", 64 << 20);
  const auto start = std::chrono::steady_clock::now();
  std::vector<adb::SessionFile> files = {{big, "base.apk"}};
  auto timed_out = RunAwaitable(
      io_, client.InstallMultiple(serial, files, {}, {}, DeadlineAfter(milliseconds(700))),
      seconds(15));
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.error().code, AdbErrc::kTimeout) << timed_out.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  const std::string commit =
      Shell(client, serial, {"pm", "install-commit", std::to_string(kFirstSession)});
  EXPECT_NE(commit.find("Caller has no access to session"), std::string::npos) << commit;
}

}  // namespace
}  // namespace droidlab::testutil
