// Fleet health through the store's API (schema 0019, issue 17 §3): each phone's health samples and
// events, read newest first, quarantine and release with the event each appends, and retention.
// Compiled into droidlab_store_test (SQLite) and droidlab_store_pg_test (PostgreSQL), so both
// backends answer alike.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

class DeviceHealthStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  void Upsert(const std::string& serial) {
    Device d;
    d.serial = serial;
    d.model = "Pixel 7";
    d.state = "device";
    d.first_seen = 100;
    d.last_seen = 100;
    d.host = "lab-a";
    ASSERT_TRUE(store_->UpsertDevice(d).ok());
    ASSERT_TRUE(store_->Flush().ok());
  }

  static DeviceHealthSample Sample(const std::string& serial, int64_t at) {
    DeviceHealthSample sample;
    sample.serial = serial;
    sample.host = "lab-a";
    sample.at = at;
    sample.adb_commands = 3;
    return sample;
  }

  static DeviceEvent Event(const std::string& serial, int64_t at, std::string kind,
                           std::string detail) {
    DeviceEvent event;
    event.serial = serial;
    event.host = "lab-a";
    event.at = at;
    event.kind = std::move(kind);
    event.detail = std::move(detail);
    return event;
  }

  Device Get(const std::string& serial) {
    auto got = store_->Read([&](Reader& r) { return r.GetDevice(serial); });
    EXPECT_TRUE(got.ok()) << got.error().message;
    return got.ok() ? *got : Device{};
  }

  std::vector<DeviceHealthSample> Health(const std::string& serial, int64_t since, int64_t limit) {
    auto listed = store_->Read([&](Reader& r) { return r.ListDeviceHealth(serial, since, limit); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? *listed : std::vector<DeviceHealthSample>{};
  }

  std::vector<DeviceEvent> Events(const std::string& serial, int64_t limit = 100) {
    auto listed = store_->Read([&](Reader& r) { return r.ListDeviceEvents(serial, limit); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? *listed : std::vector<DeviceEvent>{};
  }

  static std::vector<int64_t> Times(const std::vector<DeviceHealthSample>& samples) {
    std::vector<int64_t> at;
    for (const auto& s : samples) at.push_back(s.at);
    return at;
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(DeviceHealthStoreTest, ASampleRoundTripsWithEveryReadingPresentOrAbsent) {
  DeviceHealthSample full = Sample("R5CT1", 60000);
  full.host = "lab-b";
  full.battery_level = 87;
  full.battery_temp = 312;
  full.thermal_status = 0;  // none: a reading of 0, not an absent one
  full.uptime_ms = 123456789012;
  full.adb_commands = 14;
  full.adb_errors = 2;
  full.adb_ms = 905;
  ASSERT_TRUE(store_->RecordDeviceHealth(full).ok());
  DeviceHealthSample busy = Sample("R5CT1", 120000);  // busy with a run: no readings
  busy.adb_commands = 0;
  ASSERT_TRUE(store_->RecordDeviceHealth(busy).ok()) << "the device need not be known";

  const auto samples = Health("R5CT1", 0, 10);
  ASSERT_EQ(samples.size(), 2u);
  const DeviceHealthSample& none = samples[0];
  EXPECT_GT(none.id, 0) << "the store gives the id";
  EXPECT_EQ(none.serial, "R5CT1");
  EXPECT_EQ(none.host, "lab-a");
  EXPECT_EQ(none.at, 120000);
  EXPECT_FALSE(none.battery_level.has_value());
  EXPECT_FALSE(none.battery_temp.has_value());
  EXPECT_FALSE(none.thermal_status.has_value());
  EXPECT_FALSE(none.uptime_ms.has_value());
  EXPECT_EQ(none.adb_commands, 0);
  EXPECT_EQ(none.adb_errors, 0);
  EXPECT_EQ(none.adb_ms, 0);
  const DeviceHealthSample& got = samples[1];
  EXPECT_GT(got.id, 0);
  EXPECT_NE(got.id, none.id);
  EXPECT_EQ(got.serial, "R5CT1");
  EXPECT_EQ(got.host, "lab-b");
  EXPECT_EQ(got.at, 60000);
  EXPECT_EQ(got.battery_level, 87);
  EXPECT_EQ(got.battery_temp, 312);
  EXPECT_EQ(got.thermal_status, 0);
  EXPECT_EQ(got.uptime_ms, 123456789012);
  EXPECT_EQ(got.adb_commands, 14);
  EXPECT_EQ(got.adb_errors, 2);
  EXPECT_EQ(got.adb_ms, 905);
}

TEST_F(DeviceHealthStoreTest, AnEventRoundTripsWithEveryField) {
  DeviceEvent event =
      Event("R5CT1", 5000, "reconnect_transport", "adb reconnect: no answer in 10 s — «retrying»");
  event.host = "lab-b";
  ASSERT_TRUE(store_->RecordDeviceEvent(event).ok()) << "the device need not be known";
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 6000, "recovered", "")).ok());

  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "recovered");
  EXPECT_EQ(events[0].detail, "") << "an empty detail is kept empty";
  const DeviceEvent& got = events[1];
  EXPECT_GT(got.id, 0) << "the store gives the id";
  EXPECT_EQ(got.serial, "R5CT1");
  EXPECT_EQ(got.host, "lab-b");
  EXPECT_EQ(got.at, 5000);
  EXPECT_EQ(got.kind, "reconnect_transport");
  EXPECT_EQ(got.detail, "adb reconnect: no answer in 10 s — «retrying»");
  EXPECT_TRUE(Events("OTHER").empty()) << "an unknown serial has none";
}

TEST_F(DeviceHealthStoreTest, HealthIsListedNewestFirstSinceATimeUpToALimit) {
  // Written out of time order, with two samples at one time and another phone's in between.
  for (int64_t at : {3000, 1000, 4000, 2000, 3000}) {
    ASSERT_TRUE(store_->RecordDeviceHealth(Sample("R5CT1", at)).ok());
    ASSERT_TRUE(store_->RecordDeviceHealth(Sample("R5CT2", at + 1)).ok());
  }
  const auto all = Health("R5CT1", 0, 10);
  EXPECT_EQ(Times(all), (std::vector<int64_t>{4000, 3000, 3000, 2000, 1000}));
  ASSERT_EQ(all.size(), 5u);
  EXPECT_GT(all[1].id, all[2].id) << "at one time, the newest id first";
  for (const auto& s : all) EXPECT_EQ(s.serial, "R5CT1") << "only the phone asked for";

  EXPECT_EQ(Times(Health("R5CT1", 2000, 10)), (std::vector<int64_t>{4000, 3000, 3000, 2000}))
      << "since is inclusive";
  EXPECT_EQ(Times(Health("R5CT1", 2001, 10)), (std::vector<int64_t>{4000, 3000, 3000}));
  EXPECT_EQ(Times(Health("R5CT1", 0, 2)), (std::vector<int64_t>{4000, 3000}))
      << "the limit keeps the newest";
  EXPECT_EQ(Times(Health("R5CT1", 2000, 1)), (std::vector<int64_t>{4000}));
  EXPECT_TRUE(Health("R5CT1", 4001, 10).empty());
  EXPECT_TRUE(Health("OTHER", 0, 10).empty()) << "an unknown serial has none";
}

TEST_F(DeviceHealthStoreTest, EventsAreListedNewestFirstUpToALimit) {
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 2000, "unresponsive", "a")).ok());
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 1000, "rebooted", "b")).ok());
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT2", 1500, "rebooted", "other")).ok());
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 2000, "reboot", "c")).ok());
  const auto all = Events("R5CT1");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].detail, "c") << "at one time, the newest id first";
  EXPECT_EQ(all[1].detail, "a");
  EXPECT_EQ(all[2].detail, "b");
  const auto newest = Events("R5CT1", 2);
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[0].detail, "c");
  EXPECT_EQ(newest[1].detail, "a");
}

TEST_F(DeviceHealthStoreTest, ALimitOutside1To10000IsRefused) {
  ASSERT_TRUE(store_->RecordDeviceHealth(Sample("R5CT1", 1000)).ok());
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 1000, "rebooted", "")).ok());
  for (int64_t limit : {int64_t{0}, int64_t{-1}, int64_t{10001}}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    auto health = store_->Read([&](Reader& r) { return r.ListDeviceHealth("R5CT1", 0, limit); });
    ASSERT_FALSE(health.ok());
    EXPECT_EQ(health.error().code, StoreErrorCode::kInvalidArgument);
    auto events = store_->Read([&](Reader& r) { return r.ListDeviceEvents("R5CT1", limit); });
    ASSERT_FALSE(events.ok());
    EXPECT_EQ(events.error().code, StoreErrorCode::kInvalidArgument);
  }
  EXPECT_EQ(Health("R5CT1", 0, 10000).size(), 1u) << "10000 is allowed";
  EXPECT_EQ(Events("R5CT1", 10000).size(), 1u);
}

TEST_F(DeviceHealthStoreTest, QuarantiningOrReleasingADeviceNeverSeenIsNotFound) {
  Status quarantined = store_->QuarantineDevice(Event("nope", 1000, "quarantined", "why"));
  ASSERT_FALSE(quarantined.ok());
  EXPECT_EQ(quarantined.error().code, StoreErrorCode::kNotFound);
  Status released = store_->ReleaseDevice(Event("nope", 2000, "released", "token ci"));
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.error().code, StoreErrorCode::kNotFound);
  EXPECT_TRUE(Events("nope").empty()) << "nothing appended for a device never seen";
}

TEST_F(DeviceHealthStoreTest, AQuarantinedDeviceSaysSinceWhenAndWhyInGetAndList) {
  Upsert("R5CT1");
  Upsert("R5CT2");
  EXPECT_FALSE(Get("R5CT1").quarantined_at.has_value()) << "not quarantined at first";
  EXPECT_FALSE(Get("R5CT1").quarantine_reason.has_value());

  ASSERT_TRUE(
      store_->QuarantineDevice(Event("R5CT1", 7000, "quarantined", "3 reboots in 10 min")).ok());
  Device got = Get("R5CT1");
  EXPECT_EQ(got.quarantined_at, 7000);
  EXPECT_EQ(got.quarantine_reason, "3 reboots in 10 min");
  auto all = store_->Read([](Reader& r) { return r.ListDevices(); });
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].serial, "R5CT1");
  EXPECT_EQ((*all)[0].quarantined_at, 7000);
  EXPECT_EQ((*all)[0].quarantine_reason, "3 reboots in 10 min");
  EXPECT_FALSE((*all)[1].quarantined_at.has_value()) << "only the device quarantined";
  EXPECT_FALSE((*all)[1].quarantine_reason.has_value());

  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "quarantined");
  EXPECT_EQ(events[0].at, 7000);
  EXPECT_EQ(events[0].detail, "3 reboots in 10 min");

  Upsert("R5CT1");  // the phone seen again by its host
  EXPECT_EQ(Get("R5CT1").quarantined_at, 7000) << "an upsert leaves the quarantine alone";
}

TEST_F(DeviceHealthStoreTest, ASecondQuarantineKeepsTheFirstTimeAndReasonButAppendsItsEvent) {
  Upsert("R5CT1");
  ASSERT_TRUE(store_->QuarantineDevice(Event("R5CT1", 7000, "quarantined", "first")).ok());
  ASSERT_TRUE(store_->QuarantineDevice(Event("R5CT1", 8000, "quarantined", "second")).ok());
  Device got = Get("R5CT1");
  EXPECT_EQ(got.quarantined_at, 7000);
  EXPECT_EQ(got.quarantine_reason, "first");
  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 2u) << "the second quarantine's event is appended all the same";
  EXPECT_EQ(events[0].kind, "quarantined");
  EXPECT_EQ(events[0].detail, "second");
  EXPECT_EQ(events[1].detail, "first");
}

TEST_F(DeviceHealthStoreTest, ReleaseClearsTheQuarantineAndAppendsReleased) {
  Upsert("R5CT1");
  ASSERT_TRUE(store_->QuarantineDevice(Event("R5CT1", 7000, "quarantined", "flaky USB")).ok());
  ASSERT_TRUE(store_->ReleaseDevice(Event("R5CT1", 9000, "released", "token alice")).ok());
  Device got = Get("R5CT1");
  EXPECT_FALSE(got.quarantined_at.has_value());
  EXPECT_FALSE(got.quarantine_reason.has_value());
  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "released");
  EXPECT_EQ(events[0].at, 9000);
  EXPECT_EQ(events[0].host, "lab-a");
  EXPECT_EQ(events[0].detail, "token alice");
  EXPECT_EQ(events[1].kind, "quarantined");

  // Quarantined again after a release: the new time and reason.
  ASSERT_TRUE(store_->QuarantineDevice(Event("R5CT1", 10000, "quarantined", "again")).ok());
  EXPECT_EQ(Get("R5CT1").quarantined_at, 10000);
  EXPECT_EQ(Get("R5CT1").quarantine_reason, "again");
}

TEST_F(DeviceHealthStoreTest, ReleasingADeviceNotQuarantinedIsRefusedAndAppendsNothing) {
  Upsert("R5CT1");
  ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", 1000, "rebooted", "")).ok());
  Status never = store_->ReleaseDevice(Event("R5CT1", 2000, "released", "token alice"));
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_NE(never.error().message.find("is not quarantined"), std::string::npos)
      << never.error().message;

  ASSERT_TRUE(store_->QuarantineDevice(Event("R5CT1", 3000, "quarantined", "x")).ok());
  ASSERT_TRUE(store_->ReleaseDevice(Event("R5CT1", 4000, "released", "token alice")).ok());
  Status twice = store_->ReleaseDevice(Event("R5CT1", 5000, "released", "token bob"));
  ASSERT_FALSE(twice.ok()) << "released already";
  EXPECT_EQ(twice.error().code, StoreErrorCode::kInvalidArgument);

  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 3u) << "neither refused release appended its event";
  EXPECT_EQ(events[0].at, 4000);
  EXPECT_EQ(events[1].at, 3000);
  EXPECT_EQ(events[2].at, 1000);
}

// Retention by age takes a phone's health and events with the runs of their time.
TEST_F(DeviceHealthStoreTest, RetentionByAgePrunesHealthAndEvents) {
  for (int64_t at : {1000, 3999, 4000, 9000}) {
    ASSERT_TRUE(store_->RecordDeviceHealth(Sample("R5CT1", at)).ok());
    ASSERT_TRUE(store_->RecordDeviceEvent(Event("R5CT1", at, "rebooted", "")).ok());
  }
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(6000);
  policy.now_ms = 10000;
  auto pruned = store_->Prune(policy);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(pruned->history_rows_deleted, 4) << "two samples and two events";
  EXPECT_EQ(Times(Health("R5CT1", 0, 10)), (std::vector<int64_t>{9000, 4000}))
      << "older than now - max_age goes, not the rest";
  const auto events = Events("R5CT1");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].at, 9000);
  EXPECT_EQ(events[1].at, 4000);
}

}  // namespace
}  // namespace droidlab::store
