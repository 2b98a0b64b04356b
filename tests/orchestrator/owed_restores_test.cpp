// OwedRestores: what undoes each change to a device, as commands, and the ledger as a view over
// the store's durable records (the paying itself runs against devsim in
// tests/e2e/run_executor_e2e_test.cpp and serve_e2e_test.cpp).
#include "orchestrator/run/owed_restores.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <string>
#include <vector>

#include "adb/client.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;

using Argv = std::vector<std::string>;

TEST(OwedRestoresTest, EachKindHasTheCommandThatUndoesIt) {
  auto put = RestoreCommand(GlobalSettingRestore("looper_stats", "sampling_interval=7"));
  ASSERT_TRUE(put);
  EXPECT_EQ(*put, (Argv{"settings", "put", "global", "looper_stats", "sampling_interval=7"}));
  auto del = RestoreCommand(GlobalSettingRestore("looper_stats", std::nullopt));
  ASSERT_TRUE(del);
  EXPECT_EQ(*del, (Argv{"settings", "delete", "global", "looper_stats"}));
  auto battery = RestoreCommand(BatteryResetRestore());
  ASSERT_TRUE(battery);
  EXPECT_EQ(*battery, (Argv{"dumpsys", "battery", "reset"}));
  auto property = RestoreCommand(SystemPropertyRestore("log.looper.10123.main.slow", "50"));
  ASSERT_TRUE(property);
  EXPECT_EQ(*property, (Argv{"setprop", "log.looper.10123.main.slow", "50"}));
  // No previous value: set empty, which SystemProperties.getInt reads as unset.
  auto cleared = RestoreCommand(SystemPropertyRestore("log.looper.10123.main.slow", std::nullopt));
  ASSERT_TRUE(cleared);
  EXPECT_EQ(*cleared, (Argv{"setprop", "log.looper.10123.main.slow", ""}));
  // A kind this build does not know stays owed (for one that does), never dropped.
  store::DeviceRestore unknown;
  unknown.kind = "setprop";
  EXPECT_FALSE(RestoreCommand(unknown));
}

// The ledger is the store: what one OwedRestores recorded, another one over the same database
// (the next daemon) sees owed.
TEST(OwedRestoresTest, WhatIsRecordedIsOwedAcrossInstances) {
  testutil::TempDir dir;
  auto st = testutil::OpenTestStore(dir);
  ASSERT_TRUE(st);
  {
    OwedRestores owed(*st, [] { return int64_t{42}; });
    asio::io_context io(1);
    std::optional<store::StoreResult<int64_t>> id;
    auto body = [&]() -> asio::awaitable<void> {
      store::DeviceRestore restore = BatteryResetRestore();
      restore.serial = "emulator-5554";
      auto recording = owed.Record(std::move(restore));
      id = co_await std::move(recording);
    };
    asio::co_spawn(io, body(), asio::detached);
    io.run();
    ASSERT_TRUE(id && id->ok());
    EXPECT_TRUE(owed.Owes("emulator-5554"));
    EXPECT_FALSE(owed.Owes("emulator-5556"));
  }
  OwedRestores next(*st);
  EXPECT_TRUE(next.Owes("emulator-5554"));
  auto listed = st->Read([](store::Reader& r) { return r.ListOwedRestores("emulator-5554"); });
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].created_at, 42);
  EXPECT_EQ((*listed)[0].kind, kRestoreBatteryReset);
}

// The registry pays what a phone owes when it sees it come online, but not while a run is on it:
// that run's restores are owed until its end, and a phone that blinked offline and back (or a
// tracking reconnect, which reads every phone as come online) would have had, mid-run, the very
// setting it measures with put back. No adb server answers here: a payment tried says so.
TEST(OwedRestoresTest, TheRegistryLeavesWhatARunOwesToThatRun) {
  testutil::TempDir dir;
  auto st = testutil::OpenTestStore(dir);
  ASSERT_TRUE(st);
  OwedRestores owed(*st);
  asio::io_context io(1);
  adb::ClientOptions options;
  options.server.port = 1;  // nothing listens there
  options.adb_path = "";    // and nothing is started
  adb::Client client(io.get_executor(), options);
  const std::string serial = "emulator-5554";
  std::vector<std::string> logged;
  auto log = [&logged](std::string_view line) { logged.emplace_back(line); };

  auto pay = [&]() -> std::optional<std::string> {
    std::optional<std::optional<std::string>> paid;
    auto body = [&]() -> asio::awaitable<void> {
      store::DeviceRestore restore = GlobalSettingRestore("looper_stats", std::nullopt);
      restore.serial = serial;
      auto recording = owed.Record(std::move(restore));
      auto id = co_await std::move(recording);
      EXPECT_TRUE(id.ok());
      auto paying =
          PayOwedRestore(owed, client, serial, adb::DeadlineAfter(std::chrono::seconds(2)), log);
      paid = co_await std::move(paying);
    };
    io.restart();
    asio::co_spawn(io, body(), asio::detached);
    io.run();
    EXPECT_TRUE(paid.has_value());
    return paid.value_or("never ran");
  };

  std::vector<std::string> paid_later;
  owed.PayWhenRunEnds([&paid_later](const std::string& s) { paid_later.push_back(s); });
  {
    OwedRestores::RunHold run(owed, serial);
    const std::optional<std::string> during = pay();
    EXPECT_FALSE(during) << "the registry tried to put back a running run's setting: " << *during;
    EXPECT_TRUE(owed.Owes(serial)) << "left owed for the run to pay";
    ASSERT_FALSE(logged.empty());
    EXPECT_NE(logged.back().find("a run is on it"), std::string::npos) << logged.back();
    EXPECT_TRUE(paid_later.empty());
  }
  // The run's own restore may have failed (here: no adb server at all): what the registry left
  // is asked of it again once the run is done with the phone.
  EXPECT_EQ(paid_later, (std::vector<std::string>{serial}));
  { OwedRestores::RunHold next_run(owed, serial); }
  EXPECT_EQ(paid_later.size(), 1u) << "asked again though the registry left nothing this time";
  const std::optional<std::string> after = pay();
  EXPECT_TRUE(after) << "once the run has ended the registry pays (and here cannot)";
  EXPECT_TRUE(owed.Owes(serial));
}

}  // namespace
}  // namespace droidlab::orchestrator
