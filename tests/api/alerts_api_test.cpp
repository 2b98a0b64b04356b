// GET /api/v1/alerts, POST /api/v1/alerts/{id}/resolve and /metrics' droidlab_open_regressions
// over real HTTP, on alerts and delivery attempts seeded through the store.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

class AlertsApiTest : public ApiTest {
 protected:
  int64_t SeedAlert(const std::string& kind, const std::string& package, const std::string& model,
                    double delta, int64_t created_at, std::vector<std::string> urls = {}) {
    store::NewAlert alert;
    alert.kind = kind;
    alert.package = package;
    alert.model = model;
    alert.mode = "cold";
    alert.metric = "displayed_ms";
    alert.delta = delta;
    alert.delta_pct = delta / 4;
    alert.ci_low = delta / 4 - 1;
    alert.ci_high = delta / 4 + 1;
    alert.run_id = 9;
    alert.version_code = 300;
    alert.explained_by = {"build"};
    alert.created_at = created_at;
    std::vector<store::NewAlertDelivery> deliveries;
    for (const auto& url : urls) {
      deliveries.push_back(
          {url, "d" + std::to_string(created_at) + "-" + std::to_string(deliveries.size())});
    }
    auto id = store_->CreateAlert(alert, deliveries);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  Json Get(const std::string& target, int status = 200) {
    auto response = Call("GET", target);
    EXPECT_EQ(response.status, status) << target << ": " << response.body;
    return Json::parse(response.body);
  }
};

TEST_F(AlertsApiTest, ListsAlertsNewestFirstWithTheirDeliveriesAndPagesByState) {
  Start();
  const int64_t a = SeedAlert("regression", "com.example.a", "Pixel 7", 40, 1000,
                              {"http://hooks.example:8080/secret/path?token=x", "http://h2/"});
  const int64_t b = SeedAlert("change_point", "com.example.b", "Pixel 8", 20, 2000);
  const int64_t c = SeedAlert("regression", "com.example.c", "Pixel 7", 10, 3000);
  ASSERT_TRUE(store_->ResolveAlert(b, 2500));

  // The first delivery of `a`: a 503, then delivered.
  auto listed = store_->Read([](store::Reader& r) { return r.GetAlert(1); });
  ASSERT_TRUE(listed);
  const int64_t delivery = listed->deliveries.at(0).id;
  store::AlertAttemptRecord first;
  first.delivery_id = delivery;
  first.attempt = {1, 1100, 12, 503, "HTTP 503"};
  first.status_after = "pending";
  first.next_attempt_at = 1200;
  ASSERT_TRUE(store_->RecordAlertAttempt(first));
  store::AlertAttemptRecord second;
  second.delivery_id = delivery;
  second.attempt = {2, 1200, 8, 200, std::nullopt};
  second.status_after = "delivered";
  ASSERT_TRUE(store_->RecordAlertAttempt(second));

  Json all = Get("/api/v1/alerts");
  ASSERT_EQ(all["alerts"].size(), 3u);
  EXPECT_EQ(all["alerts"][0]["id"], c);
  EXPECT_EQ(all["alerts"][1]["id"], b);
  EXPECT_EQ(all["alerts"][2]["id"], a);
  EXPECT_TRUE(all["next_cursor"].is_null());
  const Json& alert_a = all["alerts"][2];
  EXPECT_EQ(alert_a["kind"], "regression");
  EXPECT_EQ(alert_a["state"], "open");
  EXPECT_EQ(alert_a["package"], "com.example.a");
  EXPECT_EQ(alert_a["model"], "Pixel 7");
  EXPECT_EQ(alert_a["mode"], "cold");
  EXPECT_EQ(alert_a["metric"], "displayed_ms");
  EXPECT_EQ(alert_a["delta"], 40.0);
  EXPECT_EQ(alert_a["delta_pct"], 10.0);
  EXPECT_EQ(alert_a["ci_low"], 9.0);
  EXPECT_EQ(alert_a["ci_high"], 11.0);
  EXPECT_EQ(alert_a["run_id"], 9);
  EXPECT_TRUE(alert_a["build_id"].is_null());
  EXPECT_EQ(alert_a["version_code"], 300);
  EXPECT_EQ(alert_a["explained_by"], Json::array({"build"}));
  ASSERT_EQ(alert_a["deliveries"].size(), 2u);
  const Json& d0 = alert_a["deliveries"][0];
  EXPECT_EQ(d0["webhook"], "http://hooks.example:8080/…");  // path and query are not shown
  EXPECT_EQ(all.dump().find("secret/path"), std::string::npos);
  EXPECT_EQ(d0["delivery_id"], "d1000-0");
  EXPECT_EQ(d0["status"], "delivered");
  EXPECT_EQ(d0["attempts"], 2);
  EXPECT_TRUE(d0["next_attempt_at"].is_null());
  EXPECT_EQ(d0["finished_at"], 1208);
  ASSERT_EQ(d0["attempt_log"].size(), 2u);
  EXPECT_EQ(d0["attempt_log"][0]["http_status"], 503);
  EXPECT_EQ(d0["attempt_log"][0]["error"], "HTTP 503");
  EXPECT_EQ(d0["attempt_log"][0]["duration_ms"], 12);
  EXPECT_EQ(d0["attempt_log"][1]["http_status"], 200);
  EXPECT_TRUE(d0["attempt_log"][1]["error"].is_null());
  const Json& d1 = alert_a["deliveries"][1];
  EXPECT_EQ(d1["status"], "pending");
  EXPECT_EQ(d1["attempts"], 0);
  EXPECT_EQ(d1["next_attempt_at"], 1000);

  Json open = Get("/api/v1/alerts?state=open&limit=1");
  ASSERT_EQ(open["alerts"].size(), 1u);
  EXPECT_EQ(open["alerts"][0]["id"], c);
  ASSERT_TRUE(open["next_cursor"].is_string());
  Json next =
      Get("/api/v1/alerts?state=open&limit=1&cursor=" + open["next_cursor"].get<std::string>());
  ASSERT_EQ(next["alerts"].size(), 1u);
  EXPECT_EQ(next["alerts"][0]["id"], a);  // b is resolved
  EXPECT_TRUE(next["next_cursor"].is_null());

  Json resolved = Get("/api/v1/alerts?state=resolved");
  ASSERT_EQ(resolved["alerts"].size(), 1u);
  EXPECT_EQ(resolved["alerts"][0]["state"], "resolved");
  EXPECT_EQ(resolved["alerts"][0]["resolved_at"], 2500);

  EXPECT_EQ(Get("/api/v1/alerts?state=closed", 400)["error"]["code"], "invalid_argument");
  EXPECT_EQ(Get("/api/v1/alerts?limit=0", 400)["error"]["code"], "invalid_argument");
  EXPECT_EQ(Get("/api/v1/alerts?limit=1001", 400)["error"]["code"], "invalid_argument");
  EXPECT_EQ(Get("/api/v1/alerts?cursor=r10000", 400)["error"]["code"], "invalid_argument");
}

TEST_F(AlertsApiTest, MetricsCountOpenRegressionsByPackageAndModel) {
  Start();
  SeedAlert("regression", "com.example.a", "Pixel 7", 40, 1000);
  SeedAlert("change_point", "com.example.a", "Pixel 7", 12, 1100);   // slower: counts
  SeedAlert("change_point", "com.example.a", "Pixel 7", -12, 1200);  // faster: does not
  const int64_t resolved = SeedAlert("regression", "com.example.a", "Pixel 8", 40, 1300);
  SeedAlert("regression", "com.example.b", "Pixel \"8\" Pro\\", 40, 1400);
  ASSERT_TRUE(store_->ResolveAlert(resolved, 1500));

  const std::string text = Call("GET", "/metrics").body;
  EXPECT_NE(text.find("# TYPE droidlab_open_regressions gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("droidlab_open_regressions{package=\"com.example.a\",model=\"Pixel 7\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("droidlab_open_regressions{package=\"com.example.b\",model=\"Pixel \\\"8\\\" "
                      "Pro\\\\\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("model=\"Pixel 8\""), std::string::npos) << text;  // resolved: gone

  // Read at scrape time: resolving the rest empties the gauge.
  for (int64_t id : {1, 2, 5}) ASSERT_TRUE(store_->ResolveAlert(id, 2000));
  const std::string after = Call("GET", "/metrics").body;
  EXPECT_EQ(after.find("droidlab_open_regressions{"), std::string::npos) << after;
}

// An operator closes an open alert: it leaves state=open and the gauge; a second resolve, an
// unknown id or a malformed one is a 404 and changes nothing.
TEST_F(AlertsApiTest, AnOperatorResolvesAnOpenAlert) {
  Start();
  const int64_t a = SeedAlert("regression", "com.example.a", "Pixel 7", 40, 1000);
  const int64_t b = SeedAlert("regression", "com.example.b", "Pixel 7", 40, 1100);

  auto response = Call("POST", "/api/v1/alerts/" + std::to_string(a) + "/resolve");
  ASSERT_EQ(response.status, 200) << response.body;
  Json body = Json::parse(response.body);
  EXPECT_EQ(body["id"], a);
  EXPECT_EQ(body["state"], "resolved");
  EXPECT_GT(body["resolved_at"].get<int64_t>(), 1'600'000'000'000);  // the wall clock, in ms

  Json open = Get("/api/v1/alerts?state=open");
  ASSERT_EQ(open["alerts"].size(), 1u);
  EXPECT_EQ(open["alerts"][0]["id"], b);
  Json resolved = Get("/api/v1/alerts?state=resolved");
  ASSERT_EQ(resolved["alerts"].size(), 1u);
  EXPECT_EQ(resolved["alerts"][0]["resolved_at"], body["resolved_at"]);
  const std::string metrics = Call("GET", "/metrics").body;
  EXPECT_EQ(metrics.find("package=\"com.example.a\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("package=\"com.example.b\""), std::string::npos) << metrics;

  auto again = Call("POST", "/api/v1/alerts/" + std::to_string(a) + "/resolve");
  EXPECT_EQ(again.status, 404) << again.body;
  EXPECT_EQ(Json::parse(again.body)["error"]["code"], "not_found");
  EXPECT_EQ(Call("POST", "/api/v1/alerts/999/resolve").status, 404);
  EXPECT_EQ(Call("POST", "/api/v1/alerts/x/resolve").status, 404);
  EXPECT_EQ(Get("/api/v1/alerts?state=open")["alerts"].size(), 1u);
}

}  // namespace
}  // namespace droidlab::api
