// Alerts and their deliveries in the store (schema/0010_alerts.sql), on a real file: an alert and
// its deliveries stored together or not at all, each attempt accepted only as the delivery's
// next one while it is pending, the pending ones soonest first, the list newest first by state
// with a keyset cursor, and the open regressions /metrics counts.
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

NewAlert MakeAlert(std::string kind, std::string package, double delta, int64_t created_at) {
  NewAlert alert;
  alert.kind = std::move(kind);
  alert.package = std::move(package);
  alert.model = "Pixel 7";
  alert.mode = "warm";
  alert.metric = "fully_drawn_ms";
  alert.delta = delta;
  alert.delta_pct = 5.5;
  alert.ci_low = 3.25;
  alert.ci_high = 7.75;
  alert.run_id = 12;
  alert.build_id = 3;
  alert.version_code = 4100;
  alert.explained_by = {"fingerprint", "a \"quoted\" \\ name\n\ttab", "ünïcödé", ""};
  alert.created_at = created_at;
  return alert;
}

class AlertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  int64_t Create(const NewAlert& alert, std::vector<NewAlertDelivery> deliveries = {}) {
    auto id = store_->CreateAlert(alert, deliveries);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  Alert Get(int64_t id) {
    auto alert = store_->Read([id](Reader& r) { return r.GetAlert(id); });
    EXPECT_TRUE(alert) << alert.error().message;
    return alert ? *alert : Alert{};
  }

  static AlertAttemptRecord Attempt(int64_t delivery, int64_t attempt, std::string after,
                                    std::optional<int64_t> status, std::optional<int64_t> next) {
    AlertAttemptRecord r;
    r.delivery_id = delivery;
    r.attempt.attempt = attempt;
    r.attempt.started_at = 1000 * attempt;
    r.attempt.duration_ms = 7;
    r.attempt.http_status = status;
    if (!status || *status >= 300) r.attempt.error = status ? "HTTP 500" : "connection refused";
    r.status_after = std::move(after);
    r.next_attempt_at = next;
    return r;
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(AlertStoreTest, AnAlertAndItsDeliveriesComeBackAsStored) {
  const int64_t id = Create(MakeAlert("change_point", "com.example", 31.5, 5000),
                            {{"http://a/hook", "id-a"}, {"http://b/hook?k=v", "id-b"}});
  store_.reset();  // durable: a new store reads it back
  store_ = testutil::OpenTestStore(dir_);
  ASSERT_TRUE(store_);
  const Alert alert = Get(id);
  EXPECT_EQ(alert.id, id);
  EXPECT_EQ(alert.kind, "change_point");
  EXPECT_EQ(alert.package, "com.example");
  EXPECT_EQ(alert.model, "Pixel 7");
  EXPECT_EQ(alert.mode, "warm");
  EXPECT_EQ(alert.metric, "fully_drawn_ms");
  EXPECT_EQ(alert.delta, 31.5);
  EXPECT_EQ(alert.delta_pct, 5.5);
  EXPECT_EQ(alert.ci_low, 3.25);
  EXPECT_EQ(alert.ci_high, 7.75);
  EXPECT_EQ(alert.run_id, 12);
  EXPECT_EQ(alert.build_id, 3);
  EXPECT_EQ(alert.version_code, 4100);
  EXPECT_EQ(alert.explained_by, MakeAlert("", "", 0, 0).explained_by);
  EXPECT_EQ(alert.state, "open");
  EXPECT_EQ(alert.created_at, 5000);
  EXPECT_FALSE(alert.resolved_at);
  ASSERT_EQ(alert.deliveries.size(), 2u);
  EXPECT_EQ(alert.deliveries[0].url, "http://a/hook");
  EXPECT_EQ(alert.deliveries[0].delivery_id, "id-a");
  EXPECT_EQ(alert.deliveries[1].url, "http://b/hook?k=v");
  for (const auto& d : alert.deliveries) {
    EXPECT_EQ(d.alert_id, id);
    EXPECT_EQ(d.status, "pending");
    EXPECT_EQ(d.attempts, 0);
    EXPECT_EQ(d.next_attempt_at, 5000);  // due at once
    EXPECT_EQ(d.created_at, 5000);
    EXPECT_FALSE(d.finished_at);
    EXPECT_TRUE(d.attempt_log.empty());
  }

  NewAlert bare;
  bare.kind = "regression";
  bare.package = "p";
  bare.model = "m";
  bare.mode = "cold";
  bare.metric = "displayed_ms";
  bare.created_at = 1;
  const Alert got = Get(Create(bare));
  EXPECT_FALSE(got.delta);
  EXPECT_FALSE(got.run_id);
  EXPECT_TRUE(got.explained_by.empty());
  EXPECT_TRUE(got.deliveries.empty());

  auto missing = store_->Read([](Reader& r) { return r.GetAlert(999); });
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, StoreErrorCode::kNotFound);
}

TEST_F(AlertStoreTest, ADeliveryIdGivenTwiceStoresNothing) {
  Create(MakeAlert("regression", "a", 1, 1), {{"http://a/", "same"}});
  auto second = store_->CreateAlert(MakeAlert("regression", "b", 1, 2),
                                    {{"http://a/", "fresh"}, {"http://b/", "same"}});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, StoreErrorCode::kConstraint);
  auto page = store_->Read([](Reader& r) { return r.ListAlerts({}); });
  ASSERT_TRUE(page);
  ASSERT_EQ(page->alerts.size(), 1u);  // neither the alert nor its first delivery
  EXPECT_EQ(page->alerts[0].package, "a");
  auto pending = store_->Read([](Reader& r) { return r.PendingAlertDeliveries(10); });
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->size(), 1u);
}

TEST_F(AlertStoreTest, AnAttemptIsTakenOnlyAsThePendingDeliverysNextOne) {
  const int64_t id = Create(MakeAlert("regression", "a", 1, 100), {{"http://a/", "d1"}});
  const int64_t delivery = Get(id).deliveries.at(0).id;

  auto skipped = store_->RecordAlertAttempt(Attempt(delivery, 2, "pending", 500, 9000));
  ASSERT_FALSE(skipped);
  EXPECT_EQ(skipped.error().code, StoreErrorCode::kNotFound);

  ASSERT_TRUE(store_->RecordAlertAttempt(Attempt(delivery, 1, "pending", std::nullopt, 9000)));
  auto again = store_->RecordAlertAttempt(Attempt(delivery, 1, "pending", 500, 9000));
  ASSERT_FALSE(again);  // the same attempt twice (a second daemon, a replay)
  EXPECT_EQ(again.error().code, StoreErrorCode::kNotFound);
  Alert alert = Get(id);
  EXPECT_EQ(alert.deliveries[0].attempts, 1);
  EXPECT_EQ(alert.deliveries[0].next_attempt_at, 9000);
  ASSERT_EQ(alert.deliveries[0].attempt_log.size(), 1u);  // the refused one left no row

  ASSERT_TRUE(store_->RecordAlertAttempt(Attempt(delivery, 2, "delivered", 200, std::nullopt)));
  alert = Get(id);
  const AlertDelivery& d = alert.deliveries[0];
  EXPECT_EQ(d.status, "delivered");
  EXPECT_EQ(d.attempts, 2);
  EXPECT_EQ(d.finished_at, 2007);  // the last attempt's start + its duration
  ASSERT_EQ(d.attempt_log.size(), 2u);
  EXPECT_EQ(d.attempt_log[0].attempt, 1);
  EXPECT_FALSE(d.attempt_log[0].http_status);
  EXPECT_EQ(d.attempt_log[0].error, "connection refused");
  EXPECT_EQ(d.attempt_log[0].started_at, 1000);
  EXPECT_EQ(d.attempt_log[0].duration_ms, 7);
  EXPECT_EQ(d.attempt_log[1].http_status, 200);
  EXPECT_FALSE(d.attempt_log[1].error);

  auto after_end = store_->RecordAlertAttempt(Attempt(delivery, 3, "pending", 500, 9000));
  ASSERT_FALSE(after_end);
  EXPECT_EQ(after_end.error().code, StoreErrorCode::kNotFound);
}

TEST_F(AlertStoreTest, PendingDeliveriesComeSoonestFirstWithTheirAlert) {
  const int64_t a = Create(MakeAlert("regression", "a", 1, 300), {{"http://x/", "a-x"}});
  const int64_t b =
      Create(MakeAlert("regression", "b", 1, 100), {{"http://x/", "b-x"}, {"http://y/", "b-y"}});
  const int64_t c = Create(MakeAlert("regression", "c", 1, 200), {{"http://x/", "c-x"}});
  const Alert alert_b = Get(b);
  // b-x is retried later than everything else; b-y is given up; c's is delivered.
  ASSERT_TRUE(
      store_->RecordAlertAttempt(Attempt(alert_b.deliveries[0].id, 1, "pending", 503, 10'000)));
  ASSERT_TRUE(store_->RecordAlertAttempt(
      Attempt(alert_b.deliveries[1].id, 1, "failed", 410, std::nullopt)));
  ASSERT_TRUE(store_->RecordAlertAttempt(
      Attempt(Get(c).deliveries[0].id, 1, "delivered", 200, std::nullopt)));

  auto pending = store_->Read([](Reader& r) { return r.PendingAlertDeliveries(10); });
  ASSERT_TRUE(pending) << pending.error().message;
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].delivery.delivery_id, "a-x");  // due at 300
  EXPECT_EQ((*pending)[0].alert.id, a);
  EXPECT_EQ((*pending)[0].alert.package, "a");
  EXPECT_EQ((*pending)[0].alert.explained_by, MakeAlert("", "", 0, 0).explained_by);
  EXPECT_EQ((*pending)[1].delivery.delivery_id, "b-x");  // due at 10,000
  EXPECT_EQ((*pending)[1].delivery.attempts, 1);
  EXPECT_EQ((*pending)[1].alert.id, b);

  auto one = store_->Read([](Reader& r) { return r.PendingAlertDeliveries(1); });
  ASSERT_TRUE(one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].delivery.delivery_id, "a-x");
}

TEST_F(AlertStoreTest, ListedNewestFirstByStateAPageAtATime) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Create(MakeAlert("regression", "p", 1, 10 + i)));
  ASSERT_TRUE(store_->ResolveAlert(ids[3], 99));
  auto twice = store_->ResolveAlert(ids[3], 100);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, StoreErrorCode::kNotFound);

  auto list = [this](AlertQuery q) {
    return store_->Read([q](Reader& r) { return r.ListAlerts(q); });
  };
  AlertQuery open;
  open.state = "open";
  open.limit = 2;
  std::vector<int64_t> seen;
  for (int page = 0; page < 5; ++page) {
    auto got = list(open);
    ASSERT_TRUE(got) << got.error().message;
    for (const auto& a : got->alerts) {
      EXPECT_EQ(a.state, "open");
      seen.push_back(a.id);
    }
    if (got->next_cursor.empty()) break;
    open.cursor = got->next_cursor;
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{ids[4], ids[2], ids[1], ids[0]}));

  AlertQuery resolved;
  resolved.state = "resolved";
  auto got = list(resolved);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->alerts.size(), 1u);
  EXPECT_EQ(got->alerts[0].id, ids[3]);
  EXPECT_EQ(got->alerts[0].resolved_at, 99);
  EXPECT_TRUE(got->next_cursor.empty());

  for (AlertQuery bad : {AlertQuery{std::nullopt, 0, ""}, AlertQuery{std::nullopt, 1001, ""},
                         AlertQuery{std::string("closed"), 10, ""},
                         AlertQuery{std::nullopt, 10, "r1" + std::string(32, '0')},
                         AlertQuery{std::nullopt, 10, "a1zz"}}) {
    auto refused = list(bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, StoreErrorCode::kInvalidArgument);
  }
}

TEST_F(AlertStoreTest, OpenRegressionsAreRegressionsAndSlowerChangePointsByPackageAndModel) {
  Create(MakeAlert("regression", "a", -3, 1));     // a verdict counts whatever its sign
  Create(MakeAlert("change_point", "a", 20, 2));   // slower
  Create(MakeAlert("change_point", "a", -20, 3));  // faster: not a regression
  NewAlert other_model = MakeAlert("regression", "a", 5, 4);
  other_model.model = "Pixel 8";
  Create(other_model);
  const int64_t gone = Create(MakeAlert("regression", "b", 5, 5));
  ASSERT_TRUE(store_->ResolveAlert(gone, 6));

  auto counts = store_->Read([](Reader& r) { return r.OpenRegressionCounts(); });
  ASSERT_TRUE(counts) << counts.error().message;
  ASSERT_EQ(counts->size(), 2u);
  EXPECT_EQ((*counts)[0].package, "a");
  EXPECT_EQ((*counts)[0].model, "Pixel 7");
  EXPECT_EQ((*counts)[0].count, 2);
  EXPECT_EQ((*counts)[1].model, "Pixel 8");
  EXPECT_EQ((*counts)[1].count, 1);
}

// Retention by age: an alert resolved before the cutoff goes with its deliveries and their
// attempts, unless a delivery is still pending (its resolution is still to be told); an open
// alert stays whatever its age, and so does one resolved after the cutoff.
TEST_F(AlertStoreTest, RetentionByAgePrunesResolvedAlertsWithNothingPending) {
  const int64_t open_old =
      Create(MakeAlert("regression", "com.open", 9, 1000), {{"http://h/1", "o"}});
  const int64_t resolved_old = Create(MakeAlert("regression", "com.old", 9, 1000),
                                      {{"http://h/1", "r1"}, {"http://h/2", "r2"}});
  const int64_t still_sending =
      Create(MakeAlert("regression", "com.sending", 9, 1000), {{"http://h/1", "s"}});
  const int64_t resolved_new =
      Create(MakeAlert("regression", "com.new", 9, 1000), {{"http://h/1", "n"}});
  auto deliveries = [&](int64_t id) { return Get(id).deliveries; };
  // Every delivery ends (one failed after an attempt), but still_sending's stays pending.
  for (int64_t id : {open_old, resolved_old, resolved_new}) {
    for (const AlertDelivery& d : deliveries(id)) {
      ASSERT_TRUE(
          store_->RecordAlertAttempt(Attempt(d.id, 1, "delivered", 200, std::nullopt)).ok());
    }
  }
  ASSERT_TRUE(
      store_->RecordAlertAttempt(Attempt(deliveries(still_sending)[0].id, 1, "pending", 500, 9000))
          .ok());
  ASSERT_TRUE(store_->ResolveAlert(resolved_old, 2000).ok());
  ASSERT_TRUE(store_->ResolveAlert(still_sending, 2000).ok());
  ASSERT_TRUE(store_->ResolveAlert(resolved_new, 5000).ok());

  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(6000);
  policy.now_ms = 10000;  // cutoff 4000
  auto pruned = store_->Prune(policy);
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(pruned->history_rows_deleted, 1 + 2 + 2) << "the alert, its deliveries, their attempts";

  auto gone = store_->Read([&](Reader& r) { return r.GetAlert(resolved_old); });
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, StoreErrorCode::kNotFound);
  EXPECT_EQ(Get(open_old).state, "open");
  EXPECT_EQ(Get(still_sending).deliveries.size(), 1u);
  EXPECT_EQ(Get(still_sending).deliveries[0].attempt_log.size(), 1u);
  EXPECT_EQ(Get(resolved_new).state, "resolved");
  AlertQuery all;
  all.limit = 100;
  auto listed = store_->Read([&](Reader& r) { return r.ListAlerts(all); });
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->alerts.size(), 3u);
}

}  // namespace
}  // namespace droidlab::store
