// Device labels' grammar and body (orchestrator/spec/device_labels.h) and a host's liveness and
// address (orchestrator/lab/host_registration.h): pure.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/lab/host_registration.h"
#include "orchestrator/spec/device_labels.h"

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

}  // namespace
}  // namespace droidlab::orchestrator
