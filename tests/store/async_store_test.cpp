// AsyncStore, the store's awaitable door, on a one-thread io_context with a real store: each kind
// of call resumes the coroutine on the io thread with the store's result (run state, measurements,
// devices, fleet health, schedules, reads, retention, backup), and none of them runs on that
// thread.
#include "store/async_store.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

namespace asio = boost::asio;

class AsyncStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  // Runs `body` to its end on io_, with nothing else to do: the store calls it awaits must
  // keep the io_context from running out of work until they resume it.
  template <class Body>
  void RunOnIo(Body body) {
    std::exception_ptr failure;
    asio::co_spawn(io_, std::move(body), [&failure](std::exception_ptr e) { failure = e; });
    io_.run();
    if (failure) std::rethrow_exception(failure);
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
  asio::io_context io_{1};
};

TEST_F(AsyncStoreTest, RunStateAndMeasurementsResumeOnTheCallersThread) {
  AsyncStore door(*store_);
  const std::thread::id io_thread = std::this_thread::get_id();  // io_.run() runs here
  RunOnIo([&]() -> asio::awaitable<void> {
    NewRun run;
    run.spec_json = "{}";
    run.serial = "emulator-5554";
    run.package = "com.example.app";
    run.mode = "cold";
    run.created_at = 1000;
    auto creating = door.CreateRun(std::move(run));
    auto id = co_await std::move(creating);
    EXPECT_EQ(std::this_thread::get_id(), io_thread);
    EXPECT_TRUE(id.ok()) << id.error().message;
    if (!id) co_return;

    RunStatusUpdate running;
    running.run_id = *id;
    running.status = RunStatus::kRunning;
    auto updating = door.UpdateRunStatus(std::move(running));
    const Status marked_running = co_await std::move(updating);
    EXPECT_TRUE(marked_running.ok()) << marked_running.error().message;

    Launch launch;
    launch.run_id = *id;
    launch.displayed_ms = 700;
    std::vector<Launch> launches{std::move(launch)};
    auto storing = door.AddLaunches(std::move(launches), nullptr);
    const Status launches_taken = co_await std::move(storing);
    EXPECT_TRUE(launches_taken.ok()) << launches_taken.error().message;
    LooperStatsRow row;
    row.run_id = *id;
    row.work_source_uid = "-1";
    row.message_count = 3;
    std::vector<LooperStatsRow> rows{std::move(row)};
    auto storing_rows = door.AddLooperStats(std::move(rows), nullptr);
    const Status rows_taken = co_await std::move(storing_rows);
    EXPECT_TRUE(rows_taken.ok()) << rows_taken.error().message;
    auto flushing = door.Flush();
    const Status flushed = co_await std::move(flushing);
    EXPECT_TRUE(flushed.ok()) << flushed.error().message;

    auto reading = door.GetRun(*id);
    auto stored = co_await std::move(reading);
    EXPECT_EQ(std::this_thread::get_id(), io_thread);
    EXPECT_TRUE(stored.ok());
    if (stored) {
      EXPECT_EQ(stored->status, RunStatus::kRunning);
    }
    auto listing = door.ListLaunches(*id);
    auto stored_launches = co_await std::move(listing);
    EXPECT_TRUE(stored_launches.ok());
    if (stored_launches) {
      EXPECT_EQ(stored_launches->size(), 1u);
    }
    auto listing_rows = door.ListLooperStats(*id);
    auto stored_rows = co_await std::move(listing_rows);
    EXPECT_TRUE(stored_rows.ok());
    if (stored_rows) {
      EXPECT_EQ(stored_rows->size(), 1u);
      EXPECT_EQ(stored_rows->front().message_count, 3);
    }

    std::string reason = "the daemon stopped";
    auto interrupting = door.InterruptRunningRuns(std::move(reason), 2000);
    auto interrupted = co_await std::move(interrupting);
    EXPECT_TRUE(interrupted.ok());
    if (interrupted) {
      EXPECT_EQ(*interrupted, 1);
    }
  });
}

TEST_F(AsyncStoreTest, DevicesSchedulesAndSeveralReadsInOneTrip) {
  AsyncStore door(*store_);
  RunOnIo([&]() -> asio::awaitable<void> {
    Device device;
    device.serial = "emulator-5554";
    device.state = "device";
    device.first_seen = device.last_seen = 10;
    auto upserting = door.UpsertDevice(std::move(device), nullptr);
    const Status upserted = co_await std::move(upserting);
    EXPECT_TRUE(upserted.ok()) << upserted.error().message;
    DeviceStateChange change{"emulator-5554", "offline", 20};
    auto recording = door.RecordDeviceState(std::move(change), nullptr);
    const Status recorded = co_await std::move(recording);
    EXPECT_TRUE(recorded.ok()) << recorded.error().message;
    auto flushing = door.Flush();
    const Status flushed = co_await std::move(flushing);
    EXPECT_TRUE(flushed.ok()) << flushed.error().message;

    NewSchedule schedule;
    schedule.cron = "0 2 * * *";
    schedule.timezone = "UTC";
    schedule.run_spec_json = "{}";
    auto creating = door.CreateSchedule(std::move(schedule));
    auto id = co_await std::move(creating);
    EXPECT_TRUE(id.ok());
    if (!id) co_return;
    const int64_t schedule_id = *id;
    auto marking = door.MarkScheduleFired(schedule_id, 30);
    const Status marked_fired = co_await std::move(marking);
    EXPECT_TRUE(marked_fired.ok()) << marked_fired.error().message;
    auto disabling = door.SetScheduleEnabled(schedule_id, false);
    const Status disabled = co_await std::move(disabling);
    EXPECT_TRUE(disabled.ok()) << disabled.error().message;

    struct Seen {
      Device device;
      std::vector<DeviceStateChange> changes;
      Schedule schedule;
    };
    auto both = [schedule_id](Reader& r) -> StoreResult<Seen> {
      auto stored_device = r.GetDevice("emulator-5554");
      if (!stored_device) return stored_device.error();
      auto changes = r.ListDeviceStateChanges("emulator-5554");
      if (!changes) return changes.error();
      auto stored_schedule = r.GetSchedule(schedule_id);
      if (!stored_schedule) return stored_schedule.error();
      return Seen{std::move(*stored_device), std::move(*changes), std::move(*stored_schedule)};
    };
    auto reading = door.Read(std::move(both));
    auto seen = co_await std::move(reading);
    EXPECT_TRUE(seen.ok());
    if (seen) {
      EXPECT_EQ(seen->device.state, "offline");
      EXPECT_EQ(seen->changes.size(), 1u);
      EXPECT_EQ(seen->schedule.last_fired_at, 30);
      EXPECT_FALSE(seen->schedule.enabled);
    }

    auto deleting = door.DeleteSchedule(schedule_id);
    const Status deleted = co_await std::move(deleting);
    EXPECT_TRUE(deleted.ok()) << deleted.error().message;
    auto deleting_again = door.DeleteSchedule(schedule_id);
    auto again = co_await std::move(deleting_again);
    EXPECT_EQ(again.error().code, StoreErrorCode::kNotFound);
  });
}

TEST_F(AsyncStoreTest, RetentionAndBackupRunOnTheStoresThreads) {
  DROIDLAB_SQLITE_ONLY("SQLite's online backup (PostgreSQL: pg_dump)");
  AsyncStore door(*store_);
  const std::string backup = dir_.File("backup.db");
  RunOnIo([&]() -> asio::awaitable<void> {
    RetentionPolicy policy;
    policy.max_runs = 10;
    auto pruning = door.Prune(policy);
    auto pruned = co_await std::move(pruning);
    EXPECT_TRUE(pruned.ok());
    if (pruned) {
      EXPECT_EQ(pruned->runs_deleted, 0);
    }

    std::string destination = backup;
    auto copying = door.Backup(std::move(destination), BackupOptions{});
    auto copied = co_await std::move(copying);
    EXPECT_TRUE(copied.ok()) << copied.error().message;
  });
  EXPECT_TRUE(std::filesystem::exists(backup));
}

TEST_F(AsyncStoreTest, DeviceRestoresThroughTheDoor) {
  AsyncStore door(*store_);
  RunOnIo([&]() -> asio::awaitable<void> {
    DeviceRestore restore;
    restore.serial = "emulator-5554";
    restore.kind = "battery_reset";
    restore.created_at = 5;
    auto recording = door.RecordDeviceRestore(std::move(restore));
    auto id = co_await std::move(recording);
    EXPECT_TRUE(id.ok());
    if (!id.ok()) co_return;
    auto listing = door.ListOwedRestores("emulator-5554");
    auto owed = co_await std::move(listing);
    EXPECT_TRUE(owed.ok() && owed->size() == 1u);
    auto marking = door.MarkDeviceRestorePaid(*id, 6);
    auto marked = co_await std::move(marking);
    EXPECT_TRUE(marked.ok());
    auto relisting = door.ListOwedRestores("emulator-5554");
    auto after = co_await std::move(relisting);
    EXPECT_TRUE(after.ok() && after->empty());
  });
}

TEST_F(AsyncStoreTest, FleetHealthThroughTheDoor) {
  Device device;
  device.serial = "emulator-5554";
  device.state = "device";
  device.first_seen = device.last_seen = 10;
  ASSERT_TRUE(store_->UpsertDevice(device).ok());
  ASSERT_TRUE(store_->Flush().ok());
  AsyncStore door(*store_);
  RunOnIo([&]() -> asio::awaitable<void> {
    DeviceHealthSample sample;
    sample.serial = "emulator-5554";
    sample.host = "lab-a";
    sample.at = 100;
    sample.battery_level = 90;
    auto sampling = door.RecordDeviceHealth(std::move(sample));
    const Status sampled = co_await std::move(sampling);
    EXPECT_TRUE(sampled.ok()) << sampled.error().message;

    DeviceEvent unresponsive{0, "emulator-5554", "lab-a", 200, "unresponsive", "no answer"};
    auto recording = door.RecordDeviceEvent(std::move(unresponsive));
    const Status recorded = co_await std::move(recording);
    EXPECT_TRUE(recorded.ok()) << recorded.error().message;
    DeviceEvent quarantine{0, "emulator-5554", "lab-a", 300, "quarantined", "3 reboots"};
    auto quarantining = door.QuarantineDevice(std::move(quarantine));
    const Status quarantined = co_await std::move(quarantining);
    EXPECT_TRUE(quarantined.ok()) << quarantined.error().message;
    auto getting = door.GetDevice("emulator-5554");
    auto got = co_await std::move(getting);
    EXPECT_TRUE(got.ok() && got->quarantined_at == 300);
    DeviceEvent release{0, "emulator-5554", "lab-a", 400, "released", "token ci"};
    auto releasing = door.ReleaseDevice(std::move(release));
    const Status released = co_await std::move(releasing);
    EXPECT_TRUE(released.ok()) << released.error().message;
    DeviceEvent release_again{0, "emulator-5554", "lab-a", 500, "released", "token ci"};
    auto releasing_again = door.ReleaseDevice(std::move(release_again));
    const Status again = co_await std::move(releasing_again);
    EXPECT_EQ(again.error().code, StoreErrorCode::kInvalidArgument);

    auto listing_health = door.ListDeviceHealth("emulator-5554", 0, 10);
    auto health = co_await std::move(listing_health);
    EXPECT_TRUE(health.ok() && health->size() == 1u && (*health)[0].battery_level == 90);
    auto listing_events = door.ListDeviceEvents("emulator-5554", 10);
    auto events = co_await std::move(listing_events);
    EXPECT_TRUE(events.ok());
    if (!events.ok()) co_return;
    std::vector<std::string> kinds;
    for (const DeviceEvent& event : *events) kinds.push_back(event.kind);
    EXPECT_EQ(kinds, (std::vector<std::string>{"released", "quarantined", "unresponsive"}));
  });
}

}  // namespace
}  // namespace droidlab::store
