// Runs claimed by hosts (schema 0018, issue 17 §2) through the store's API: a run for a serial
// goes to its phone, a pool run to the first phone that matches, never twice; claims are renewed,
// lapse, and a lapsed pool run is queued again; a cancel asked of another host's run. Compiled
// into droidlab_store_test (SQLite) and droidlab_store_pg_test (PostgreSQL), so both backends
// answer alike; the race of two stores on one database is PostgreSQL's SKIP LOCKED claim there,
// SQLite's file lock here.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {
namespace {

class RunClaimTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = Open(); }

  std::unique_ptr<Store> Open() {
    StoreOptions options;
    options.path = testutil::TestStoreLocation(dir_);
    auto opened = Store::Open(options);
    EXPECT_TRUE(opened.ok()) << opened.error().message;
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  void Phone(const std::string& serial, const std::string& model, int64_t sdk,
             std::vector<std::string> labels = {}) {
    Device d;
    d.serial = serial;
    d.model = model;
    d.sdk = sdk;
    d.state = "device";
    d.first_seen = 1;
    d.last_seen = 1;
    d.host = "lab-a";
    ASSERT_TRUE(store_->UpsertDevice(d).ok());
    ASSERT_TRUE(store_->Flush().ok());
    ASSERT_TRUE(store_->SetDeviceLabels(serial, std::move(labels)).ok());
  }

  int64_t Queue(const std::string& serial, std::optional<RunPool> pool = std::nullopt) {
    NewRun run;
    run.spec_json = R"({"package":"com.example.app"})";
    run.serial = serial;
    run.package = "com.example.app";
    run.mode = "cold";
    run.iterations = 3;
    run.created_at = 100;
    run.pool = std::move(pool);
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok()) << id.error().message;
    return id.ok() ? *id : 0;
  }

  std::optional<int64_t> Claim(const std::string& host, const std::string& serial,
                               int64_t lease_until = 10'000) {
    auto claimed = store_->ClaimRun(RunClaim{host, serial, std::nullopt, lease_until});
    EXPECT_TRUE(claimed.ok()) << claimed.error().message;
    return claimed.ok() ? *claimed : std::nullopt;
  }

  store::Run Get(int64_t id) {
    auto run = store_->Read([&](Reader& r) { return r.GetRun(id); });
    EXPECT_TRUE(run.ok()) << run.error().message;
    return run.ok() ? *run : store::Run{};
  }

  void SetStatus(int64_t id, RunStatus status) {
    RunStatusUpdate update;
    update.run_id = id;
    update.status = status;
    ASSERT_TRUE(store_->UpdateRunStatus(update).ok());
  }

  static RunPool Pool(std::optional<std::string> model, std::optional<int64_t> sdk,
                      std::vector<std::string> labels) {
    return RunPool{std::move(model), sdk, std::move(labels)};
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(RunClaimTest, ARunForASerialIsClaimedForThatPhoneOnlyAndOnce) {
  Phone("R5CT1", "Pixel 7", 34);
  Phone("R5CT2", "Pixel 7", 34);
  const int64_t id = Queue("R5CT1");
  EXPECT_FALSE(Claim("lab-a", "R5CT2")) << "another phone does not take it";
  EXPECT_EQ(Claim("lab-a", "R5CT1", 5000), id);
  EXPECT_FALSE(Claim("lab-b", "R5CT1")) << "claimed once: no second host takes it";

  store::Run run = Get(id);
  EXPECT_EQ(run.host, "lab-a");
  EXPECT_EQ(run.lease_until, 5000);
  EXPECT_EQ(run.status, RunStatus::kQueued) << "claimed is not started";
  EXPECT_FALSE(run.pool);
  EXPECT_FALSE(run.cancel_requested);
  EXPECT_EQ(run.device_model, "Pixel 7") << "queued without a model, it takes its phone's";
}

TEST_F(RunClaimTest, APoolRunGoesToAPhoneWithItsModelSdkAndEveryLabel) {
  Phone("OLDSDK", "Pixel 7", 33, {"nightly"});
  Phone("NOLABEL", "Pixel 7", 34, {"smoke"});
  Phone("OTHER", "Pixel 8", 34, {"nightly"});
  Phone("MATCH", "Pixel 7", 34, {"nightly", "usb3"});
  const int64_t id = Queue("", Pool("Pixel 7", 34, {"nightly"}));
  EXPECT_TRUE(Get(id).pool);
  EXPECT_EQ(Get(id).serial, "");
  EXPECT_FALSE(Claim("lab-a", "OLDSDK")) << "SDK 33, not 34";
  EXPECT_FALSE(Claim("lab-a", "NOLABEL")) << "no 'nightly' label";
  EXPECT_FALSE(Claim("lab-a", "OTHER")) << "a Pixel 8";
  EXPECT_EQ(Claim("lab-b", "MATCH"), id) << "more labels than asked is fine";

  store::Run run = Get(id);
  EXPECT_EQ(run.serial, "MATCH") << "a claimed pool run is the phone's";
  EXPECT_EQ(run.device_model, "Pixel 7") << "and its model, for like-with-like history";
  EXPECT_EQ(run.host, "lab-b");

  const int64_t any = Queue("", Pool(std::nullopt, std::nullopt, {}));
  EXPECT_EQ(Claim("lab-a", "OTHER"), any) << "an empty pool is any phone";
}

TEST_F(RunClaimTest, APhoneTakesTheOldestRunItMayRunAndAClaimByIdOnlyAnUnclaimedSerialRun) {
  Phone("R5CT1", "Pixel 7", 34);
  const int64_t first = Queue("R5CT1");
  const int64_t pool = Queue("", Pool("Pixel 7", std::nullopt, {}));
  const int64_t third = Queue("R5CT1");
  EXPECT_EQ(Claim("lab-a", "R5CT1"), first);
  EXPECT_EQ(Claim("lab-a", "R5CT1"), pool);

  auto by_id = store_->ClaimRun(RunClaim{"lab-a", "R5CT1", third, 9000});
  ASSERT_TRUE(by_id.ok()) << by_id.error().message;
  EXPECT_EQ(*by_id, third);
  auto again = store_->ClaimRun(RunClaim{"lab-b", "R5CT1", third, 9000});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << "already claimed";
  const int64_t pool2 = Queue("", Pool(std::nullopt, std::nullopt, {}));
  auto pool_by_id = store_->ClaimRun(RunClaim{"lab-a", "R5CT1", pool2, 9000});
  ASSERT_TRUE(pool_by_id.ok());
  EXPECT_FALSE(*pool_by_id) << "a pool run is claimed by a phone that matches, never by id";
}

TEST_F(RunClaimTest, AHostRenewsTheRunsItHoldsAndSeesTheCancelsAskedOfThem) {
  Phone("A1", "Pixel 7", 34);
  Phone("A2", "Pixel 7", 34);
  Phone("B1", "Pixel 7", 34);
  const int64_t queued = Queue("A1");
  const int64_t running = Queue("A2");
  const int64_t ended = Queue("A2");
  const int64_t theirs = Queue("B1");
  ASSERT_EQ(Claim("lab-a", "A1", 1000), queued);
  ASSERT_EQ(Claim("lab-a", "A2", 1000), running);
  ASSERT_EQ(Claim("lab-a", "A2", 1000), ended);
  ASSERT_EQ(Claim("lab-b", "B1", 1000), theirs);
  SetStatus(running, RunStatus::kRunning);
  SetStatus(ended, RunStatus::kSucceeded);
  auto asked = store_->RequestRunCancel(running, "cancelled through lab-b", 1500);
  ASSERT_TRUE(asked.ok()) << asked.error().message;
  EXPECT_EQ(*asked, CancelRequest::kRequested);

  auto renewed = store_->RenewLeases("lab-a", 40'000);
  ASSERT_TRUE(renewed.ok()) << renewed.error().message;
  std::vector<int64_t> held = renewed->held;
  std::sort(held.begin(), held.end());
  EXPECT_EQ(held, (std::vector<int64_t>{queued, running})) << "not the ended one, not lab-b's";
  EXPECT_EQ(renewed->cancel_requested, (std::vector<int64_t>{running}));
  EXPECT_EQ(Get(queued).lease_until, 40'000);
  EXPECT_EQ(Get(theirs).lease_until, 1000);
  EXPECT_TRUE(Get(running).cancel_requested);
  EXPECT_EQ(Get(running).status, RunStatus::kRunning) << "its host ends it, not the flag";
}

TEST_F(RunClaimTest, LapsedClaimsEndRunningRunsAndAPoolRunIsQueuedAgain) {
  Phone("A1", "Pixel 7", 34, {"nightly"});
  Phone("A2", "Pixel 7", 34, {"nightly"});
  Phone("A3", "Pixel 7", 34, {"nightly"});
  Phone("B1", "Pixel 7", 34, {"nightly"});
  Phone("PLAIN", "Pixel 7", 34);
  const int64_t pool = Queue("", Pool("Pixel 7", 34, {"nightly"}));
  const int64_t serial = Queue("A2");
  const int64_t claimed = Queue("A3");
  const int64_t alive = Queue("B1");
  ASSERT_EQ(Claim("lab-a", "A1", 1000), pool);
  ASSERT_EQ(Claim("lab-a", "A2", 1000), serial);
  ASSERT_EQ(Claim("lab-a", "A3", 1000), claimed);
  ASSERT_EQ(Claim("lab-b", "B1", 5000), alive);
  SetStatus(pool, RunStatus::kRunning);
  SetStatus(serial, RunStatus::kRunning);
  SetStatus(alive, RunStatus::kRunning);

  auto early = store_->ExpireLeases(LeaseExpiry{999, std::nullopt, ""});
  ASSERT_TRUE(early.ok()) << early.error().message;
  EXPECT_TRUE(early->interrupted.empty()) << "no lease has run out yet";
  EXPECT_EQ(early->released, 0);

  auto expired = store_->ExpireLeases(LeaseExpiry{2000, std::nullopt, ""});
  ASSERT_TRUE(expired.ok()) << expired.error().message;
  std::vector<int64_t> interrupted = expired->interrupted;
  std::sort(interrupted.begin(), interrupted.end());
  EXPECT_EQ(interrupted, (std::vector<int64_t>{pool, serial}));
  EXPECT_EQ(expired->released, 1) << "the claimed run that never started is only released";
  ASSERT_EQ(expired->requeued.size(), 1u);
  EXPECT_EQ(expired->requeued[0].first, pool);
  const int64_t again = expired->requeued[0].second;
  EXPECT_GT(again, alive) << "a new run";

  store::Run old = Get(pool);
  EXPECT_EQ(old.status, RunStatus::kInterrupted);
  EXPECT_EQ(old.finished_at, 2000);
  EXPECT_NE(old.error.value_or("").find("host lab-a stopped renewing"), std::string::npos)
      << old.error.value_or("");
  EXPECT_NE(old.error.value_or("").find("queued again as run " + std::to_string(again)),
            std::string::npos)
      << old.error.value_or("");
  EXPECT_EQ(Get(serial).status, RunStatus::kInterrupted) << "a serial run is not queued again";
  store::Run released = Get(claimed);
  EXPECT_EQ(released.status, RunStatus::kQueued);
  EXPECT_FALSE(released.host);
  EXPECT_EQ(Get(alive).status, RunStatus::kRunning) << "lab-b's lease holds";

  store::Run fresh = Get(again);
  EXPECT_EQ(fresh.status, RunStatus::kQueued);
  EXPECT_TRUE(fresh.pool);
  EXPECT_EQ(fresh.serial, "");
  EXPECT_FALSE(fresh.host);
  EXPECT_EQ(fresh.spec_json, old.spec_json);
  EXPECT_FALSE(Claim("lab-b", "PLAIN")) << "the pool's labels came with it";
  EXPECT_EQ(Claim("lab-b", "B1"), again);
  EXPECT_EQ(Claim("lab-b", "A3"), claimed) << "the released run is anyone's again";
}

// The host that lost its claim stops its executor, which then writes the end it saw
// ("cancelled"): the interrupted end another host wrote, with its reason, is the one kept.
TEST_F(RunClaimTest, AnEndWrittenByTheHostThatLostTheClaimDoesNotReplaceTheInterruptedOne) {
  Phone("A1", "Pixel 7", 34);
  const int64_t run = Queue("A1");
  ASSERT_EQ(Claim("lab-a", "A1", 1000), run);
  SetStatus(run, RunStatus::kRunning);
  auto expired = store_->ExpireLeases(LeaseExpiry{2000, std::nullopt, ""});
  ASSERT_TRUE(expired.ok()) << expired.error().message;
  ASSERT_EQ(expired->interrupted, (std::vector<int64_t>{run}));

  RunStatusUpdate late;
  late.run_id = run;
  late.status = RunStatus::kCancelled;
  late.error = "cancelled during launch 3 of 10";
  late.finished_at = 2500;
  auto refused = store_->UpdateRunStatus(late);
  ASSERT_FALSE(refused.ok()) << "an ended run's status was overwritten";
  EXPECT_EQ(refused.error().code, StoreErrorCode::kConstraint);
  EXPECT_NE(refused.error().message.find("already ended interrupted"), std::string::npos)
      << refused.error().message;
  store::Run kept = Get(run);
  EXPECT_EQ(kept.status, RunStatus::kInterrupted);
  EXPECT_EQ(kept.finished_at, 2000);
  EXPECT_NE(kept.error.value_or("").find("host lab-a stopped renewing"), std::string::npos)
      << kept.error.value_or("");

  late.run_id = run + 1000;
  auto missing = store_->UpdateRunStatus(late);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, StoreErrorCode::kNotFound);
}

// Schema 0019 with 0018: a quarantined phone claims nothing; a run its host claimed but had not
// started is given back unclaimed (a pool run's phone forgotten), by that host only, and a
// started one is not.
TEST_F(RunClaimTest, AQuarantinedPhoneClaimsNothingAndAClaimNotStartedIsGivenBack) {
  Phone("A1", "Pixel 7", 34, {"nightly"});
  const int64_t pool = Queue("", Pool("Pixel 7", 34, {"nightly"}));
  ASSERT_EQ(Claim("lab-a", "A1"), pool);

  auto other = store_->ReleaseClaim(pool, "lab-b");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_FALSE(*other) << "lab-b does not hold it";
  EXPECT_EQ(Get(pool).host, "lab-a");
  auto back = store_->ReleaseClaim(pool, "lab-a");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back);
  store::Run given = Get(pool);
  EXPECT_EQ(given.status, RunStatus::kQueued);
  EXPECT_FALSE(given.host);
  EXPECT_EQ(given.serial, "") << "a pool run goes back to the pool";

  DeviceEvent quarantine;
  quarantine.serial = "A1";
  quarantine.host = "lab-a";
  quarantine.at = 500;
  quarantine.kind = "quarantined";
  quarantine.detail = "no answer after a reboot";
  ASSERT_TRUE(store_->QuarantineDevice(quarantine).ok());
  EXPECT_FALSE(Claim("lab-a", "A1")) << "a quarantined phone took a run";
  DeviceEvent release = quarantine;
  release.at = 600;
  release.kind = "released";
  ASSERT_TRUE(store_->ReleaseDevice(release).ok());
  ASSERT_EQ(Claim("lab-a", "A1"), pool);

  SetStatus(pool, RunStatus::kRunning);
  auto started = store_->ReleaseClaim(pool, "lab-a");
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_FALSE(*started) << "a running run was given back";
  EXPECT_EQ(Get(pool).host, "lab-a");
}

TEST_F(RunClaimTest, AHostStartingAgainEndsItsOwnClaimsAtOnceAndOnlyItsOwn) {
  Phone("A1", "Pixel 7", 34);
  Phone("A2", "Pixel 7", 34);
  Phone("B1", "Pixel 7", 34);
  const int64_t running = Queue("A1");
  const int64_t claimed = Queue("A2");
  const int64_t theirs = Queue("B1");
  ASSERT_EQ(Claim("lab-a", "A1", 50'000), running);
  ASSERT_EQ(Claim("lab-a", "A2", 50'000), claimed);
  ASSERT_EQ(Claim("lab-b", "B1", 50'000), theirs);
  SetStatus(running, RunStatus::kRunning);
  SetStatus(theirs, RunStatus::kRunning);

  auto restarted = store_->ExpireLeases(
      LeaseExpiry{2000, std::string("lab-a"), "the daemon stopped while the run was running"});
  ASSERT_TRUE(restarted.ok()) << restarted.error().message;
  EXPECT_EQ(restarted->interrupted, (std::vector<int64_t>{running}));
  EXPECT_EQ(restarted->released, 1);
  EXPECT_EQ(Get(running).error, "the daemon stopped while the run was running");
  EXPECT_FALSE(Get(claimed).host);
  EXPECT_EQ(Get(theirs).status, RunStatus::kRunning) << "lab-b's run is lab-b's";
}

TEST_F(RunClaimTest, ACancelEndsAnUnclaimedRunAtOnceAndFlagsAClaimedOne) {
  Phone("A1", "Pixel 7", 34);
  const int64_t unclaimed = Queue("A1");
  auto cancelled = store_->RequestRunCancel(unclaimed, "cancelled before it started", 300);
  ASSERT_TRUE(cancelled.ok()) << cancelled.error().message;
  EXPECT_EQ(*cancelled, CancelRequest::kCancelled);
  EXPECT_EQ(Get(unclaimed).status, RunStatus::kCancelled);
  EXPECT_EQ(Get(unclaimed).error, "cancelled before it started");
  EXPECT_FALSE(Claim("lab-a", "A1")) << "a cancelled run is never claimed";

  auto ended = store_->RequestRunCancel(unclaimed, "again", 400);
  ASSERT_TRUE(ended.ok());
  EXPECT_EQ(*ended, CancelRequest::kAlreadyEnded);
  auto unknown = store_->RequestRunCancel(999'999, "x", 400);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, StoreErrorCode::kNotFound);

  // A claimed run whose host died before starting it: its lapse cancels it, as was asked,
  // rather than handing it to another host.
  const int64_t claimed = Queue("A1");
  ASSERT_EQ(Claim("lab-a", "A1", 1000), claimed);
  auto flagged = store_->RequestRunCancel(claimed, "x", 500);
  ASSERT_TRUE(flagged.ok());
  EXPECT_EQ(*flagged, CancelRequest::kRequested);
  EXPECT_EQ(Get(claimed).status, RunStatus::kQueued);
  auto lapsed = store_->ExpireLeases(LeaseExpiry{2000, std::nullopt, ""});
  ASSERT_TRUE(lapsed.ok()) << lapsed.error().message;
  EXPECT_EQ(Get(claimed).status, RunStatus::kCancelled);
  EXPECT_EQ(lapsed->released, 0);
}

// Two daemons on one database, each claiming for its own phones as fast as it can: every pool
// run is claimed, none twice.
TEST_F(RunClaimTest, TwoStoresClaimingAtOnceNeverTakeOneRunTwice) {
  constexpr int kRuns = 60;
  for (int i = 0; i < 4; ++i) Phone("P" + std::to_string(i), "Pixel 7", 34, {"nightly"});
  std::vector<int64_t> queued;
  for (int i = 0; i < kRuns; ++i) queued.push_back(Queue("", Pool("Pixel 7", 34, {"nightly"})));
  std::unique_ptr<Store> second = Open();
  ASSERT_TRUE(second);

  auto claim_all = [](Store* store, std::string host, std::vector<std::string> phones,
                      std::vector<int64_t>* out) {
    for (bool any = true; any;) {
      any = false;
      for (const std::string& phone : phones) {
        auto claimed = store->ClaimRun(RunClaim{host, phone, std::nullopt, 10'000});
        ASSERT_TRUE(claimed.ok()) << claimed.error().message;
        if (*claimed) {
          out->push_back(**claimed);
          any = true;
        }
      }
    }
  };
  std::vector<int64_t> a;
  std::vector<int64_t> b;
  std::thread first_host(claim_all, store_.get(), "lab-a", std::vector<std::string>{"P0", "P1"},
                         &a);
  std::thread second_host(claim_all, second.get(), "lab-b", std::vector<std::string>{"P2", "P3"},
                          &b);
  first_host.join();
  second_host.join();

  std::set<int64_t> all(a.begin(), a.end());
  for (int64_t id : b) EXPECT_TRUE(all.insert(id).second) << "run " << id << " claimed twice";
  EXPECT_EQ(a.size() + b.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(all, std::set<int64_t>(queued.begin(), queued.end()));
  for (int64_t id : a) EXPECT_EQ(Get(id).host, "lab-a");
  for (int64_t id : b) EXPECT_EQ(Get(id).host, "lab-b");
}

}  // namespace
}  // namespace droidlab::store
