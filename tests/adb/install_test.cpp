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
  asio::cancellation_signal cancel;
  std::optional<adb::Result<adb::InstallResult>> result;
  asio::co_spawn(
      io_, InstallInto(&client, serial, big, &result),
      asio::bind_cancellation_slot(cancel.slot(), [](std::exception_ptr e) { EXPECT_FALSE(e); }));
  asio::steady_timer later(io_, milliseconds(500));
  later.async_wait(
      [&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
  const auto start = std::chrono::steady_clock::now();
  while (!result && std::chrono::steady_clock::now() - start < seconds(10)) {
    io_.run_one_for(milliseconds(50));
  }
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

}  // namespace
}  // namespace droidlab::testutil
