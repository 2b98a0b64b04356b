// Alerts end to end: AlertCenter (orchestrator/alerts) with the daemon's Beast transport
// (api/webhook_client.h) and a real store, against real webhook receivers on loopback port 0
// (webhook_receiver.h, which checks each signature with its own HMAC). One signed POST per alert
// and webhook; a 500 retried; a target that is down or never answers holds no other delivery
// and its attempts are recorded; a delivery left pending by a stopped daemon is sent by the next;
// https:// to a receiver whose certificate chains to the lab's CA and names its host, and not
// to one whose certificate does not (tests/data/tls, made by its make-fixtures.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/webhook_client.h"
#include "base/wall_clock.h"
#include "orchestrator/alerts/alert_center.h"
#include "store/async_store.h"
#include "tests/api/webhook_receiver.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_data.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;
using Json = nlohmann::json;
using std::chrono::milliseconds;
using testutil::WebhookReceiver;

Alert Regression(const std::string& package, double delta_pct) {
  Alert alert;
  alert.kind = "regression";
  alert.package = package;
  alert.model = "Pixel 7";
  alert.mode = "cold";
  alert.metric = "displayed_ms";
  alert.delta = 48.0;
  alert.delta_pct = delta_pct;
  alert.ci_low = delta_pct - 2;
  alert.ci_high = delta_pct + 2;
  alert.run_id = 41;
  alert.build_id = 7;
  alert.version_code = 1203;
  alert.explained_by = {"build", "quote \" and \\ back\nslash"};
  return alert;
}

// The daemon's transport, trusting the system's CAs and `ca_file`'s.
WebhookSender Sender(const std::string& ca_file = "") {
  auto sender = api::MakeWebhookSender(api::WebhookTlsOptions{ca_file});
  EXPECT_TRUE(sender) << sender.error();
  return sender ? *sender : WebhookSender();
}

WebhookReceiver::Tls ReceiverCertificate(const std::string& name) {
  return {testutil::TestDataPath("tls/" + name + ".pem"),
          testutil::TestDataPath("tls/" + name + ".key")};
}

asio::awaitable<void> RaiseAll(AlertCenter* center, std::vector<Alert> alerts,
                               std::vector<int64_t>* ids) {
  for (Alert& alert : alerts) {
    auto raising = center->Raise(std::move(alert));
    auto id = co_await std::move(raising);
    EXPECT_TRUE(id) << id.error().message;
    if (id) ids->push_back(*id);
  }
}

class AlertDeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  AlertCenterOptions Options(std::vector<WebhookTarget> webhooks) {
    AlertCenterOptions options;
    options.webhooks = std::move(webhooks);
    options.first_retry = milliseconds(1);
    options.max_retry = milliseconds(4);
    options.log = [this](std::string_view line) { log_.emplace_back(line); };
    options.on_attempt = [this](const store::AlertAttemptRecord& record) {
      attempts_.push_back(record);
      CheckUntil();
    };
    return options;
  }

  // Stops the center once the condition RunUntil waits for holds (called after each attempt,
  // and by receivers as a request arrives).
  void CheckUntil() {
    if (until_ && until_()) stop_.emit(asio::cancellation_type::terminal);
  }

  // Runs `center` (raising `alerts` first) until `until` holds after an attempt, then stops it
  // and runs the io_context until Run has returned. A guard stops it after `limit`, failing.
  void RunUntil(AlertCenter& center, std::vector<Alert> alerts, std::function<bool()> until,
                milliseconds limit = milliseconds(20'000)) {
    until_ = std::move(until);
    bool ended = false;
    auto running = center.Run();
    asio::co_spawn(io_, std::move(running),
                   asio::bind_cancellation_slot(stop_.slot(), [&ended](std::exception_ptr e) {
                     EXPECT_FALSE(e);
                     ended = true;
                   }));
    auto raising = RaiseAll(&center, std::move(alerts), &ids_);
    asio::co_spawn(io_, std::move(raising), [](std::exception_ptr e) { EXPECT_FALSE(e); });
    asio::steady_timer guard(io_, limit);
    bool timed_out = false;
    guard.async_wait([this, &timed_out](boost::system::error_code ec) {
      if (ec) return;
      timed_out = true;
      stop_.emit(asio::cancellation_type::terminal);
    });
    while (!ended) io_.run_one();
    guard.cancel();
    EXPECT_FALSE(timed_out) << "the condition did not hold within " << limit.count() << " ms";
    until_ = nullptr;
  }

  std::vector<store::Alert> Alerts() {
    auto page = store_->Read([](store::Reader& r) {
      store::AlertQuery query;
      query.limit = 1000;
      return r.ListAlerts(query);
    });
    EXPECT_TRUE(page) << page.error().message;
    return page ? page->alerts : std::vector<store::Alert>{};
  }

  size_t Finished(const std::string& status) const {
    size_t n = 0;
    for (const auto& a : attempts_) n += a.status_after == status ? 1 : 0;
    return n;
  }

  testutil::TempDir dir_;
  // Before the store, so it goes after it: the store's threads are joined while the io_context
  // their last completions were posted to still exists (a writer thread may still be inside
  // asio::post when the test's io thread has already run what it posted).
  asio::io_context io_;
  std::unique_ptr<store::Store> store_;
  asio::cancellation_signal stop_;
  std::function<bool()> until_;
  std::vector<store::AlertAttemptRecord> attempts_;
  std::vector<std::string> log_;
  std::vector<int64_t> ids_;
};

TEST_F(AlertDeliveryTest, EachAlertIsOneSignedPostToEachWebhook) {
  WebhookReceiver first(io_, "first secret", {200});
  WebhookReceiver second(io_, "second secret", {204});
  AlertCenter center(*store_, Sender(),
                     Options({{first.url(), "first secret"}, {second.url(), "second secret"}}));
  RunUntil(center, {Regression("com.example.a", 12.5), Regression("com.example.b", 7.0)},
           [&] { return Finished("delivered") == 4; });

  ASSERT_EQ(ids_.size(), 2u);
  std::set<std::string> delivery_ids;
  for (const WebhookReceiver* receiver : {&first, &second}) {
    ASSERT_EQ(receiver->posts().size(), 2u);  // exactly one per alert
    std::set<std::string> packages;
    for (const auto& post : receiver->posts()) {
      EXPECT_EQ(post.method, "POST");
      EXPECT_EQ(post.target, "/hooks/droidlab?token=t0ken");
      EXPECT_TRUE(post.signature_ok) << post.headers.at("x-droidlab-signature");
      EXPECT_EQ(post.headers.at("content-type"), "application/json");
      const Json body = Json::parse(post.body);
      EXPECT_EQ(body["delivery"]["id"], post.headers.at("x-droidlab-delivery"));
      EXPECT_EQ(body["delivery"]["attempt"], 1);
      EXPECT_EQ(std::to_string(body["delivery"]["sent_at"].get<int64_t>()),
                post.headers.at("x-droidlab-timestamp"));
      EXPECT_NEAR(static_cast<double>(body["delivery"]["sent_at"].get<int64_t>()),
                  static_cast<double>(WallNowMs()), 60'000.0);
      delivery_ids.insert(body["delivery"]["id"].get<std::string>());
      const Json& alert = body["alert"];
      packages.insert(alert["package"].get<std::string>());
      EXPECT_EQ(alert["kind"], "regression");
      EXPECT_EQ(alert["model"], "Pixel 7");
      EXPECT_EQ(alert["mode"], "cold");
      EXPECT_EQ(alert["metric"], "displayed_ms");
      EXPECT_EQ(alert["run_id"], 41);
      EXPECT_EQ(alert["build_id"], 7);
      EXPECT_EQ(alert["version_code"], 1203);
      EXPECT_EQ(alert["state"], "open");
      EXPECT_EQ(alert["explained_by"], Json::array({"build", "quote \" and \\ back\nslash"}));
      EXPECT_DOUBLE_EQ(alert["ci_high"].get<double>() - alert["ci_low"].get<double>(), 4.0);
    }
    EXPECT_EQ(packages, (std::set<std::string>{"com.example.a", "com.example.b"}));
  }
  EXPECT_EQ(delivery_ids.size(), 4u);  // one id per alert and webhook

  // A wrong secret is what the receiver's check catches.
  const auto& post = first.posts().front();
  EXPECT_NE(post.headers.at("x-droidlab-signature"),
            testutil::ExpectedSignature("second secret", post.body));

  for (const store::Alert& alert : Alerts()) {
    ASSERT_EQ(alert.deliveries.size(), 2u);
    for (const auto& d : alert.deliveries) {
      EXPECT_EQ(d.status, "delivered");
      EXPECT_EQ(d.attempts, 1);
      ASSERT_EQ(d.attempt_log.size(), 1u);
      EXPECT_TRUE(d.attempt_log[0].http_status == 200 || d.attempt_log[0].http_status == 204);
      EXPECT_FALSE(d.attempt_log[0].error);
      EXPECT_TRUE(d.finished_at);
    }
  }
}

TEST_F(AlertDeliveryTest, A500IsRetriedWithTheSameDeliveryIdThenDelivered) {
  WebhookReceiver receiver(io_, "s3cret", {500, 200});
  AlertCenter center(*store_, Sender(), Options({{receiver.url(), "s3cret"}}));
  RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return Finished("delivered") == 1; });

  ASSERT_EQ(receiver.posts().size(), 2u);
  const Json first = Json::parse(receiver.posts()[0].body);
  const Json second = Json::parse(receiver.posts()[1].body);
  EXPECT_EQ(first["delivery"]["id"], second["delivery"]["id"]);
  EXPECT_EQ(first["delivery"]["attempt"], 1);
  EXPECT_EQ(second["delivery"]["attempt"], 2);
  EXPECT_TRUE(receiver.posts()[0].signature_ok);
  EXPECT_TRUE(receiver.posts()[1].signature_ok);

  const auto alerts = Alerts();
  ASSERT_EQ(alerts.size(), 1u);
  ASSERT_EQ(alerts[0].deliveries.size(), 1u);
  const store::AlertDelivery& d = alerts[0].deliveries[0];
  EXPECT_EQ(d.status, "delivered");
  EXPECT_EQ(d.attempts, 2);
  ASSERT_EQ(d.attempt_log.size(), 2u);
  EXPECT_EQ(d.attempt_log[0].http_status, 500);
  EXPECT_EQ(d.attempt_log[0].error, "HTTP 500");
  EXPECT_EQ(d.attempt_log[1].http_status, 200);
  EXPECT_GE(d.attempt_log[1].started_at, d.attempt_log[0].started_at);
}

TEST_F(AlertDeliveryTest, TargetsThatAreDownOrSilentHoldNoOtherDeliveryAndAreRecorded) {
  // A closed port: connections are refused.
  uint16_t closed_port = 0;
  {
    asio::ip::tcp::acceptor probe(io_, {asio::ip::make_address("127.0.0.1"), 0});
    closed_port = probe.local_endpoint().port();
  }
  const std::string down = "http://127.0.0.1:" + std::to_string(closed_port) + "/hook";
  WebhookReceiver silent(io_, "x", {}, /*hang=*/true);  // reads the POST, never answers
  silent.on_post([this] { CheckUntil(); });             // it may be the last of the three to happen
  WebhookReceiver good(io_, "good", {200});
  AlertCenterOptions options = Options({{silent.url(), "x"}, {down, "d"}, {good.url(), "good"}});
  options.max_attempts = 3;
  options.attempt_timeout = milliseconds(120'000);  // the silent one never times out here
  AlertCenter center(*store_, Sender(), options);

  RunUntil(center, {Regression("com.example.a", 12.5)}, [&] {
    return Finished("delivered") == 1 && Finished("failed") == 1 && silent.held() == 1;
  });
  // The good target got its alert and the down one used its three attempts while the silent one
  // still held its only attempt; stopping cut that one short, unrecorded.
  EXPECT_EQ(good.posts().size(), 1u);
  EXPECT_EQ(silent.posts().size(), 1u);
  const auto alerts = Alerts();
  ASSERT_EQ(alerts.size(), 1u);
  ASSERT_EQ(alerts[0].deliveries.size(), 3u);
  const auto& held = alerts[0].deliveries[0];
  EXPECT_EQ(held.status, "pending");
  EXPECT_EQ(held.attempts, 0);
  EXPECT_TRUE(held.attempt_log.empty());
  const auto& refused = alerts[0].deliveries[1];
  EXPECT_EQ(refused.url, down);
  EXPECT_EQ(refused.status, "failed");
  EXPECT_EQ(refused.attempts, 3);
  ASSERT_EQ(refused.attempt_log.size(), 3u);
  for (const auto& a : refused.attempt_log) {
    EXPECT_FALSE(a.http_status);
    ASSERT_TRUE(a.error);
    EXPECT_NE(a.error->find("refused"), std::string::npos) << *a.error;
  }
  EXPECT_EQ(alerts[0].deliveries[2].status, "delivered");
}

TEST_F(AlertDeliveryTest, ADeliveryPendingAtShutdownIsSentByTheNextDaemon) {
  WebhookReceiver receiver(io_, "s3cret", {503});
  {
    AlertCenterOptions options = Options({{receiver.url(), "s3cret"}});
    options.first_retry = std::chrono::hours(1);  // not again in this daemon's life
    options.max_retry = std::chrono::hours(1);
    AlertCenter center(*store_, Sender(), options);
    RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return attempts_.size() == 1; });
  }
  ASSERT_EQ(receiver.posts().size(), 1u);
  store_.reset();  // the daemon stops

  receiver.set_statuses({200});
  store_ = testutil::OpenTestStore(dir_);
  ASSERT_TRUE(store_);
  auto before = Alerts();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_EQ(before[0].deliveries.size(), 1u);
  EXPECT_EQ(before[0].deliveries[0].status, "pending");
  EXPECT_EQ(before[0].deliveries[0].attempts, 1);

  AlertCenterOptions options = Options({{receiver.url(), "s3cret"}});
  options.now_ms = [] { return WallNowMs() + 2 * 3'600'000; };  // the retry is due
  AlertCenter center(*store_, Sender(), options);
  RunUntil(center, {}, [&] { return Finished("delivered") == 1; });

  ASSERT_EQ(receiver.posts().size(), 2u);
  const Json first = Json::parse(receiver.posts()[0].body);
  const Json second = Json::parse(receiver.posts()[1].body);
  EXPECT_EQ(first["delivery"]["id"], second["delivery"]["id"]);
  EXPECT_EQ(second["delivery"]["attempt"], 2);
  EXPECT_TRUE(receiver.posts()[1].signature_ok);
  const auto after = Alerts();
  EXPECT_EQ(after[0].deliveries[0].status, "delivered");
  ASSERT_EQ(after[0].deliveries[0].attempt_log.size(), 2u);
  EXPECT_EQ(after[0].deliveries[0].attempt_log[0].http_status, 503);
}

// Several daemons on one database (issue 17 §2): each raises alerts, only the one doing the lab's
// chores delivers them; another daemon's alert is delivered once the chores are this one's.
TEST_F(AlertDeliveryTest, OnlyTheDaemonDoingTheLabsChoresDelivers) {
  WebhookReceiver receiver(io_, "s3cret", {200});
  AlertCenterOptions options = Options({{receiver.url(), "s3cret"}});
  int asked = 0;
  options.leading = [&] { return ++asked > 3; };
  options.lead_check = milliseconds(20);
  AlertCenter center(*store_, Sender(), options);
  RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return Finished("delivered") == 1; });
  EXPECT_GT(asked, 3) << "nothing was sent while another daemon did the chores";
  ASSERT_EQ(receiver.posts().size(), 1u);
  const auto alerts = Alerts();
  ASSERT_EQ(alerts.size(), 1u) << "raised by this daemon all the same";
  ASSERT_EQ(alerts[0].deliveries.size(), 1u);
  EXPECT_EQ(alerts[0].deliveries[0].attempts, 1);
}

// The store refuses an attempt's record (here: another writer took that attempt number first;
// a full disk does the same): the delivery still reads as due, yet the next POST waits for the
// back-off instead of following at once, again and again.
TEST_F(AlertDeliveryTest, AnAttemptTheStoreDidNotTakeIsNotRepeatedAtOnce) {
  WebhookReceiver receiver(io_, "s3cret", {500, 200});
  receiver.on_post([this, &receiver] {
    if (receiver.posts().size() != 1) return;
    const auto pending = store_->Read([](store::Reader& r) { return r.PendingAlertDeliveries(1); });
    ASSERT_TRUE(pending && pending->size() == 1);
    store::AlertAttemptRecord first;  // attempt 1 recorded behind the center's back, due again
    first.delivery_id = (*pending)[0].delivery.id;
    first.attempt = {1, 1, 1, std::nullopt, "elsewhere"};
    first.status_after = "pending";
    first.next_attempt_at = 0;
    ASSERT_TRUE(store_->RecordAlertAttempt(first));
  });
  AlertCenterOptions options = Options({{receiver.url(), "s3cret"}});
  options.first_retry = milliseconds(300);
  options.max_retry = milliseconds(300);
  AlertCenter center(*store_, Sender(), options);
  RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return Finished("delivered") == 1; });

  ASSERT_EQ(receiver.posts().size(), 2u);
  const Json first = Json::parse(receiver.posts()[0].body);
  const Json second = Json::parse(receiver.posts()[1].body);
  EXPECT_EQ(first["delivery"]["attempt"], 1);
  EXPECT_EQ(second["delivery"]["attempt"], 2);
  EXPECT_GE(
      second["delivery"]["sent_at"].get<int64_t>() - first["delivery"]["sent_at"].get<int64_t>(),
      300);
  bool refused_logged = false;
  for (const auto& line : log_) refused_logged |= line.find("not recorded") != std::string::npos;
  EXPECT_TRUE(refused_logged);
}

TEST_F(AlertDeliveryTest, AWebhookNoLongerConfiguredFailsItsPendingDelivery) {
  WebhookReceiver receiver(io_, "s3cret", {200});
  store::NewAlert alert = Regression("com.example.a", 12.5);
  alert.created_at = WallNowMs();
  auto id = store_->CreateAlert(alert, {{"http://127.0.0.1:1/removed", "0123"}});
  ASSERT_TRUE(id) << id.error().message;
  AlertCenter center(*store_, Sender(), Options({{receiver.url(), "s3cret"}}));
  RunUntil(center, {}, [&] { return Finished("failed") == 1; });
  EXPECT_TRUE(receiver.posts().empty());
  const auto alerts = Alerts();
  ASSERT_EQ(alerts[0].deliveries.size(), 1u);
  EXPECT_EQ(alerts[0].deliveries[0].status, "failed");
  EXPECT_EQ(alerts[0].deliveries[0].attempt_log.at(0).error,
            "this webhook is no longer configured");
}

// Issue 15 §4: https:// webhooks (Slack's, Teams', most receivers'). The receiver's certificate
// chains to the lab's CA (alerts.ca_file) and names 127.0.0.1 and localhost: delivered, signed,
// whether the URL names the address or the host (sent as SNI).
TEST_F(AlertDeliveryTest, AnHttpsWebhookWhoseCertificateTheLabTrustsIsDelivered) {
  WebhookReceiver by_address(io_, "s3cret", {200}, false, ReceiverCertificate("receiver"));
  WebhookReceiver by_name(io_, "s3cret", {204}, false, ReceiverCertificate("receiver"));
  ASSERT_EQ(by_address.url().rfind("https://127.0.0.1:", 0), 0u) << by_address.url();
  AlertCenter center(*store_, Sender(testutil::TestDataPath("tls/ca.pem")),
                     Options({{by_address.url(), "s3cret"}, {by_name.url("localhost"), "s3cret"}}));
  RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return Finished("delivered") == 2; });
  for (const WebhookReceiver* receiver : {&by_address, &by_name}) {
    ASSERT_EQ(receiver->posts().size(), 1u);
    EXPECT_TRUE(receiver->posts()[0].signature_ok);
    EXPECT_EQ(receiver->posts()[0].target, "/hooks/droidlab?token=t0ken");
    EXPECT_EQ(Json::parse(receiver->posts()[0].body)["alert"]["package"], "com.example.a");
    EXPECT_EQ(receiver->failed_handshakes(), 0);
  }
}

// A certificate no trusted CA signed (the system's store only: the lab's CA not given), and one
// the lab's CA signed for another host: no request is sent over either, and each attempt is
// recorded with OpenSSL's reason — the delivery fails like a refused connection (then retried).
TEST_F(AlertDeliveryTest, AnHttpsWebhookWithAnUntrustedOrMisnamedCertificateGetsNothing) {
  WebhookReceiver untrusted(io_, "s3cret", {200}, false, ReceiverCertificate("receiver"));
  WebhookReceiver misnamed(io_, "s3cret", {200}, false, ReceiverCertificate("elsewhere"));
  // The misnamed one by the name `localhost`, which its certificate does not carry.
  for (const auto& [receiver, url, ca_file] :
       {std::tuple{&untrusted, untrusted.url(), std::string()},
        std::tuple{&misnamed, misnamed.url("localhost"), testutil::TestDataPath("tls/ca.pem")}}) {
    attempts_.clear();
    auto options = Options({{url, "s3cret"}});
    options.max_attempts = 1;
    AlertCenter center(*store_, Sender(ca_file), options);
    RunUntil(center, {Regression("com.example.a", 12.5)}, [&] { return Finished("failed") == 1; });
    EXPECT_TRUE(receiver->posts().empty()) << url;
    EXPECT_GE(receiver->failed_handshakes(), 1) << url;
  }
  std::vector<std::string> errors;
  for (const store::Alert& alert : Alerts()) {
    for (const auto& d : alert.deliveries) {
      EXPECT_EQ(d.status, "failed");
      ASSERT_EQ(d.attempt_log.size(), 1u);
      EXPECT_FALSE(d.attempt_log[0].http_status);
      errors.push_back(d.attempt_log[0].error.value_or(""));
    }
  }
  ASSERT_EQ(errors.size(), 2u);
  std::sort(errors.begin(), errors.end());
  const std::string all = errors[0] + " | " + errors[1];
  EXPECT_NE(errors[0].find("TLS handshake with 127.0.0.1: certificate verify failed"),
            std::string::npos)
      << all;
  EXPECT_NE(errors[0].find("(unable to get local issuer certificate)"), std::string::npos) << all;
  EXPECT_NE(errors[1].find("TLS handshake with localhost: certificate verify failed"),
            std::string::npos)
      << all;
  EXPECT_NE(errors[1].find("(hostname mismatch)"), std::string::npos) << all;
}

}  // namespace
}  // namespace droidlab::orchestrator
