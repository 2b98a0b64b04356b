// GET /api/v1/hosts and PUT /api/v1/devices/{serial}/labels (issue 17 §2) over real HTTP, on
// hosts and devices seeded through the store; a device's host and labels in GET /devices.
#include <nlohmann/json.hpp>
#include <string>

#include "base/wall_clock.h"
#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

class HostsApiTest : public ApiTest {
 protected:
  void SeedDevice(const std::string& serial, const std::string& host, const std::string& state) {
    store::Device d;
    d.serial = serial;
    d.model = "Pixel 7";
    d.state = state;
    d.first_seen = 100;
    d.last_seen = 100;
    d.host = host;
    ASSERT_TRUE(store_->UpsertDevice(d));
    ASSERT_TRUE(store_->Flush());
  }

  Json Parse(const Response& response, int status) {
    EXPECT_EQ(response.status, status) << response.body;
    return Json::parse(response.body, nullptr, false);
  }
};

TEST_F(HostsApiTest, ListsEveryHostWithItsHeartbeatAndTheDevicesItHolds) {
  const int64_t now = WallNowMs();
  ASSERT_TRUE(store_->UpsertHost({"lab-a", "http://lab-a:8765", "0.1.0", now - 60'000, now}));
  ASSERT_TRUE(
      store_->UpsertHost({"lab-b", "http://10.1.1.2:8765", "0.0.9", now - 900'000, now - 600'000}));
  SeedDevice("A1", "lab-a", "device");
  SeedDevice("A2", "lab-a", "offline");
  SeedDevice("A3", "lab-a", "disconnected");
  SeedDevice("B1", "lab-b", "device");
  Start();

  Json hosts = Parse(Call("GET", "/api/v1/hosts"), 200)["hosts"];
  ASSERT_EQ(hosts.size(), 2u) << hosts.dump();
  EXPECT_EQ(hosts[0]["name"], "lab-a");
  EXPECT_EQ(hosts[0]["address"], "http://lab-a:8765");
  EXPECT_EQ(hosts[0]["alive"], true);
  EXPECT_EQ(hosts[0]["devices"], 2) << "a disconnected phone is not held";
  EXPECT_EQ(hosts[1]["name"], "lab-b");
  EXPECT_EQ(hosts[1]["alive"], false) << "no heartbeat for ten minutes";
  EXPECT_EQ(hosts[1]["version"], "0.0.9");
  EXPECT_EQ(hosts[1]["heartbeat_at"], now - 600'000);

  Json devices = Parse(Call("GET", "/api/v1/devices"), 200)["devices"];
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[3]["serial"], "B1");
  EXPECT_EQ(devices[3]["host"], "lab-b");
  EXPECT_EQ(devices[3]["labels"], Json::array());
}

TEST_F(HostsApiTest, LabelsAreSetWholeCheckedAndShownOnTheDevice) {
  SeedDevice("A1", "lab-a", "device");
  Start();
  Json set = Parse(
      Call("PUT", "/api/v1/devices/A1/labels", R"({"labels":["nightly","pixel-7","nightly"]})"),
      200);
  EXPECT_EQ(set["serial"], "A1");
  EXPECT_EQ(set["labels"], Json::parse(R"(["nightly","pixel-7"])")) << "sorted, each once";
  EXPECT_EQ(Parse(Call("GET", "/api/v1/devices/A1"), 200)["labels"],
            Json::parse(R"(["nightly","pixel-7"])"));

  Json refused =
      Parse(Call("PUT", "/api/v1/devices/A1/labels", R"({"labels":["ok","rm -rf /"]})"), 400);
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("labels[1]"), std::string::npos)
      << refused.dump();
  Parse(Call("PUT", "/api/v1/devices/A1/labels", R"({"labels":"nightly"})"), 400);
  Parse(Call("PUT", "/api/v1/devices/A1/labels", R"({"label":["x"]})"), 400);
  Parse(
      Call("PUT", "/api/v1/devices/A1/labels", R"({"labels":[")" + std::string(65, 'a') + R"("]})"),
      400);
  EXPECT_EQ(Parse(Call("GET", "/api/v1/devices/A1"), 200)["labels"],
            Json::parse(R"(["nightly","pixel-7"])"))
      << "a refused body changes nothing";

  Json unknown = Parse(Call("PUT", "/api/v1/devices/NOPE/labels", R"({"labels":["x"]})"), 404);
  EXPECT_EQ(unknown["error"]["code"], "not_found");

  Json cleared = Parse(Call("PUT", "/api/v1/devices/A1/labels", R"({"labels":[]})"), 200);
  EXPECT_EQ(cleared["labels"], Json::array());
}

}  // namespace
}  // namespace droidlab::api
