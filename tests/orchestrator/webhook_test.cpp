// The pure parts of a webhook delivery (orchestrator/alerts/webhook.h, webhook_url.h): the
// signature against RFC 4231's HMAC-SHA256 vector, the back-off, the URLs accepted and refused,
// what the API shows of one, and the body's shape.
#include "orchestrator/alerts/webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace droidlab::orchestrator {
namespace {

using std::chrono::milliseconds;

TEST(WebhookTest, SignatureIsHmacSha256OfTheBodyAsRfc4231Says) {
  // RFC 4231, test case 2.
  EXPECT_EQ(SignWebhookBody("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_NE(SignWebhookBody("Jefe", "what do ya want for nothing!"),
            SignWebhookBody("Jefe", "what do ya want for nothing?"));
}

TEST(WebhookTest, RetryDelayDoublesUpToItsBound) {
  EXPECT_EQ(RetryDelay(1, milliseconds(30'000), milliseconds(3'600'000)), milliseconds(30'000));
  EXPECT_EQ(RetryDelay(2, milliseconds(30'000), milliseconds(3'600'000)), milliseconds(60'000));
  EXPECT_EQ(RetryDelay(7, milliseconds(30'000), milliseconds(3'600'000)), milliseconds(1'920'000));
  EXPECT_EQ(RetryDelay(8, milliseconds(30'000), milliseconds(3'600'000)), milliseconds(3'600'000));
  EXPECT_EQ(RetryDelay(1'000'000, milliseconds(30'000), milliseconds(3'600'000)),
            milliseconds(3'600'000));
}

TEST(WebhookTest, HttpAndHttpsUrlsAreSplitForTheTransport) {
  auto plain = ParseWebhookUrl("http://hooks.lab");
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(plain->host, "hooks.lab");
  EXPECT_EQ(plain->port, 80);
  EXPECT_EQ(plain->target, "/");
  auto full = ParseWebhookUrl("http://10.0.0.5:9000/a/b?token=x&y=1");
  ASSERT_TRUE(full) << full.error();
  EXPECT_EQ(full->host, "10.0.0.5");
  EXPECT_EQ(full->port, 9000);
  EXPECT_EQ(full->target, "/a/b?token=x&y=1");
  auto v6 = ParseWebhookUrl("http://[::1]:8080?q");
  ASSERT_TRUE(v6) << v6.error();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 8080);
  EXPECT_EQ(v6->target, "/?q");
  EXPECT_FALSE(v6->tls);
  auto tls = ParseWebhookUrl("https://hooks.slack.example/services/T0/B0/XXXX");
  ASSERT_TRUE(tls) << tls.error();
  EXPECT_TRUE(tls->tls);
  EXPECT_EQ(tls->host, "hooks.slack.example");
  EXPECT_EQ(tls->port, 443) << "https's own port when none is given";
  EXPECT_EQ(tls->target, "/services/T0/B0/XXXX");
  auto tls_port = ParseWebhookUrl("https://127.0.0.1:8443");
  ASSERT_TRUE(tls_port) << tls_port.error();
  EXPECT_EQ(tls_port->port, 8443);
}

TEST(WebhookTest, OtherUrlsAreRefusedSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"ftp://hooks.lab/x", "expected an http:// or https:// URL"},
      {"hooks.lab/x", "expected an http:// or https:// URL"},
      {"https://:443/x", "no host"},
      {"https://user@h/x", "user info"},
      {"http:///x", "no host"},
      {"http://h:0/x", "port must be 1 to 65535"},
      {"http://h:65536/x", "port must be 1 to 65535"},
      {"http://h:/x", "empty port"},
      {"http://h:8a/x", "port must be 1 to 65535"},
      {"http://user:pw@h/x", "user info"},
      {"http://h/x#frag", "no fragment"},
      {"http://h/a b", "no spaces"},
      {"http://[::1/x", "unclosed '['"},
  };
  for (const auto& [url, why] : cases) {
    auto parsed = ParseWebhookUrl(url);
    ASSERT_FALSE(parsed) << url;
    EXPECT_NE(parsed.error().find(why), std::string::npos) << url << ": " << parsed.error();
  }
}

TEST(WebhookTest, TheApiShowsSchemeHostAndPortOnly) {
  EXPECT_EQ(RedactedWebhookUrl("http://hooks.slack.example/services/T0/B0/XXXX"),
            "http://hooks.slack.example/…");
  EXPECT_EQ(RedactedWebhookUrl("http://h:9000?token=x"), "http://h:9000/…");
  EXPECT_EQ(RedactedWebhookUrl("http://h:9000"), "http://h:9000");
}

TEST(WebhookTest, TheBodyCarriesTheDeliveryAndTheAlert) {
  store::Alert alert;
  alert.id = 3;
  alert.kind = "change_point";
  alert.state = "open";
  alert.package = "com.example";
  alert.model = "Pixel 7";
  alert.mode = "cold";
  alert.metric = "displayed_ms";
  alert.delta_pct = 6.5;
  alert.explained_by = {"fingerprint"};
  alert.created_at = 10;
  store::AlertDelivery delivery;
  delivery.delivery_id = "abc";
  const auto body = nlohmann::json::parse(WebhookBody(alert, delivery, 2, 12345));
  EXPECT_EQ(body["delivery"], (nlohmann::json{{"id", "abc"}, {"attempt", 2}, {"sent_at", 12345}}));
  EXPECT_EQ(body["alert"]["id"], 3);
  EXPECT_EQ(body["alert"]["kind"], "change_point");
  EXPECT_EQ(body["alert"]["delta_pct"], 6.5);
  EXPECT_TRUE(body["alert"]["delta"].is_null());
  EXPECT_EQ(body["alert"]["explained_by"], nlohmann::json::array({"fingerprint"}));

  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = NewDeliveryId();
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
}

}  // namespace
}  // namespace droidlab::orchestrator
