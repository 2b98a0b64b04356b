// Device faults end to end (issue 13, "fault tests"): the real adb server on a private port,
// droidlab-devsim phones, and either the real `droidlab serve` (DaemonLabTest) or the run
// engine's looper-stats session on an adb::Client. A phone that reboots mid-run, one that turns
// `unauthorized`, an adb server restarted while a restore is on the wire: each run ends with a
// reason, and what the run changed on the phone is put back once the phone can take it. And each
// command of a looper-stats start has a deadline of its own.
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "adb/client.h"
#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/looper_session.h"
#include "store/sqlite.h"
#include "tests/common/http_client.h"
#include "tests/common/wait_until.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

class FaultE2eTest : public DaemonLabTest {
 protected:
  std::string Setting(const DevsimDevice& phone) {
    return Shell(phone, "settings get global looper_stats").out;
  }
  bool BatteryOverridden(const DevsimDevice& phone) {
    return Shell(phone, "dumpsys battery").out.find("UPDATES STOPPED") != std::string::npos;
  }
  // `adb devices` state of `address` ("device", "offline", "unauthorized"), "" when not listed.
  std::string AdbState(const std::string& address) {
    const std::string list = server_.Adb({"devices"}).out;
    const size_t at = list.find(address + "\t");
    if (at == std::string::npos) return "";
    const size_t from = at + address.size() + 1;
    return list.substr(from, list.find('\n', from) - from);
  }
  // Restores not yet paid, read beside the running daemon (read-only: WAL); -1 when unreadable.
  int64_t OwedNow() {
    auto db = store::Database::Open(dir_.File("lab.db"), store::Database::Mode::kReadOnly);
    if (!db.ok()) return -1;
    auto owed = db->QueryInt64("SELECT count(*) FROM device_restores WHERE paid_at IS NULL",
                               "counting owed restores");
    return owed.ok() ? *owed : -1;
  }
  std::string RunError(uint16_t port, int64_t id) {
    Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
    return run.is_object() && run["error"].is_string() ? run["error"].get<std::string>() : "";
  }
};

// devsim's `unauthorized` fault as the real adb server sees it: the phone drops off, comes back
// asking for AUTH and accepts no key — `adb devices` says `unauthorized` and a shell is refused —
// until the time is up (the user allowed the key); then it is a `device` again.
TEST_F(FaultE2eTest, DevsimUnauthorizedIsWhatAdbShowsUntilTheKeyIsAllowed) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& phone = devices[0];
  ASSERT_EQ(Shell(phone, "devsim-fault unauthorized 12000").exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return AdbState(phone.address) == "unauthorized"; }, seconds(15)))
      << server_.Adb({"devices"}).out;
  const ProcessResult refused = Shell(phone, "getprop ro.product.model");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("unauthorized"), std::string::npos) << refused.err;
  ASSERT_TRUE(WaitUntil([&] { return AdbState(phone.address) == "device"; }, seconds(30)))
      << server_.Adb({"devices"}).out;
  EXPECT_EQ(Shell(phone, "getprop ro.product.model").out, "Pixel 7\n");
}

// A phone that reboots in the middle of a looper-stats run (devsim SDK 33: the battery is
// unplugged too). The run fails saying the device went away; the reboot itself resets the
// battery; the looper_stats setting survives the reboot, so it is owed — and paid only once the
// phone has booted: adbd answers seconds before the settings provider does, and a restore sent
// then fails ("cmd: Can't find service: settings", exit 20). Before the daemon waited for the
// boot, that restore failed on the registry's one try and stayed owed.
TEST_F(FaultE2eTest, APhoneRebootedMidRunFailsTheRunAndGetsItsSettingBackAfterBoot) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const DevsimDevice& phone = mid.devices[0];
  const uint16_t port = mid.port;
  ASSERT_NE(Setting(phone), mid.before);
  // Off the wire at once (adb reconnects at once too), services 6 s later.
  ASSERT_EQ(Shell(phone, "devsim-fault reboot 0 6000").exit_code, 0);

  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, mid.run_id) == "failed"; }, seconds(30)))
      << Get(port, "/api/v1/runs/" + std::to_string(mid.run_id)).dump();
  const std::string error = RunError(port, mid.run_id);
  EXPECT_NE(error.find("iteration "), std::string::npos) << error;
  EXPECT_NE(error.find("the device rebooted"), std::string::npos) << error;

  ASSERT_TRUE(WaitUntil([&] { return Setting(phone) == mid.before; }, seconds(40)))
      << Setting(phone) << " owed " << OwedNow();
  EXPECT_FALSE(BatteryOverridden(phone));
  EXPECT_TRUE(WaitUntil([&] { return OwedNow() == 0; }, seconds(10))) << OwedNow();
  EXPECT_EQ(Shell(phone, "getprop sys.boot_completed").out, "1\n");
}

// A phone whose authorization is revoked mid-run (the user tapped "Revoke USB debugging
// authorizations", or a new adb key): the run ends, saying so; nothing can be put back while
// the phone refuses this host, so it stays owed — and is paid once the phone is authorized again.
TEST_F(FaultE2eTest, APhoneTurnedUnauthorizedMidRunIsRestoredOnceAuthorizedAgain) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const DevsimDevice& phone = mid.devices[0];
  const uint16_t port = mid.port;
  ASSERT_EQ(Shell(phone, "devsim-fault unauthorized 15000").exit_code, 0);

  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, mid.run_id) == "failed"; }, seconds(30)))
      << Get(port, "/api/v1/runs/" + std::to_string(mid.run_id)).dump();
  EXPECT_NE(RunError(port, mid.run_id).find("iteration "), std::string::npos)
      << RunError(port, mid.run_id);
  EXPECT_NE(RunError(port, mid.run_id).find("the device turned unauthorized"), std::string::npos)
      << RunError(port, mid.run_id);
  ASSERT_TRUE(WaitUntil([&] { return AdbState(phone.address) == "unauthorized"; }, seconds(15)));
  EXPECT_GE(OwedNow(), 1) << "the restore was dropped while the phone refused this host";

  ASSERT_TRUE(WaitUntil([&] { return AdbState(phone.address) == "device"; }, seconds(40)))
      << server_.Adb({"devices"}).out;
  EXPECT_TRUE(WaitUntil([&] { return Setting(phone) == mid.before; }, seconds(20)))
      << Setting(phone);
  EXPECT_FALSE(BatteryOverridden(phone));
  EXPECT_TRUE(WaitUntil([&] { return OwedNow() == 0; }, seconds(10))) << OwedNow();
}

// The adb server killed while the daemon is putting a phone back (its `settings put` on the
// wire, held by a hang fault): the restore fails and stays owed; when a server is back (the
// daemon starts one itself when the port is silent) and knows the phone again, the daemon pays
// it.
TEST_F(FaultE2eTest, AnAdbServerRestartedDuringARestoreLeavesItOwedThenPaid) {
  LooperRunMidway mid;
  ASSERT_NO_FATAL_FAILURE(StartLooperRunMidway(mid));
  const DevsimDevice& phone = mid.devices[0];
  const uint16_t port = mid.port;
  ASSERT_EQ(Shell(phone, "devsim-fault hang 'settings put' 1").exit_code, 0);
  auto cancelled = HttpCall(port, "DELETE", "/api/v1/runs/" + std::to_string(mid.run_id), "");
  ASSERT_LT(cancelled.status, 300) << cancelled.body;
  // The fault is used up once the restore's `settings put` reached the phone (and hangs there).
  ASSERT_TRUE(WaitUntil(
      [&] { return Shell(phone, "devsim-fault list").out.find("hang") == std::string::npos; },
      seconds(20)));

  EXPECT_EQ(server_.Adb({"kill-server"}).exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, mid.run_id) == "cancelled"; }, seconds(20)))
      << Get(port, "/api/v1/runs/" + std::to_string(mid.run_id)).dump();
  EXPECT_GE(OwedNow(), 1) << "a restore cut off by the adb server was marked paid";

  // A new server knows no TCP devices until they are connected again, as after any restart.
  ASSERT_TRUE(WaitUntil(
      [&] {
        server_.Adb({"connect", phone.address});
        return AdbState(phone.address) == "device";
      },
      seconds(30)));
  EXPECT_TRUE(WaitUntil([&] { return Setting(phone) == mid.before; }, seconds(20)))
      << Setting(phone);
  EXPECT_FALSE(BatteryOverridden(phone));
  EXPECT_TRUE(WaitUntil([&] { return OwedNow() == 0; }, seconds(10))) << OwedNow();
}

// Runs the looper-stats start against `phone` on a client of this lab's adb server, each command
// under `command_timeout`, with a workload that only waits `workload_time` (as a launch would).
struct SessionAttempt {
  orchestrator::CommandResult<bool> result = true;
  milliseconds took{0};
};
SessionAttempt StartSession(int adb_port, const DevsimDevice& phone, milliseconds command_timeout,
                            milliseconds workload_time) {
  asio::io_context io(1);
  adb::ClientOptions options;
  options.server.port = static_cast<uint16_t>(adb_port);
  adb::Client client(io.get_executor(), options);
  auto serial = adb::Serial::Parse(phone.address);
  EXPECT_TRUE(serial.ok());
  SessionAttempt attempt;
  orchestrator::DeviceShell shell(client, *serial);
  orchestrator::LooperSession session;
  const orchestrator::LooperWorkload workload =
      [workload_time]() -> asio::awaitable<orchestrator::CommandResult<bool>> {
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer launch(executor, workload_time);
    co_await launch.async_wait(asio::use_awaitable);
    co_return true;
  };
  const orchestrator::RecordRestore record =
      [](store::DeviceRestore) -> asio::awaitable<orchestrator::CommandResult<bool>> {
    co_return true;
  };
  const auto started = std::chrono::steady_clock::now();
  auto body = [&]() -> asio::awaitable<void> {
    auto starting =
        orchestrator::StartLooperSession(shell, 1, workload, command_timeout, record, session);
    attempt.result = co_await std::move(starting);
    attempt.took =
        std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - started);
  };
  asio::co_spawn(io, body(), [](std::exception_ptr e) { EXPECT_FALSE(e) << "the start threw"; });
  io.run();
  return attempt;
}

// Issue 13: "today one 10 s deadline spans the whole looper-stats start, including launches".
// No longer: with 1 s per command, a start whose workloads alone take 3 s and whose `settings
// get` takes 0.8 s succeeds; and a command that hangs times out by itself, in about its own
// second, naming itself.
TEST_F(FaultE2eTest, EachLooperStartCommandHasItsOwnDeadline) {
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const DevsimDevice& phone = devices[0];
  ASSERT_EQ(Shell(phone, "devsim-fault slow 'settings get' 800 1").exit_code, 0);
  const SessionAttempt slow =
      StartSession(server_.port(), phone, milliseconds(1000), milliseconds(1500));
  EXPECT_TRUE(slow.result.ok()) << slow.result.error().message;
  EXPECT_GT(slow.took, milliseconds(3500));  // 0.8 s + two 1.5 s workloads: more than 1 s

  ASSERT_EQ(Shell(phone, "devsim-fault hang 'cmd looper_stats reset' 1").exit_code, 0);
  const SessionAttempt hung =
      StartSession(server_.port(), phone, milliseconds(1000), milliseconds(100));
  ASSERT_FALSE(hung.result.ok());
  EXPECT_TRUE(hung.result.error().timed_out()) << hung.result.error().message;
  EXPECT_NE(hung.result.error().message.find("cmd looper_stats reset"), std::string::npos)
      << hung.result.error().message;
  EXPECT_LT(hung.took, milliseconds(3000));
  EXPECT_GE(hung.took, milliseconds(1000));
  Shell(phone, "settings put global looper_stats null");
  Shell(phone, "dumpsys battery reset");
}

}  // namespace
}  // namespace droidlab::testutil
