// Alert delivery through the real `droidlab serve`: a delivery left pending in the database (a
// daemon stopped before sending it) is sent by the next daemon to the webhook its config names,
// signed with that webhook's secret, over https to a receiver whose certificate the config's
// alerts.ca_file trusts, and GET /api/v1/alerts then shows it delivered. The wiring of config →
// AlertCenter → the Beast transport, which tests/api/alert_delivery_test.cpp covers piece by
// piece. A ca_file that holds no certificate stops the daemon before it serves (exit 2).
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "base/wall_clock.h"
#include "store/store.h"
#include "tests/api/webhook_receiver.h"
#include "tests/common/child_process.h"
#include "tests/common/http_client.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_data.h"
#include "tests/common/wait_until.h"

namespace droidlab {
namespace {

using Json = nlohmann::json;

TEST(ServeAlertsTest, APendingDeliveryIsSentSignedByTheNextDaemon) {
  testutil::TempDir dir;
  const std::string db = dir.File("droidlab.db");
  boost::asio::io_context io;
  testutil::WebhookReceiver receiver(
      io, "the shared secret", {200}, false,
      testutil::WebhookReceiver::Tls{testutil::TestDataPath("tls/receiver.pem"),
                                     testutil::TestDataPath("tls/receiver.key")});
  ASSERT_EQ(receiver.url().rfind("https://", 0), 0u);
  std::promise<void> posted;
  receiver.on_post([&posted] { posted.set_value(); });
  {
    store::StoreOptions options;
    options.path = db;
    auto st = store::Store::Open(options);
    ASSERT_TRUE(st) << st.error().message;
    store::NewAlert alert;
    alert.kind = "regression";
    alert.package = "com.example.app";
    alert.model = "Pixel 7";
    alert.mode = "cold";
    alert.metric = "displayed_ms";
    alert.delta_pct = 11.0;
    alert.created_at = WallNowMs();
    auto id = (*st)->CreateAlert(alert, {{receiver.url(), "left-by-the-last-daemon"}});
    ASSERT_TRUE(id) << id.error().message;
  }
  const std::string config = dir.File("droidlab.json");
  testutil::WriteFileBytes(
      config, Json{{"alerts",
                    {{"webhooks",
                      Json::array({{{"url", receiver.url()}, {"secret", "the shared secret"}}})},
                     {"ca_file", testutil::TestDataPath("tls/ca.pem")}}}}
                  .dump());
  std::thread receiving([&io] { io.run(); });

  testutil::ChildProcess daemon({DROIDLAB_BINARY, "serve", "--db", db, "--config", config,
                                 "--listen", "127.0.0.1:0", "--adb-path", "", "--adb-server",
                                 "tcp:127.0.0.1:1"});
  auto line = daemon.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line);
  const size_t at = line->find("127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << *line;
  const auto port = static_cast<uint16_t>(std::stoi(line->substr(at + 10)));

  auto arrived = posted.get_future();
  const bool got_it = arrived.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  ASSERT_TRUE(got_it) << "no POST reached the webhook";
  ASSERT_EQ(receiver.posts().size(), 1u);
  const testutil::ReceivedPost& post = receiver.posts()[0];
  EXPECT_TRUE(post.signature_ok) << post.headers.at("x-droidlab-signature");
  const Json body = Json::parse(post.body);
  EXPECT_EQ(body["delivery"]["id"], "left-by-the-last-daemon");
  EXPECT_EQ(body["alert"]["package"], "com.example.app");
  EXPECT_EQ(post.headers.at("user-agent").rfind("droidlab/", 0), 0u);

  // The daemon records the attempt once the answer is in: read it back through its API.
  std::string status;
  const bool delivered = testutil::WaitUntil(
      [&] {
        testutil::RawHttpClient client(port);
        client.Send(testutil::HttpRequestBytes("GET", "/api/v1/alerts", "", "", true));
        auto responses = client.Read(1);
        if (responses.size() != 1) return false;
        const Json alerts = Json::parse(responses[0].body);
        status = alerts["alerts"][0]["deliveries"][0]["status"].get<std::string>();
        return status == "delivered";
      },
      std::chrono::seconds(20));
  EXPECT_TRUE(delivered);
  EXPECT_EQ(status, "delivered");
  EXPECT_EQ(daemon.Stop(), 0);
  io.stop();
  receiving.join();
}

TEST(ServeAlertsTest, ACaFileThatHoldsNoCertificateStopsTheDaemonBeforeItServes) {
  testutil::TempDir dir;
  const std::string not_pem = dir.File("ca.pem");
  testutil::WriteFileBytes(not_pem, "not a certificate\n");
  const std::string config = dir.File("droidlab.json");
  testutil::WriteFileBytes(config, Json{{"alerts", {{"ca_file", not_pem}}}}.dump());
  auto refused = testutil::RunProcess({DROIDLAB_BINARY, "serve", "--db", dir.File("droidlab.db"),
                                       "--config", config, "--listen", "127.0.0.1:0", "--adb-path",
                                       "", "--adb-server", "tcp:127.0.0.1:1"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(refused.out.empty()) << "it never listened: " << refused.out;
  const std::string& err = refused.err;
  EXPECT_NE(err.find("alerts.ca_file " + not_pem + ": not read as PEM CA certificates"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace droidlab
