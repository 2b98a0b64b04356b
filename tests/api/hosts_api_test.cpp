// GET /api/v1/hosts and PUT /api/v1/devices/{serial}/labels (issue 17 §2) over real HTTP, on
// hosts and devices seeded through the store; a device's host and labels in GET /devices; a
// run of a pool posted (`"pool"` and `"devices"`) and its refusals.
#include <nlohmann/json.hpp>
#include <set>
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

TEST_F(HostsApiTest, APoolOfRunsIsQueuedAsManyRunsEachForAPhoneOfItsOwn) {
  Start();
  const std::string body =
      R"({"pool":{"model":"Pixel 7","sdk":34,"labels":["nightly","usb3"]},"devices":3,)"
      R"("package":"com.example.app","mode":"cold","iterations":5})";
  Json created = Parse(Call("POST", "/api/v1/runs", body), 201);
  ASSERT_EQ(created["runs"].size(), 3u) << created.dump();
  std::set<int64_t> ids;
  for (const Json& run : created["runs"]) {
    ids.insert(run["id"].get<int64_t>());
    EXPECT_EQ(run["status"], "queued");
    EXPECT_EQ(run["pool"], true);
    EXPECT_TRUE(run["serial"].is_null()) << "no phone until a host claims it";
    EXPECT_TRUE(run["host"].is_null());
    EXPECT_EQ(run["spec"]["pool"]["model"], "Pixel 7");
    EXPECT_EQ(run["spec"]["pool"]["labels"], Json::array({"nightly", "usb3"}));
  }
  EXPECT_EQ(ids.size(), 3u);
  Json stored = Parse(Call("GET", "/api/v1/runs/" + std::to_string(*ids.begin())), 200);
  EXPECT_EQ(stored["pool"], true);
  EXPECT_EQ(stored["cancel_requested"], false);

  // One run of a pool is a run: `devices` may be left out.
  Json one = Parse(Call("POST", "/api/v1/runs",
                        R"({"pool":{},"package":"com.example.app","mode":"cold","iterations":1})"),
                   201);
  EXPECT_EQ(one["runs"].size(), 1u);
}

TEST_F(HostsApiTest, APoolRequestIsRefusedWithTheFieldThatIsWrong) {
  Start();
  auto refused = [&](const std::string& body, const std::string& field) {
    Response r = Call("POST", "/api/v1/runs", body);
    EXPECT_EQ(r.status, 400) << body << " → " << r.body;
    EXPECT_NE(r.body.find(field), std::string::npos) << body << " → " << r.body;
  };
  const std::string rest = R"("package":"com.example.app","mode":"cold","iterations":1)";
  refused(R"({"serial":"R5CT1","pool":{},)" + rest + "}", "pool");
  refused(R"({"serial":"R5CT1","devices":2,)" + rest + "}", "devices");
  refused(R"({"pool":{},"devices":0,)" + rest + "}", "devices");
  refused(R"({"pool":{},"devices":101,)" + rest + "}", "devices");
  refused(R"({"pool":{"labels":["-x"]},)" + rest + "}", "pool.labels[0]");
  refused(R"({"pool":{"sdk":0},)" + rest + "}", "pool.sdk");
  refused(R"({"pool":{"model":""},)" + rest + "}", "pool.model");
  refused(R"({"pool":{"colour":"red"},)" + rest + "}", "pool.colour");
  refused(R"({"pool":[],)" + rest + "}", "pool");
  refused("{" + rest + "}", "serial");
  Json runs = Parse(Call("GET", "/api/v1/runs"), 200)["runs"];
  EXPECT_TRUE(runs.empty()) << "nothing queued for a refused request";
}

}  // namespace
}  // namespace droidlab::api
