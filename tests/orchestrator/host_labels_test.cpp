// Device labels' grammar and body (orchestrator/spec/device_labels.h), a host's liveness and
// address (pure), and its registration and heartbeat on a real store
// (orchestrator/lab/host_registration.h).
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/lab/host_registration.h"
#include "orchestrator/spec/device_labels.h"
#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

using Json = nlohmann::json;

TEST(DeviceLabelsTest, ALabelIsLettersDigitsDotsUnderscoresAndDashes) {
  EXPECT_FALSE(WhyNotALabel("nightly"));
  EXPECT_FALSE(WhyNotALabel("Pixel-7_pro.v2"));
  EXPECT_FALSE(WhyNotALabel("7"));
  EXPECT_FALSE(WhyNotALabel(std::string(64, 'a')));
  EXPECT_TRUE(WhyNotALabel(std::string(65, 'a')));
  EXPECT_TRUE(WhyNotALabel(""));
  EXPECT_TRUE(WhyNotALabel("-rf"));
  EXPECT_TRUE(WhyNotALabel(".hidden"));
  EXPECT_TRUE(WhyNotALabel("a b"));
  EXPECT_TRUE(WhyNotALabel("a,b"));
  EXPECT_TRUE(WhyNotALabel("a\nb"));
  EXPECT_TRUE(WhyNotALabel("caf\xc3\xa9"));
  EXPECT_TRUE(WhyNotALabel("$(reboot)"));
}

TEST(DeviceLabelsTest, ABodyGivesTheLabelsSortedOnceEach) {
  auto labels = ParseDeviceLabelsBody(Json::parse(R"({"labels":["b","a","b"]})"));
  ASSERT_TRUE(labels) << labels.error().message;
  EXPECT_EQ(*labels, (std::vector<std::string>{"a", "b"}));
  auto none = ParseDeviceLabelsBody(Json::parse(R"({"labels":[]})"));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(DeviceLabelsTest, ABadBodyNamesTheField) {
  auto field_of = [](const char* body) {
    auto labels = ParseDeviceLabelsBody(Json::parse(body));
    return labels ? std::string("(accepted)") : labels.error().field;
  };
  EXPECT_EQ(field_of(R"([])"), "");
  EXPECT_EQ(field_of(R"({})"), "labels");
  EXPECT_EQ(field_of(R"({"labels":"a"})"), "labels");
  EXPECT_EQ(field_of(R"({"labels":["a",3]})"), "labels[1]");
  EXPECT_EQ(field_of(R"({"labels":["a","b c"]})"), "labels[1]");
  EXPECT_EQ(field_of(R"({"labels":[],"serial":"x"})"), "serial");
  Json many = {{"labels", Json::array()}};
  for (int i = 0; i < 33; ++i) many["labels"].push_back("l" + std::to_string(i));
  auto too_many = ParseDeviceLabelsBody(many);
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().field, "labels");
  many["labels"].erase(32);
  EXPECT_TRUE(ParseDeviceLabelsBody(many)) << "32 is the limit";
}

TEST(HostRegistrationTest, AHostIsAliveUntilThreeHeartbeatsAreMissed) {
  store::Host host;
  host.heartbeat_at = 1'000'000;
  EXPECT_TRUE(IsHostAlive(host, 1'000'000));
  EXPECT_TRUE(IsHostAlive(host, 1'030'000));
  EXPECT_FALSE(IsHostAlive(host, 1'030'001));
}

TEST(HostRegistrationTest, AnUnspecifiedListenAddressIsReplacedByTheHostName) {
  EXPECT_EQ(HostAddress("0.0.0.0", 8765, "lab-3"), "http://lab-3:8765");
  EXPECT_EQ(HostAddress("::", 8765, "lab-3"), "http://lab-3:8765");
  EXPECT_EQ(HostAddress("10.0.0.7", 80, "lab-3"), "http://10.0.0.7:80");
  EXPECT_EQ(HostAddress("::1", 8765, "lab-3"), "http://[::1]:8765");
  EXPECT_FALSE(MachineHostName().empty());
}

// The daemon's heartbeat: registered at once with started_at, heartbeat_at moved every interval
// (on the clock it is given), ended by a cancel.
TEST(HostRegistrationTest, AHostIsRegisteredThenItsHeartbeatMovesUntilCancelled) {
  namespace asio = boost::asio;
  testutil::TempDir dir;
  std::unique_ptr<store::Store> st = testutil::OpenTestStore(dir);
  ASSERT_TRUE(st);
  std::atomic<int64_t> now{1'000'000};
  HostRegistrationOptions options;
  options.interval = std::chrono::milliseconds(20);
  options.now_ms = [&now] { return now += 1000; };
  options.log = [](std::string_view) {};
  store::Host host;
  host.name = "lab-7";
  host.address = "http://lab-7:8765";
  host.version = "0.1.0";

  asio::io_context io;
  asio::cancellation_signal stop;
  bool ended = false;
  asio::co_spawn(io, KeepHostRegistered(*st, host, options),
                 asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e) {
                   EXPECT_FALSE(e);
                   ended = true;
                 }));
  auto stored = [&]() -> std::optional<store::Host> {
    auto hosts = st->Read([](store::Reader& r) { return r.ListHosts(); });
    if (!hosts || hosts->empty()) return std::nullopt;
    return hosts->front();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((!stored() || stored()->heartbeat_at < 1'004'000) &&
         std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
  }
  auto beating = stored();
  ASSERT_TRUE(beating) << "the host was never registered";
  EXPECT_EQ(beating->name, "lab-7");
  EXPECT_EQ(beating->address, "http://lab-7:8765");
  EXPECT_EQ(beating->started_at, 1'001'000) << "the first reading of the clock";
  EXPECT_GE(beating->heartbeat_at, 1'004'000) << "the heartbeat moves with each interval";

  stop.emit(asio::cancellation_type::terminal);
  while (!ended && std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(ended) << "a cancel ends the heartbeat";
}

// A stop that comes while the heartbeat is being stored (a daemon's SIGTERM at any moment): the
// heartbeat still ends quietly, not by asio's "Operation canceled" thrown at its next co_await
// (which the daemon logs as a critical bug).
TEST(HostRegistrationTest, ACancelWhileTheHeartbeatIsStoredEndsItQuietly) {
  namespace asio = boost::asio;
  testutil::TempDir dir;
  std::unique_ptr<store::Store> st = testutil::OpenTestStore(dir);
  ASSERT_TRUE(st);
  HostRegistrationOptions options;
  options.log = [](std::string_view) {};
  store::Host host;
  host.name = "lab-8";
  host.address = "http://lab-8:8765";
  host.version = "0.1.0";

  for (int attempt = 0; attempt < 20; ++attempt) {
    asio::io_context io;
    asio::cancellation_signal stop;
    bool ended = false;
    std::string thrown;
    asio::co_spawn(io, KeepHostRegistered(*st, host, options),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e) {
                     try {
                       if (e) std::rethrow_exception(e);
                     } catch (const std::exception& ex) {
                       thrown = ex.what();
                     }
                     ended = true;
                   }));
    io.poll();  // up to its first wait: the heartbeat handed to the store's writer
    stop.emit(asio::cancellation_type::terminal);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!ended && std::chrono::steady_clock::now() < deadline) {
      io.restart();
      io.run_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(ended) << "a cancel ends the heartbeat";
    EXPECT_EQ(thrown, "") << "attempt " << attempt;
  }
}

}  // namespace
}  // namespace droidlab::orchestrator
