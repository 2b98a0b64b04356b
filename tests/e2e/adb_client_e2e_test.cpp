// adb::Client against the real adb server (Debian's adb, started by the test on a free private
// port, never 5037, and stopped by it) with droidlab-devsim devices connected to it: tracking
// sees a device come, go on unplug and come back on replug; shell exit codes and stderr; a
// logcat stream delivers the launch's Displayed line; a hung command times out and the next one
// on that device works; a server that is not running is started.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <regex>
#include <thread>

#include "adb/client.h"
#include "tests/common/adb_lab.h"
#include "tests/common/fake_adb_server.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using adb::AdbErrc;
using adb::DeadlineAfter;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Updates from the tracker, handed from the io thread to the test thread.
class UpdateQueue {
 public:
  void Push(adb::DeviceListUpdate update) {
    std::lock_guard lock(mutex_);
    updates_.push_back(std::move(update));
    changed_.notify_all();
  }
  // Waits (bounded) for an update, after those already seen, that satisfies `want`.
  bool WaitFor(const std::function<bool(const adb::DeviceListUpdate&)>& want, seconds limit) {
    std::unique_lock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      for (; seen_ < updates_.size(); ++seen_) {
        if (want(updates_[seen_])) {
          ++seen_;
          return true;
        }
      }
      if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) return false;
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<adb::DeviceListUpdate> updates_;
  size_t seen_ = 0;
};

const adb::DeviceEntry* Find(const adb::DeviceListUpdate& u, const std::string& serial) {
  for (const auto& d : u.list.devices) {
    if (d.serial == serial) return &d;
  }
  return nullptr;
}

class AdbClientE2eTest : public AdbLabTest {
 protected:
  adb::ClientOptions Options() const {
    adb::ClientOptions options;
    options.server.port = static_cast<uint16_t>(server_.port());
    options.adb_path = AdbPath();
    options.reconnect_initial_delay = milliseconds(50);
    return options;
  }

  // Starts devsim (on `port`, 0: any), connects it and waits (bounded) until adb lists it.
  std::string ConnectDevsim(int port = 0) {
    const auto devices = StartDevsim({"--port", std::to_string(port), "--fast"});
    if (devices.size() != 1) {
      ADD_FAILURE() << "devsim did not start";
      return "";
    }
    WaitForDevice(server_, devices[0].address);
    return devices[0].address;
  }
};

TEST_F(AdbClientE2eTest, VersionDevicesAndFeatures) {
  const std::string address = ConnectDevsim();
  asio::io_context io;
  adb::Client client(io.get_executor(), Options());
  auto version = RunAwaitable(io, client.Version(DeadlineAfter(seconds(5))));
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(*version, 41);
  auto devices = RunAwaitable(io, client.Devices(DeadlineAfter(seconds(5))));
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->devices.size(), 1u);
  EXPECT_EQ(devices->devices[0].serial, address);
  EXPECT_EQ(devices->devices[0].model, "Pixel_7");
  auto features =
      RunAwaitable(io, client.Features(*adb::Serial::Parse(address), DeadlineAfter(seconds(5))));
  ASSERT_TRUE(features.ok());
  EXPECT_TRUE(adb::HasFeature(*features, adb::kFeatureShellV2));
}

TEST_F(AdbClientE2eTest, ShellExitCodesStderrAndUnknownDevice) {
  const auto serial = *adb::Serial::Parse(ConnectDevsim());
  asio::io_context io;
  adb::Client client(io.get_executor(), Options());
  auto model = RunAwaitable(
      io, client.ShellArgv(serial, {"getprop", "ro.product.model"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->out, "Pixel 7\n");
  EXPECT_EQ(model->exit_code, 0);
  EXPECT_TRUE(model->shell_v2);

  auto exit3 = RunAwaitable(io, client.ShellArgv(serial, {"exit", "3"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(exit3.ok());
  EXPECT_EQ(exit3->exit_code, 3);

  auto missing = RunAwaitable(
      io, client.ShellArgv(serial, {"no_such_tool", "--flag"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->exit_code, 127);
  EXPECT_EQ(missing->out, "");
  EXPECT_EQ(missing->err, "/system/bin/sh: no_such_tool: inaccessible or not found\n");

  // Quoted, a hostile argument is one argument: echo prints it, nothing else runs.
  auto hostile = RunAwaitable(
      io, client.ShellArgv(serial, {"echo", "com.x; exit 9"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(hostile.ok());
  EXPECT_EQ(hostile->out, "com.x; exit 9\n");
  EXPECT_EQ(hostile->exit_code, 0);

  auto unknown = RunAwaitable(io, client.ShellArgv(*adb::Serial::Parse("127.0.0.1:1"), {"true"},
                                                   DeadlineAfter(seconds(5))));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, AdbErrc::kDeviceNotFound);
  EXPECT_EQ(unknown.error().message, "device '127.0.0.1:1' not found");
}

TEST_F(AdbClientE2eTest, HungCommandTimesOutAndTheNextOneWorks) {
  const auto serial = *adb::Serial::Parse(ConnectDevsim());
  asio::io_context io;
  adb::Client client(io.get_executor(), Options());
  const auto start = std::chrono::steady_clock::now();
  auto hung =
      RunAwaitable(io, client.ShellArgv(serial, {"sleep", "30"}, DeadlineAfter(milliseconds(300))));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.error().code, AdbErrc::kTimeout);
  EXPECT_LT(took, seconds(2));
  auto next =
      RunAwaitable(io, client.ShellArgv(serial, {"echo", "still here"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->out, "still here\n");
}

// The recovery ladder's calls against Debian's adb 29 (issue 17 §3): `reconnect` for one
// transport (adb.cpp answers OKAY either way; an unknown serial's words are its FAIL text), which
// drops a network phone for good until `adb connect` again; adbd's `reconnect`, which answers
// "done". Neither waits for the phone's command slots: four hung shells hold them all.
TEST_F(AdbClientE2eTest, TheLaddersCallsReachThePhoneEvenWithEveryCommandSlotHung) {
  const std::string address = ConnectDevsim();
  const auto serial = *adb::Serial::Parse(address);
  asio::io_context io;
  auto options = Options();
  std::vector<std::string> observed;
  options.on_device_command = [&](std::string_view s, std::string_view command,
                                  adb::Clock::duration, bool ok) {
    observed.push_back(std::string(s) + " " + std::string(command) + (ok ? " ok" : " failed"));
  };
  adb::Client client(io.get_executor(), options);

  auto unknown = RunAwaitable(
      io, client.ReconnectTransport(*adb::Serial::Parse("127.0.0.1:1"), DeadlineAfter(seconds(5))));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, AdbErrc::kDeviceNotFound) << unknown.error().message;

  // Every slot (max_commands_per_device, 4) taken by a shell that never ends.
  ASSERT_EQ(Shell({address, ""}, "devsim-fault wedge device").out, "wedged until device\n");
  int hung = 0;
  const std::vector<std::string> uptime{"cat", "/proc/uptime"};  // outlives the spawned shells
  for (int i = 0; i < 4; ++i) {
    asio::co_spawn(
        io,
        [&client, &serial, &uptime, &hung]() -> asio::awaitable<void> {
          auto shell = client.ShellArgv(serial, uptime, DeadlineAfter(seconds(8)));
          auto r = co_await std::move(shell);
          if (!r) ++hung;
        },
        asio::detached);
  }
  io.run_for(milliseconds(300));
  auto done = RunAwaitable(io, client.ReconnectDevice(serial, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(*done, "done");
  // adbd dropping its end takes the hung shells with it.
  ASSERT_TRUE(WaitUntil(
      [&] {
        io.run_for(milliseconds(50));
        return hung == 4;
      },
      seconds(9)));
  WaitForDevice(server_, address);
  auto answered = RunAwaitable(
      io, client.ShellArgv(serial, {"cat", "/proc/uptime"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(answered.ok()) << answered.error().message;

  auto reconnecting =
      RunAwaitable(io, client.ReconnectTransport(serial, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(reconnecting.ok()) << reconnecting.error().message;
  EXPECT_EQ(*reconnecting, "reconnecting " + address + " [device]");
  const bool gone = WaitUntil(
      [&] { return server_.Adb({"devices"}).out.find(address) == std::string::npos; }, seconds(5));
  EXPECT_TRUE(gone) << "adb 29 keeps a reset network transport: " << server_.Adb({"devices"}).out;
  auto connected = RunAwaitable(io, client.Connect(serial, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(connected.ok()) << connected.error().message;
  EXPECT_EQ(*connected, "connected to " + address);
  WaitForDevice(server_, address);
  auto again = RunAwaitable(io, client.Connect(serial, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, "already connected to " + address);

  EXPECT_NE(std::find(observed.begin(), observed.end(), address + " reconnect-device ok"),
            observed.end());
  EXPECT_NE(std::find(observed.begin(), observed.end(), address + " shell failed"), observed.end());
  EXPECT_NE(std::find(observed.begin(), observed.end(), "127.0.0.1:1 reconnect failed"),
            observed.end());
}

TEST_F(AdbClientE2eTest, LogcatStreamDeliversTheDisplayedLineOfALaunch) {
  const auto serial = *adb::Serial::Parse(ConnectDevsim());
  asio::io_context io;
  adb::Client client(io.get_executor(), Options());
  ASSERT_TRUE(
      RunAwaitable(io, client.ShellArgv(serial, {"logcat", "-c"}, DeadlineAfter(seconds(5)))).ok());
  auto logcat = *adb::BuildShellCommand({"logcat", "ActivityTaskManager:I", "*:S"});
  std::vector<std::string> lines;
  std::optional<adb::Result<adb::StreamEnd>> end;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        adb::LineSink until_displayed = [&](std::string_view line) -> asio::awaitable<bool> {
          lines.emplace_back(line);
          co_return line.find("Displayed com.example.app/.MainActivity") == std::string_view::npos;
        };
        end.emplace(co_await client.StreamLines(serial, logcat, std::move(until_displayed),
                                                DeadlineAfter(seconds(20))));
      },
      [](std::exception_ptr e) { EXPECT_FALSE(e); });
  auto am = RunAwaitable(
      io, client.ShellArgv(serial, {"am", "start", "-W", "-n", "com.example.app/.MainActivity"},
                           DeadlineAfter(seconds(10))));
  ASSERT_TRUE(am.ok()) << am.error().message;
  const std::smatch match = [&] {
    std::smatch m;
    std::regex_search(am->out, m, std::regex("TotalTime: (\\d+)"));
    return m;
  }();
  ASSERT_FALSE(match.empty()) << am->out;
  RunAwaitable(io, [&]() -> asio::awaitable<int> {
    while (!end) {
      asio::steady_timer t(io, milliseconds(10));
      co_await t.async_wait(asio::use_awaitable);
    }
    co_return 0;
  }());
  ASSERT_TRUE(end->ok()) << end->error().message;
  EXPECT_TRUE((*end)->stopped_by_sink);
  ASSERT_FALSE(lines.empty());
  const long total = std::stol(match[1]);
  const std::string shown =
      total >= 1000 ? "+" + std::to_string(total / 1000) + "s" + std::to_string(total % 1000) + "ms"
                    : "+" + std::to_string(total) + "ms";
  // SDK 34 inserts " for user 0" (devsim may print either form): match both.
  EXPECT_TRUE(std::regex_search(lines.back(),
                                std::regex(" I ActivityTaskManager: Displayed com\\.example\\.app/"
                                           "\\.MainActivity( for user 0)?: \\" +
                                           shown + "$")))
      << lines.back();
  // The device still serves after the stream was closed from our side.
  auto after =
      RunAwaitable(io, client.ShellArgv(serial, {"echo", "ok"}, DeadlineAfter(seconds(5))));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->out, "ok\n");
}

TEST_F(AdbClientE2eTest, TrackingSeesADeviceComeGoAndComeBack) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  adb::Client client(io.get_executor(), Options());
  UpdateQueue queue;
  asio::cancellation_signal cancel;
  std::optional<adb::Result<void>> tracked;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        adb::DeviceListSink queue_updates =
            [&](const adb::DeviceListUpdate& u) -> asio::awaitable<bool> {
          queue.Push(u);
          co_return true;
        };
        tracked.emplace(co_await client.TrackDevices(std::move(queue_updates)));
      },
      asio::bind_cancellation_slot(cancel.slot(), [](std::exception_ptr e) { EXPECT_FALSE(e); }));
  std::thread io_thread([&] { io.run(); });
  struct Joiner {
    std::thread& t;
    asio::io_context& io;
    asio::cancellation_signal& cancel;
    asio::executor_work_guard<asio::io_context::executor_type>& work;
    ~Joiner() {
      asio::post(io, [this] { cancel.emit(asio::cancellation_type::terminal); });
      work.reset();
      t.join();
    }
  } joiner{io_thread, io, cancel, work};

  EXPECT_TRUE(queue.WaitFor([](const auto& u) { return u.connected && u.list.devices.empty(); },
                            seconds(10)));
  const std::string address = ConnectDevsim();
  const int devsim_port = std::stoi(address.substr(address.rfind(':') + 1));
  ASSERT_TRUE(queue.WaitFor(
      [&](const auto& u) {
        const auto* d = Find(u, address);
        return d != nullptr && d->state == adb::DeviceState::kDevice && d->model == "Pixel_7" &&
               d->transport_id.has_value();
      },
      seconds(15)))
      << "the device never came";

  // Unplug. adb 29.0.6 marks a TCP transport whose device died "offline" (adb devices shows it)
  // but sends track-devices no update for that until it gives up about a minute later, so the
  // unplug is the phone dying and the host dropping it: `adb disconnect`.
  devsim_->Stop();
  server_.Adb({"disconnect", address});
  ASSERT_TRUE(queue.WaitFor(
      [&](const auto& u) {
        const auto* d = Find(u, address);
        return d == nullptr && std::any_of(u.changes.begin(), u.changes.end(), [&](const auto& c) {
                 return c.kind == adb::DeviceChange::Kind::kRemoved && c.entry.serial == address;
               });
      },
      seconds(15)))
      << "the device never went";

  ConnectDevsim(devsim_port);  // replug on the same port
  ASSERT_TRUE(queue.WaitFor(
      [&](const auto& u) {
        const auto* d = Find(u, address);
        return d != nullptr && d->state == adb::DeviceState::kDevice;
      },
      seconds(25)))
      << "the device never came back";
}

TEST_F(AdbClientE2eTest, StartsTheServerWhenNoneAnswers) {
  // A second private port where nothing runs yet; the client starts `adb -P PORT start-server`.
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  asio::io_context io;
  adb::ClientOptions options = Options();
  options.server.port = static_cast<uint16_t>(port);
  adb::Client client(io.get_executor(), options);
  auto version = RunAwaitable(io, client.Version(DeadlineAfter(seconds(20))));
  RunProcess({AdbPath(), "-P", std::to_string(port), "kill-server"});  // only the one we started
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(*version, 41);
  EXPECT_EQ(client.server_starts(), 1);
}

}  // namespace
}  // namespace droidlab::testutil
