// The lab's hosts and device labels (schema 0016, issue 17 §2) and the audit log (schema 0017,
// §3) through the store's API: compiled
// into droidlab_store_test (SQLite) and droidlab_store_pg_test (PostgreSQL), so both backends
// answer alike.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

class HostStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.path = testutil::TestStoreLocation(dir_);
    auto opened = Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened).value();
  }

  void Upsert(const std::string& serial, std::optional<std::string> host, int64_t at,
              std::string state = "device") {
    Device d;
    d.serial = serial;
    d.model = "Pixel 7";
    d.state = std::move(state);
    d.first_seen = at;
    d.last_seen = at;
    d.host = std::move(host);
    ASSERT_TRUE(store_->UpsertDevice(d).ok());
    ASSERT_TRUE(store_->Flush().ok());
  }

  Status RecordState(DeviceStateChange change) {
    std::promise<Status> committed;
    auto accepted =
        store_->RecordDeviceState(change, [&](const Status& s) { committed.set_value(s); });
    if (!accepted) return accepted;
    return committed.get_future().get();
  }

  Device Get(const std::string& serial) {
    auto got = store_->Read([&](Reader& r) { return r.GetDevice(serial); });
    EXPECT_TRUE(got.ok()) << got.error().message;
    return got.ok() ? *got : Device{};
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(HostStoreTest, AHostIsRegisteredAndItsHeartbeatOnlyMovesForward) {
  Host a{"lab-b", "http://lab-b:8765", "0.1.0", 1000, 1000};
  Host b{"lab-a", "http://10.0.0.7:8765", "0.1.0", 500, 2000};
  ASSERT_TRUE(store_->UpsertHost(a).ok());
  ASSERT_TRUE(store_->UpsertHost(b).ok());
  a.heartbeat_at = 11000;
  ASSERT_TRUE(store_->UpsertHost(a).ok());
  a.heartbeat_at = 9000;  // a late write from before must not put the heartbeat back
  a.address = "http://lab-b:9000";
  ASSERT_TRUE(store_->UpsertHost(a).ok());

  auto hosts = store_->Read([](Reader& r) { return r.ListHosts(); });
  ASSERT_TRUE(hosts.ok()) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 2u);
  EXPECT_EQ((*hosts)[0].name, "lab-a") << "by name";
  EXPECT_EQ((*hosts)[0].address, "http://10.0.0.7:8765");
  EXPECT_EQ((*hosts)[0].started_at, 500);
  EXPECT_EQ((*hosts)[1].name, "lab-b");
  EXPECT_EQ((*hosts)[1].heartbeat_at, 11000);
  EXPECT_EQ((*hosts)[1].address, "http://lab-b:9000") << "the address is the latest";
}

TEST_F(HostStoreTest, ADeviceFollowsItsHostAndAnUpsertWithoutOneKeepsIt) {
  Upsert("R5CT1", "lab-a", 100);
  EXPECT_EQ(Get("R5CT1").host, "lab-a");
  Upsert("R5CT1", std::nullopt, 200);
  EXPECT_EQ(Get("R5CT1").host, "lab-a") << "an upsert naming no host keeps the stored one";
  Upsert("R5CT1", "lab-b", 300);  // replugged into another host
  EXPECT_EQ(Get("R5CT1").host, "lab-b");
  Upsert("OLD1", std::nullopt, 300);
  EXPECT_FALSE(Get("OLD1").host.has_value());
}

TEST_F(HostStoreTest, AHostDoesNotRecordTheStateOfADeviceAnotherHostHoldsNow) {
  Upsert("R5CT1", "lab-b", 100);
  // lab-a's adb server saw the phone leave after lab-b took it: not lab-a's to record.
  ASSERT_TRUE(RecordState({"R5CT1", "disconnected", 200, "lab-a"}).ok());
  Device d = Get("R5CT1");
  EXPECT_EQ(d.state, "device");
  EXPECT_EQ(d.last_seen, 100);
  auto changes = store_->Read([](Reader& r) { return r.ListDeviceStateChanges("R5CT1"); });
  ASSERT_TRUE(changes.ok());
  EXPECT_TRUE(changes->empty());

  ASSERT_TRUE(RecordState({"R5CT1", "offline", 300, "lab-b"}).ok());
  EXPECT_EQ(Get("R5CT1").state, "offline") << "its own host's change is recorded";
  ASSERT_TRUE(RecordState({"R5CT1", "device", 400, std::nullopt}).ok());
  EXPECT_EQ(Get("R5CT1").state, "device") << "a change naming no host is recorded as before";
  Upsert("OLD1", std::nullopt, 100);
  ASSERT_TRUE(RecordState({"OLD1", "offline", 500, "lab-a"}).ok());
  EXPECT_EQ(Get("OLD1").state, "offline") << "a device with no host yet is anyone's";

  Status unknown = RecordState({"nope", "offline", 600, "lab-a"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, StoreErrorCode::kNotFound);
}

TEST_F(HostStoreTest, LabelsAreReplacedWholeAndListedSorted) {
  Upsert("R5CT1", "lab-a", 100);
  Upsert("R5CT2", "lab-a", 100);
  ASSERT_TRUE(store_->SetDeviceLabels("R5CT1", {"nightly", "Pixel-7", "a.b_c"}).ok());
  EXPECT_EQ(Get("R5CT1").labels, (std::vector<std::string>{"Pixel-7", "a.b_c", "nightly"}))
      << "sorted bytewise on both backends";
  EXPECT_TRUE(Get("R5CT2").labels.empty());
  ASSERT_TRUE(store_->SetDeviceLabels("R5CT1", {"smoke"}).ok());
  auto all = store_->Read([](Reader& r) { return r.ListDevices(); });
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].labels, (std::vector<std::string>{"smoke"}));
  EXPECT_TRUE((*all)[1].labels.empty());
  ASSERT_TRUE(store_->SetDeviceLabels("R5CT1", {}).ok());
  EXPECT_TRUE(Get("R5CT1").labels.empty());

  Status unknown = store_->SetDeviceLabels("nope", {"x"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, StoreErrorCode::kNotFound);
}

TEST_F(HostStoreTest, TheAuditLogIsPagedNewestFirst) {
  for (int i = 1; i <= 5; ++i) {
    AuditEntry entry;
    entry.at = 1000 * i;
    entry.caller = i % 2 ? "ci" : "alice";
    entry.remote = "10.0.0." + std::to_string(i);
    entry.method = "POST";
    entry.path = "/api/v1/runs";
    entry.status = 201;
    if (i != 3) entry.location = "/api/v1/runs/" + std::to_string(i);
    ASSERT_TRUE(store_->AddAuditEntry(entry).ok());
  }
  auto first = store_->Read([](Reader& r) { return r.ListAudit(2, ""); });
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->entries.size(), 2u);
  EXPECT_EQ(first->entries[0].at, 5000);
  EXPECT_EQ(first->entries[0].caller, "ci");
  EXPECT_EQ(first->entries[0].remote, "10.0.0.5");
  EXPECT_EQ(first->entries[0].location, "/api/v1/runs/5");
  EXPECT_EQ(first->entries[1].caller, "alice");
  ASSERT_TRUE(first->next_cursor.has_value());
  const std::string cursor = *first->next_cursor;
  auto second = store_->Read([&](Reader& r) { return r.ListAudit(2, cursor); });
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->entries.size(), 2u);
  EXPECT_EQ(second->entries[0].at, 3000);
  EXPECT_FALSE(second->entries[0].location.has_value());
  const std::string last_cursor = second->next_cursor.value_or("");
  auto third = store_->Read([&](Reader& r) { return r.ListAudit(2, last_cursor); });
  ASSERT_TRUE(third.ok());
  ASSERT_EQ(third->entries.size(), 1u);
  EXPECT_FALSE(third->next_cursor.has_value()) << "the last page";

  auto forged = store_->Read([](Reader& r) { return r.ListAudit(2, "a10000000000000001"); });
  ASSERT_FALSE(forged.ok()) << "an alerts cursor is not the audit log's";
  EXPECT_EQ(forged.error().code, StoreErrorCode::kInvalidArgument);
  auto too_many = store_->Read([](Reader& r) { return r.ListAudit(1001, ""); });
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().code, StoreErrorCode::kInvalidArgument);
}

// Retention by age takes the audit log with the runs of its time.
TEST_F(HostStoreTest, RetentionByAgePrunesTheAuditLog) {
  for (int64_t at : {1000, 3999, 4000, 9000}) {
    AuditEntry entry;
    entry.at = at;
    entry.caller = "ci";
    entry.remote = "127.0.0.1";
    entry.method = "DELETE";
    entry.path = "/api/v1/runs/1";
    entry.status = 200;
    ASSERT_TRUE(store_->AddAuditEntry(entry).ok());
  }
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(6000);
  policy.now_ms = 10000;
  auto pruned = store_->Prune(policy);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  auto left = store_->Read([](Reader& r) { return r.ListAudit(10, ""); });
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->entries.size(), 2u);
  EXPECT_EQ(left->entries[0].at, 9000);
  EXPECT_EQ(left->entries[1].at, 4000) << "older than now - max_age goes, not the rest";
}

}  // namespace
}  // namespace droidlab::store
