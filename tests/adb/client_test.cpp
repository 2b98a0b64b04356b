// adb::Client against the in-process fake adb server (tests/common/fake_adb_server.h): replies
// in fragments, FAIL texts, truncation and EOF at each step, hung servers and deadlines,
// cancellation, tracking across a server restart, the per-device limit, and requests that must
// never be sent.
#include "adb/client.h"

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>

#include "adb/names.h"
#include "adb/shell_quote.h"
#include "tests/common/fake_adb_server.h"
#include "tests/common/temp_dir.h"

namespace droidlab::adb {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using testutil::FakeAdbServer;
using testutil::FakeOkay;
using testutil::FakeRequest;
using testutil::FakeShellExit;
using testutil::FakeShellPacket;
using testutil::FakeStep;
using testutil::RunAwaitable;

constexpr std::string_view kSerial = "emulator-5554";
constexpr std::string_view kV2Features = "shell_v2,cmd,stat_v2";

Serial TestSerial() { return *Serial::Parse(kSerial); }

// A fake device with shell_v2: features, transport, then `shell` answered by `shell_reply`.
FakeAdbServer::Handler DeviceHandler(std::string shell_reply,
                                     FakeStep::Then then = FakeStep::Then::kClose,
                                     std::string_view features = kV2Features) {
  return [shell_reply = std::move(shell_reply), then,
          features = std::string(features)](const FakeRequest& r) {
    if (r.service == "host-serial:" + std::string(kSerial) + ":features") {
      return FakeStep::ReplyAndClose(FakeOkay(features));
    }
    if (r.service == "host:transport:" + std::string(kSerial)) return FakeStep::Reply(FakeOkay());
    if (r.service.starts_with("shell")) return FakeStep::Reply(shell_reply, then);
    return FakeStep::ReplyAndClose(testutil::FakeFail("unknown host service"));
  };
}

class ClientTest : public ::testing::Test {
 protected:
  ClientOptions Options(const FakeAdbServer& fake) {
    ClientOptions options;
    options.server.port = fake.port();
    options.adb_path = "";  // never start a real adb server from a unit test
    options.reconnect_initial_delay = milliseconds(20);
    options.reconnect_max_delay = milliseconds(200);
    return options;
  }

  template <class T>
  T Run(asio::awaitable<T> task) {
    return RunAwaitable(io_, std::move(task));
  }

  asio::io_context io_;
};

TEST_F(ClientTest, VersionOneByteAtATime) {
  FakeAdbServer fake(io_.get_executor(),
                     [](const FakeRequest& r) {
                       EXPECT_EQ(r.service, "host:version");
                       return FakeStep::ReplyAndClose(FakeOkay("0029"));
                     },
                     {.fragment_size = 1});
  Client client(io_.get_executor(), Options(fake));
  auto version = Run(client.Version(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(*version, 0x29);
}

TEST_F(ClientTest, DevicesLongParsed) {
  const std::string list =
      "emulator-5554          device product:sdk_gphone64 model:Pixel_7 device:emu64 "
      "transport_id:1\n"
      "R58M123ABC             unauthorized usb:1-1 transport_id:2\n";
  FakeAdbServer fake(io_.get_executor(),
                     [&](const FakeRequest& r) {
                       EXPECT_EQ(r.service, "host:devices-l");
                       return FakeStep::ReplyAndClose(FakeOkay(list));
                     },
                     {.fragment_size = 3});
  Client client(io_.get_executor(), Options(fake));
  auto devices = Run(client.Devices(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->devices.size(), 2u);
  EXPECT_EQ(devices->devices[0].model, "Pixel_7");
  EXPECT_EQ(devices->devices[0].transport_id, 1u);
  EXPECT_EQ(devices->devices[1].state, DeviceState::kUnauthorized);
}

TEST_F(ClientTest, HostFeaturesAndPerDeviceFeatures) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest& r) {
    if (r.service == "host:features") return FakeStep::ReplyAndClose(FakeOkay("shell_v2,cmd"));
    if (r.service == "host-serial:emulator-5554:features") {
      return FakeStep::ReplyAndClose(FakeOkay("cmd"));
    }
    return FakeStep::ReplyAndClose(testutil::FakeFail("unknown"));
  });
  Client client(io_.get_executor(), Options(fake));
  auto one = Run(client.Features(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_TRUE(HasFeature(*one, kFeatureShellV2));
  auto per_device = Run(client.Features(TestSerial(), DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(per_device.ok());
  EXPECT_EQ(*per_device, (FeatureSet{"cmd"}));
}

// --- FAIL texts --------------------------------------------------------------------------------

struct FailCase {
  std::string name;
  std::string text;
  AdbErrc code;
};

class ClientFailTest : public ClientTest, public ::testing::WithParamInterface<FailCase> {};

TEST_P(ClientFailTest, TransportFailKeepsAdbText) {
  const FailCase& c = GetParam();
  FakeAdbServer fake(io_.get_executor(),
                     [&](const FakeRequest& r) {
                       if (r.service.ends_with(":features"))
                         return FakeStep::ReplyAndClose(FakeOkay(kV2Features));
                       return FakeStep::ReplyAndClose(testutil::FakeFail(c.text));
                     },
                     {.fragment_size = 2});
  Client client(io_.get_executor(), Options(fake));
  auto result =
      Run(client.ShellArgv(TestSerial(), {"echo", "hi"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, c.code) << ErrcName(result.error().code);
  EXPECT_EQ(result.error().message, c.text);
}

INSTANTIATE_TEST_SUITE_P(
    Texts, ClientFailTest,
    ::testing::Values(
        FailCase{"NotFound", "device 'emulator-5554' not found", AdbErrc::kDeviceNotFound},
        FailCase{"Offline", "device offline", AdbErrc::kDeviceOffline},
        FailCase{"Unauthorized",
                 "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry "
                 "'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation "
                 "dialog on your device.",
                 AdbErrc::kDeviceUnauthorized},
        FailCase{"Closed", "closed", AdbErrc::kRejected}),
    [](const auto& test) { return test.param.name; });

TEST_F(ClientTest, FeaturesFailForUnknownDeviceKeepsText) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) {
    return FakeStep::ReplyAndClose(testutil::FakeFail("device 'emulator-5554' not found"));
  });
  Client client(io_.get_executor(), Options(fake));
  auto result =
      Run(client.ShellArgv(TestSerial(), {"true"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kDeviceNotFound);
  EXPECT_EQ(result.error().message, "device 'emulator-5554' not found");
}

// --- truncation, EOF and garbage at each step ---------------------------------------------------

struct BrokenCase {
  std::string name;
  std::string step;   // which request gets the broken answer: "features", "transport", "shell"
  std::string bytes;  // sent, then the connection closes
  AdbErrc code;
};

class ClientBrokenReplyTest : public ClientTest,
                              public ::testing::WithParamInterface<BrokenCase> {};

TEST_P(ClientBrokenReplyTest, ShellReportsWhereItBroke) {
  const BrokenCase& c = GetParam();
  auto normal = DeviceHandler(FakeOkay() + FakeShellPacket(1, "hi\n") + FakeShellExit(0));
  for (size_t fragment : {size_t{0}, size_t{1}}) {
    SCOPED_TRACE("fragment_size " + std::to_string(fragment));
    FakeAdbServer fake(io_.get_executor(),
                       [&](const FakeRequest& r) {
                         const bool hit =
                             (c.step == "features" && r.service.ends_with(":features")) ||
                             (c.step == "transport" && r.service.starts_with("host:transport:")) ||
                             (c.step == "shell" && r.service.starts_with("shell"));
                         return hit ? FakeStep::ReplyAndClose(c.bytes) : normal(r);
                       },
                       {.fragment_size = fragment});
    Client client(io_.get_executor(), Options(fake));
    auto result =
        Run(client.ShellArgv(TestSerial(), {"echo", "hi"}, DeadlineAfter(std::chrono::seconds(5))));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, c.code)
        << ErrcName(result.error().code) << ": " << result.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, ClientBrokenReplyTest,
    ::testing::Values(
        BrokenCase{"FeaturesEof", "features", "", AdbErrc::kConnectionLost},
        BrokenCase{"FeaturesHalfStatus", "features", "OK", AdbErrc::kConnectionLost},
        BrokenCase{"FeaturesHalfLength", "features", "OKAY00", AdbErrc::kConnectionLost},
        BrokenCase{"FeaturesHalfPayload", "features", "OKAY0010shell_v2", AdbErrc::kConnectionLost},
        BrokenCase{"FeaturesBadStatus", "features", "OKAX0000", AdbErrc::kProtocol},
        BrokenCase{"FeaturesBadLength", "features", "OKAY00zz", AdbErrc::kProtocol},
        BrokenCase{"TransportEof", "transport", "", AdbErrc::kConnectionLost},
        BrokenCase{"TransportHalfFail", "transport", "FAIL000edevice", AdbErrc::kConnectionLost},
        BrokenCase{"TransportGarbage", "transport", "HTTP/1.1 200", AdbErrc::kProtocol},
        BrokenCase{"ShellEof", "shell", "", AdbErrc::kConnectionLost},
        BrokenCase{"ShellOkayOnly", "shell", "OKAY", AdbErrc::kConnectionLost},
        BrokenCase{"ShellHalfHeader", "shell", "OKAY\x01\x03\x00", AdbErrc::kConnectionLost},
        BrokenCase{"ShellHalfData", "shell", std::string("OKAY\x01\x03\x00\x00\x00h", 10),
                   AdbErrc::kConnectionLost},
        BrokenCase{"ShellNoExit", "shell", std::string("OKAY\x01\x03\x00\x00\x00hi\n", 12),
                   AdbErrc::kConnectionLost},
        BrokenCase{"ShellBadExit", "shell", std::string("OKAY\x03\x02\x00\x00\x00\x00\x00", 11),
                   AdbErrc::kProtocol}),
    [](const auto& test) { return test.param.name; });

// --- shell v2 and v1 ---------------------------------------------------------------------------

TEST_F(ClientTest, ShellV2SplitsStdoutStderrAndExitAcrossFragments) {
  const std::string reply = FakeOkay() + FakeShellPacket(1, "line one\n") +
                            FakeShellPacket(2, "warning: x\n") + FakeShellPacket(1, "line two\n") +
                            FakeShellExit(3);
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(reply), {.fragment_size = 1});
  Client client(io_.get_executor(), Options(fake));
  auto result = Run(
      client.ShellArgv(TestSerial(), {"sh", "-c", "x"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_TRUE(result->shell_v2);
  EXPECT_EQ(result->out, "line one\nline two\n");
  EXPECT_EQ(result->err, "warning: x\n");
  EXPECT_EQ(result->exit_code, 3);
  const auto requests = fake.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0], "host-serial:emulator-5554:features");
  EXPECT_EQ(requests[1], "host:transport:emulator-5554");
  EXPECT_EQ(requests[2], "shell,v2,raw:sh -c x");
}

TEST_F(ClientTest, ShellV1WhenTheDeviceLacksShellV2) {
  FakeAdbServer fake(
      io_.get_executor(),
      DeviceHandler(FakeOkay() + "mixed out\nand err\n", FakeStep::Then::kClose, "cmd,stat_v2"),
      {.fragment_size = 4});
  Client client(io_.get_executor(), Options(fake));
  auto result = Run(client.ShellArgv(TestSerial(), {"ls"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_FALSE(result->shell_v2);
  EXPECT_EQ(result->out, "mixed out\nand err\n");
  EXPECT_FALSE(result->exit_code.has_value());
  EXPECT_EQ(fake.requests().back(), "shell:ls");
}

TEST_F(ClientTest, FeaturesAreAskedOncePerDevice) {
  FakeAdbServer fake(io_.get_executor(),
                     DeviceHandler(FakeOkay() + FakeShellPacket(1, "x") + FakeShellExit(0)));
  Client client(io_.get_executor(), Options(fake));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        Run(client.ShellArgv(TestSerial(), {"true"}, DeadlineAfter(std::chrono::seconds(5)))).ok());
  }
  const auto requests = fake.requests();
  EXPECT_EQ(std::count(requests.begin(), requests.end(), "host-serial:emulator-5554:features"), 1);
  EXPECT_EQ(fake.connections(), 4);  // one features query, then one socket per command
}

TEST_F(ClientTest, OutputOverTheLimitIsRefused) {
  FakeAdbServer fake(
      io_.get_executor(),
      DeviceHandler(FakeOkay() + FakeShellPacket(1, std::string(100, 'x')) + FakeShellExit(0)));
  ClientOptions options = Options(fake);
  options.max_shell_output = 50;
  Client client(io_.get_executor(), options);
  auto result =
      Run(client.ShellArgv(TestSerial(), {"yes"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kProtocol);
}

// --- deadlines and cancellation -----------------------------------------------------------------

TEST_F(ClientTest, HungServerTimesOutPromptly) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) { return FakeStep::Hang(); });
  Client client(io_.get_executor(), Options(fake));
  const auto start = Clock::now();
  auto result = Run(client.Version(DeadlineAfter(milliseconds(200))));
  const auto took = Clock::now() - start;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kTimeout);
  EXPECT_GE(took, milliseconds(190));
  EXPECT_LT(took, milliseconds(1000));
  // The client closed its socket: the fake sees it go.
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 100 && fake.closed_by_client() == 0; ++i) {
      asio::steady_timer t(io_, milliseconds(10));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  EXPECT_EQ(fake.closed_by_client(), 1);
}

TEST_F(ClientTest, HungShellTimesOutAndTheNextCommandWorks) {
  bool hang = true;
  auto normal = DeviceHandler(FakeOkay() + FakeShellPacket(1, "ok\n") + FakeShellExit(0));
  FakeAdbServer fake(io_.get_executor(), [&](const FakeRequest& r) {
    if (hang && r.service.starts_with("shell")) return FakeStep::ReplyAndHang(FakeOkay());
    return normal(r);
  });
  Client client(io_.get_executor(), Options(fake));
  auto hung =
      Run(client.ShellArgv(TestSerial(), {"sleep", "30"}, DeadlineAfter(milliseconds(200))));
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.error().code, AdbErrc::kTimeout);
  hang = false;
  auto next =
      Run(client.ShellArgv(TestSerial(), {"echo", "ok"}, DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->out, "ok\n");
}

TEST_F(ClientTest, CancellationEndsAHungShellAndClosesItsSocket) {
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(FakeOkay(), FakeStep::Then::kHang));
  Client client(io_.get_executor(), Options(fake));
  asio::cancellation_signal cancel;
  std::optional<Result<ShellResult>> result;
  const std::vector<std::string> argv = {"sleep", "30"};
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        const Serial serial = TestSerial();
        result.emplace(co_await client.ShellArgv(serial, argv, kNoDeadline));
      },
      asio::bind_cancellation_slot(cancel.slot(), [](std::exception_ptr e) { EXPECT_FALSE(e); }));
  // Cancel once the shell is open at the fake (the third request).
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 500 && fake.requests().size() < 3; ++i) {
      asio::steady_timer t(io_, milliseconds(2));
      co_await t.async_wait(asio::use_awaitable);
    }
    cancel.emit(asio::cancellation_type::terminal);
    for (int i = 0; i < 500 && (!result || fake.closed_by_client() == 0); ++i) {
      asio::steady_timer t(io_, milliseconds(2));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  ASSERT_TRUE(result.has_value());
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().code, AdbErrc::kCancelled);
  EXPECT_EQ(fake.closed_by_client(), 1);
}

// --- streaming ---------------------------------------------------------------------------------

TEST_F(ClientTest, StreamLinesDeliversLinesAcrossFragmentsInOrder) {
  std::string reply = FakeOkay();
  std::string text;
  for (int i = 0; i < 50; ++i) text += "line " + std::to_string(i) + "\n";
  text += "last without newline";
  for (size_t at = 0; at < text.size(); at += 37) reply += FakeShellPacket(1, text.substr(at, 37));
  reply += FakeShellPacket(2, "err\n") + FakeShellExit(0);
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(reply), {.fragment_size = 7});
  Client client(io_.get_executor(), Options(fake));
  std::vector<std::string> lines;
  auto end = Run(client.StreamLines(
      TestSerial(), ShellCommand::FromLiteral("logcat"),
      [&](std::string_view line) -> asio::awaitable<bool> {
        lines.emplace_back(line);
        // A slow consumer: the next read waits for this.
        asio::steady_timer t(co_await asio::this_coro::executor, milliseconds(0));
        co_await t.async_wait(asio::use_awaitable);
        co_return true;
      },
      DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(end.ok()) << end.error().message;
  ASSERT_EQ(lines.size(), 51u);
  EXPECT_EQ(lines[0], "line 0");
  EXPECT_EQ(lines[49], "line 49");
  EXPECT_EQ(lines[50], "last without newline");
  EXPECT_EQ(end->exit_code, 0);
  EXPECT_EQ(end->err, "err\n");
}

TEST_F(ClientTest, StreamStopsWhenTheSinkSaysSoAndClosesTheSocket) {
  std::string reply = FakeOkay();
  for (int i = 0; i < 10; ++i) reply += FakeShellPacket(1, "line " + std::to_string(i) + "\n");
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(reply, FakeStep::Then::kHang));
  Client client(io_.get_executor(), Options(fake));
  int seen = 0;
  auto end = Run(client.StreamLines(
      TestSerial(), ShellCommand::FromLiteral("logcat"),
      [&](std::string_view) -> asio::awaitable<bool> { co_return ++seen < 3; }, kNoDeadline));
  ASSERT_TRUE(end.ok()) << end.error().message;
  EXPECT_TRUE(end->stopped_by_sink);
  EXPECT_EQ(seen, 3);
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 100 && fake.closed_by_client() == 0; ++i) {
      asio::steady_timer t(io_, milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  EXPECT_EQ(fake.closed_by_client(), 1);
}

TEST_F(ClientTest, StreamDeadlineEndsAFollowingStream) {
  FakeAdbServer fake(io_.get_executor(),
                     DeviceHandler(FakeOkay() + FakeShellPacket(1, "a\n"), FakeStep::Then::kHang));
  Client client(io_.get_executor(), Options(fake));
  std::vector<std::string> lines;
  auto end = Run(client.StreamLines(
      TestSerial(), ShellCommand::FromLiteral("logcat"),
      [&](std::string_view line) -> asio::awaitable<bool> {
        lines.emplace_back(line);
        co_return true;
      },
      DeadlineAfter(milliseconds(150))));
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code, AdbErrc::kTimeout);
  EXPECT_EQ(lines, std::vector<std::string>{"a"});
}

// --- per-device limit --------------------------------------------------------------------------

TEST_F(ClientTest, PerDeviceLimitBoundsCommandsInFlight) {
  auto normal = DeviceHandler(FakeOkay() + FakeShellPacket(1, "x") + FakeShellExit(0));
  FakeAdbServer fake(io_.get_executor(), [&](const FakeRequest& r) {
    FakeStep step = normal(r);
    if (r.service.starts_with("shell")) step.delay = milliseconds(30);
    return step;
  });
  ClientOptions options = Options(fake);
  options.max_commands_per_device = 2;
  Client client(io_.get_executor(), options);
  ASSERT_TRUE(Run(client.Features(TestSerial(), DeadlineAfter(std::chrono::seconds(5)))).ok());
  const int before = fake.max_open_connections();
  int done = 0;
  for (int i = 0; i < 6; ++i) {
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          // (a named serial and argv: g++ 12 miscompiles their temporaries inside co_await)
          const Serial serial = TestSerial();
          const std::vector<std::string> argv = {"true"};
          auto r = co_await client.ShellArgv(serial, argv, DeadlineAfter(std::chrono::seconds(5)));
          EXPECT_TRUE(r.ok());
          ++done;
        },
        [](std::exception_ptr e) { EXPECT_FALSE(e); });
  }
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 1000 && done < 6; ++i) {
      asio::steady_timer t(io_, milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  EXPECT_EQ(done, 6);
  EXPECT_LE(before, 1);
  EXPECT_EQ(fake.max_open_connections(), 2);
}

TEST_F(ClientTest, WaitingForAPermitCountsAgainstTheDeadline) {
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(FakeOkay(), FakeStep::Then::kHang));
  ClientOptions options = Options(fake);
  options.max_commands_per_device = 1;
  Client client(io_.get_executor(), options);
  ASSERT_TRUE(Run(client.Features(TestSerial(), DeadlineAfter(std::chrono::seconds(5)))).ok());
  // The first command holds the only permit (its shell hangs) until its own deadline.
  std::optional<Result<ShellResult>> first;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        const Serial serial = TestSerial();
        const std::vector<std::string> argv = {"sleep", "30"};
        first.emplace(co_await client.ShellArgv(serial, argv, DeadlineAfter(milliseconds(400))));
      },
      [](std::exception_ptr e) { EXPECT_FALSE(e); });
  const auto start = Clock::now();
  auto second = Run(client.ShellArgv(TestSerial(), {"true"}, DeadlineAfter(milliseconds(100))));
  EXPECT_LT(Clock::now() - start, milliseconds(350));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, AdbErrc::kTimeout);
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 200 && !first; ++i) {
      asio::steady_timer t(io_, milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->error().code, AdbErrc::kTimeout);
}

// --- the server: unreachable, start ---------------------------------------------------------

TEST_F(ClientTest, NothingListeningIsServerUnreachable) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) { return FakeStep::Close(); });
  fake.Stop();
  Client client(io_.get_executor(), Options(fake));
  auto result = Run(client.Version(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kServerUnreachable);
  EXPECT_EQ(client.server_starts(), 0);
}

TEST_F(ClientTest, StartsTheServerOnceThenReportsUnreachable) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) { return FakeStep::Close(); });
  fake.Stop();
  ClientOptions options = Options(fake);
  options.adb_path = "/bin/true";  // "starts" nothing: the retry is refused again
  Client client(io_.get_executor(), options);
  auto result = Run(client.Version(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kServerUnreachable);
  EXPECT_NE(result.error().message.find("even after '/bin/true start-server'"), std::string::npos)
      << result.error().message;
  EXPECT_EQ(client.server_starts(), 1);
}

TEST_F(ClientTest, ConcurrentCallersShareOneServerStart) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) { return FakeStep::Close(); });
  fake.Stop();
  ClientOptions options = Options(fake);
  options.adb_path = "/bin/true";
  Client client(io_.get_executor(), options);
  int unreachable = 0;
  for (int i = 0; i < 5; ++i) {
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          auto r = co_await client.Version(DeadlineAfter(std::chrono::seconds(5)));
          if (!r.ok() && r.error().code == AdbErrc::kServerUnreachable) ++unreachable;
        },
        [](std::exception_ptr e) { EXPECT_FALSE(e); });
  }
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 1000 && unreachable < 5; ++i) {
      asio::steady_timer t(io_, milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  EXPECT_EQ(unreachable, 5);
  EXPECT_EQ(client.server_starts(), 1);
}

TEST_F(ClientTest, AMissingAdbProgramIsSaid) {
  FakeAdbServer fake(io_.get_executor(), [](const FakeRequest&) { return FakeStep::Close(); });
  fake.Stop();
  ClientOptions options = Options(fake);
  options.adb_path = "/nonexistent/adb";
  Client client(io_.get_executor(), options);
  auto result = Run(client.Version(DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, AdbErrc::kServerUnreachable);
  EXPECT_NE(result.error().message.find("could not be run"), std::string::npos)
      << result.error().message;
}

TEST_F(ClientTest, ARemoteServerIsNeverStarted) {
  ClientOptions options;
  options.server = {"192.0.2.1", 5037};  // TEST-NET: not local
  EXPECT_FALSE(options.server.IsLocal());
}

// --- tracking ----------------------------------------------------------------------------------

std::string TrackList(std::string_view serials_and_states) {
  return testutil::FakeString(serials_and_states);
}

TEST_F(ClientTest, TrackingReportsChangesAndSurvivesAServerRestart) {
  const std::string one =
      "emulator-5554          device product:p model:M device:d transport_id:1\n";
  const std::string two = one + "R58M123ABC             offline transport_id:2\n";
  FakeAdbServer fake(io_.get_executor(),
                     [&](const FakeRequest& r) {
                       EXPECT_EQ(r.service, "host:track-devices-l");
                       return FakeStep::ReplyAndHang(FakeOkay() + TrackList(one));
                     },
                     {.fragment_size = 5});
  Client client(io_.get_executor(), Options(fake));
  std::vector<DeviceListUpdate> updates;
  auto result = Run(client.TrackDevices([&](const DeviceListUpdate& u) -> asio::awaitable<bool> {
    updates.push_back(u);
    switch (updates.size()) {
      case 1:  // the list at once; then a change
        fake.SendToAll(TrackList(two));
        break;
      case 2:  // the server goes away...
        fake.Stop();
        break;
      case 3:  // ...we are told, and it comes back
        fake.Start();
        break;
      default:
        break;
    }
    co_return updates.size() < 4;
  }));
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(updates.size(), 4u);
  EXPECT_TRUE(updates[0].connected);
  EXPECT_TRUE(updates[0].first_after_connect);
  ASSERT_EQ(updates[0].changes.size(), 1u);
  EXPECT_EQ(updates[0].changes[0].kind, DeviceChange::Kind::kAdded);
  EXPECT_FALSE(updates[1].first_after_connect);
  ASSERT_EQ(updates[1].changes.size(), 1u);
  EXPECT_EQ(updates[1].changes[0].entry.serial, "R58M123ABC");
  EXPECT_EQ(updates[1].changes[0].entry.state, DeviceState::kOffline);
  EXPECT_FALSE(updates[2].connected);
  ASSERT_TRUE(updates[2].error.has_value());
  EXPECT_EQ(updates[2].error->code, AdbErrc::kConnectionLost);
  EXPECT_TRUE(updates[3].connected);
  EXPECT_TRUE(updates[3].first_after_connect);
  ASSERT_EQ(updates[3].list.devices.size(), 1u);
  ASSERT_EQ(updates[3].changes.size(), 1u);  // R58M123ABC did not come back
  EXPECT_EQ(updates[3].changes[0].kind, DeviceChange::Kind::kRemoved);
  EXPECT_EQ(fake.connections(), 2);
}

TEST_F(ClientTest, TrackingKeepsTryingWhileTheServerIsDown) {
  const std::string one = "emulator-5554          device transport_id:1\n";
  FakeAdbServer fake(io_.get_executor(), [&](const FakeRequest&) {
    return FakeStep::ReplyAndHang(FakeOkay() + TrackList(one));
  });
  fake.Stop();
  Client client(io_.get_executor(), Options(fake));
  std::vector<DeviceListUpdate> updates;
  // Down at first: one loss report, then the list once it is back (a few back-offs later).
  asio::steady_timer later(io_, milliseconds(150));
  later.async_wait([&](auto) { fake.Start(); });
  auto result = Run(client.TrackDevices([&](const DeviceListUpdate& u) -> asio::awaitable<bool> {
    updates.push_back(u);
    co_return u.connected == false;
  }));
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_FALSE(updates[0].connected);
  EXPECT_EQ(updates[0].error->code, AdbErrc::kServerUnreachable);
  EXPECT_TRUE(updates[1].connected);
  EXPECT_EQ(updates[1].list.devices.size(), 1u);
}

TEST_F(ClientTest, TrackingIsCancellable) {
  FakeAdbServer fake(io_.get_executor(), [&](const FakeRequest&) {
    return FakeStep::ReplyAndHang(FakeOkay() + TrackList(""));
  });
  Client client(io_.get_executor(), Options(fake));
  asio::cancellation_signal cancel;
  std::optional<Result<void>> result;
  int updates = 0;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        DeviceListSink count_updates = [&](const DeviceListUpdate&) -> asio::awaitable<bool> {
          ++updates;
          co_return true;
        };
        result.emplace(co_await client.TrackDevices(std::move(count_updates)));
      },
      asio::bind_cancellation_slot(cancel.slot(), [](std::exception_ptr e) { EXPECT_FALSE(e); }));
  Run([&]() -> asio::awaitable<int> {
    for (int i = 0; i < 500 && updates == 0; ++i) {
      asio::steady_timer t(io_, milliseconds(2));
      co_await t.async_wait(asio::use_awaitable);
    }
    cancel.emit(asio::cancellation_type::terminal);
    for (int i = 0; i < 500 && !result; ++i) {
      asio::steady_timer t(io_, milliseconds(2));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  ASSERT_TRUE(result.has_value());
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().code, AdbErrc::kCancelled);
  EXPECT_EQ(updates, 1);
}

// --- injection ---------------------------------------------------------------------------------

TEST_F(ClientTest, BadNamesAreRejectedBeforeAnythingIsSent) {
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(FakeOkay() + FakeShellExit(0)));
  Client client(io_.get_executor(), Options(fake));
  // A package from a request goes through its grammar before it may become an argument.
  auto package = PackageName::Parse("com.x; reboot");
  ASSERT_FALSE(package.ok());
  EXPECT_EQ(package.error().code, AdbErrc::kInvalidArgument);
  EXPECT_FALSE(Serial::Parse("emulator-5554; reboot").ok());
  EXPECT_FALSE(Serial::Parse("emulator-5554\nreboot").ok());
  // A NUL in argv is refused by the argv overload before a socket is opened.
  auto nul = Run(client.ShellArgv(TestSerial(), {"echo", std::string("a\0b", 3)},
                                  DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().code, AdbErrc::kInvalidArgument);
  EXPECT_EQ(fake.connections(), 0);
}

TEST_F(ClientTest, HostileArgumentsReachTheDeviceQuoted) {
  FakeAdbServer fake(io_.get_executor(), DeviceHandler(FakeOkay() + FakeShellExit(0)));
  Client client(io_.get_executor(), Options(fake));
  auto result = Run(client.ShellArgv(
      TestSerial(), {"pm", "path", "com.x; reboot", "$(reboot)", "`id`", "a\nb", "it's", "ü"},
      DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(fake.requests().back(),
            "shell,v2,raw:pm path 'com.x; reboot' '$(reboot)' '`id`' 'a\nb' 'it'\\''s' 'ü'");
}

// --- install sessions (InstallMultiple) --------------------------------------------------------

// A device with `cmd` (exec:cmd package …) whose package manager answers each session step with
// `answers[verb]` (client/adb_install.cpp install_multiple_app_streamed reads the same lines).
FakeAdbServer::Handler SessionHandler(std::map<std::string, std::string> answers) {
  return [answers = std::move(answers)](const FakeRequest& r) {
    if (r.service == "host-serial:" + std::string(kSerial) + ":features") {
      return FakeStep::ReplyAndClose(FakeOkay("shell_v2,cmd"));
    }
    if (r.service == "host:transport:" + std::string(kSerial)) return FakeStep::Reply(FakeOkay());
    for (const auto& [verb, answer] : answers) {
      if (r.service.starts_with("exec:cmd package " + verb + " ")) {
        return FakeStep::ReplyAndClose(FakeOkay() + answer);
      }
    }
    return FakeStep::ReplyAndClose(testutil::FakeFail("unknown service " + r.service));
  };
}

// Every step's answer in pieces of every size from 1 byte up: the session goes the same way.
// (Empty files: no bytes follow a write's OKAY, so the fake needs not read any.)
TEST_F(ClientTest, InstallSessionStepsAcrossFragmentsOfEverySize) {
  testutil::TempDir dir;
  testutil::WriteFileBytes(dir.File("base.apk"), "");
  testutil::WriteFileBytes(dir.File("split.apk"), "");
  const std::vector<SessionFile> files = {{dir.File("base.apk"), "base.apk"},
                                          {dir.File("split.apk"), "split_config.x.apk"}};
  for (size_t fragment = 1; fragment <= 40; fragment += (fragment < 8 ? 1 : 16)) {
    FakeAdbServer fake(io_.get_executor(),
                       SessionHandler({{"install-create", "Success: created install session [77]\n"},
                                       {"install-write", "Success: streamed 0 bytes\n"},
                                       {"install-commit", "Success\n"}}),
                       {.fragment_size = fragment});
    Client client(io_.get_executor(), Options(fake));
    auto result = Run(client.InstallMultiple(TestSerial(), files, {}, {},
                                             DeadlineAfter(std::chrono::seconds(5))));
    ASSERT_TRUE(result.ok()) << fragment << ": " << result.error().message;
    EXPECT_TRUE(result->success) << fragment;
    EXPECT_EQ(result->method, InstallMethod::kExecCmd);
    EXPECT_EQ(result->session_id, std::optional<int64_t>(77));
    std::vector<std::string> steps;
    for (const std::string& request : fake.requests()) {
      if (request.starts_with("exec:")) steps.push_back(request);
    }
    EXPECT_EQ(steps, (std::vector<std::string>{
                         "exec:cmd package install-create -r -S 0",
                         "exec:cmd package install-write -S 0 77 base.apk -",
                         "exec:cmd package install-write -S 0 77 split_config.x.apk -",
                         "exec:cmd package install-commit 77"}))
        << fragment;
  }
}

// A write the package manager refuses ends the session with install-abandon, and the install's
// result is that refusal; a create it refuses is the result, with nothing to abandon.
TEST_F(ClientTest, ARefusedWriteAbandonsTheSession) {
  testutil::TempDir dir;
  testutil::WriteFileBytes(dir.File("base.apk"), "");
  const std::vector<SessionFile> files = {{dir.File("base.apk"), "base.apk"}};
  FakeAdbServer fake(
      io_.get_executor(),
      SessionHandler({{"install-create", "Success: created install session [9]\n"},
                      {"install-write", "Error: failed to write; No space left on device\n"},
                      {"install-abandon", "Success\n"}}),
      {.fragment_size = 1});
  Client client(io_.get_executor(), Options(fake));
  auto refused = Run(client.InstallMultiple(TestSerial(), files, {}, {},
                                            DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->reason, "failed to write; No space left on device");
  EXPECT_EQ(fake.requests().back(), "exec:cmd package install-abandon 9");

  FakeAdbServer no_session(
      io_.get_executor(),
      SessionHandler({{"install-create", "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n"}}));
  Client client2(io_.get_executor(), Options(no_session));
  auto not_made = Run(client2.InstallMultiple(TestSerial(), files, {}, {},
                                              DeadlineAfter(std::chrono::seconds(5))));
  ASSERT_TRUE(not_made.ok()) << not_made.error().message;
  EXPECT_FALSE(not_made->success);
  EXPECT_EQ(not_made->code, "INSTALL_FAILED_INSUFFICIENT_STORAGE");
  EXPECT_EQ(not_made->session_id, std::nullopt);
  EXPECT_FALSE(no_session.requests().back().starts_with("exec:cmd package install-abandon"));
}

}  // namespace
}  // namespace droidlab::adb
