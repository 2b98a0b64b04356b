// Fleet health over real HTTP (issue 17 §3), on health samples and events seeded through the
// store: GET /api/v1/devices/{serial}/health (newest first, `since`, `limit`, a device never seen
// is 404), a quarantine on GET /devices and /devices/{serial}, and POST
// /devices/{serial}/release — once (a phone not quarantined is 409), named in the audit log and
// in the phone's history with the token that asked.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

const std::string kOps = "Authorization: Bearer ops-secret-1\r\n";

class DeviceHealthApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    store::Device d;
    d.serial = "A1";
    d.model = "Pixel 7";
    d.state = "device";
    d.first_seen = 100;
    d.last_seen = 100;
    d.host = "lab-a";
    ASSERT_TRUE(store_->UpsertDevice(d));
    ASSERT_TRUE(store_->Flush());
  }
  void StartWithToken() {
    ServerOptions options;
    options.tokens = {{"ops-anna", "ops-secret-1"}};
    Start(options);
  }
  void Sample(int64_t at, std::optional<int64_t> level) {
    store::DeviceHealthSample s;
    s.serial = "A1";
    s.host = "lab-a";
    s.at = at;
    s.uptime_ms = at * 10;
    s.battery_level = level;
    s.battery_temp = 312;
    s.thermal_status = 1;
    s.adb_commands = 3;
    s.adb_errors = 0;
    s.adb_ms = 42;
    ASSERT_TRUE(store_->RecordDeviceHealth(s));
  }
  Json Get(const std::string& target, int status = 200) {
    auto r = Call("GET", target, "", kOps);
    EXPECT_EQ(r.status, status) << target << ": " << r.body;
    return Json::parse(r.body, nullptr, false);
  }
};

TEST_F(DeviceHealthApiTest, ChecksComeNewestFirstWithinSinceAndLimit) {
  Sample(1000, 80);
  Sample(2000, std::nullopt);  // busy with a run: no battery reading
  Sample(3000, 78);
  StartWithToken();
  Json all = Get("/api/v1/devices/A1/health");
  ASSERT_EQ(all["samples"].size(), 3u) << all.dump();
  EXPECT_EQ(all["samples"][0]["at"], 3000);
  EXPECT_EQ(all["samples"][0]["battery_level"], 78);
  EXPECT_EQ(all["samples"][0]["battery_temp_tenths_c"], 312);
  EXPECT_EQ(all["samples"][0]["thermal_status"], 1);
  EXPECT_EQ(all["samples"][0]["answered"], true);
  EXPECT_EQ(all["samples"][0]["adb_commands"], 3);
  EXPECT_EQ(all["samples"][0]["adb_ms"], 42);
  EXPECT_EQ(all["samples"][1]["battery_level"], nullptr);
  EXPECT_EQ(all["quarantine"], nullptr);
  EXPECT_EQ(all["events"], Json::array());
  EXPECT_EQ(all["monitor"], nullptr) << "no monitor in this server";

  Json recent = Get("/api/v1/devices/A1/health?since=2000");
  ASSERT_EQ(recent["samples"].size(), 2u);
  EXPECT_EQ(recent["samples"][1]["at"], 2000);
  EXPECT_EQ(Get("/api/v1/devices/A1/health?limit=1")["samples"].size(), 1u);
  Get("/api/v1/devices/A1/health?limit=0", 400);
  Get("/api/v1/devices/A1/health?limit=10001", 400);
  Get("/api/v1/devices/A1/health?since=yesterday", 400);
  EXPECT_EQ(Get("/api/v1/devices/NOPE/health", 404)["error"]["code"], "not_found");
}

TEST_F(DeviceHealthApiTest, AQuarantineIsShownAndReleasedOnceByAName) {
  store::DeviceEvent quarantined;
  quarantined.serial = "A1";
  quarantined.host = "lab-a";
  quarantined.at = 5000;
  quarantined.kind = "quarantined";
  quarantined.detail = "stopped answering; the ladder did not bring it back";
  ASSERT_TRUE(store_->QuarantineDevice(quarantined));
  StartWithToken();

  Json device = Get("/api/v1/devices/A1");
  EXPECT_EQ(device["quarantine"]["since"], 5000) << device.dump();
  EXPECT_EQ(device["quarantine"]["reason"], quarantined.detail);
  EXPECT_EQ(Get("/api/v1/devices")["devices"][0]["quarantine"]["since"], 5000);
  Json health = Get("/api/v1/devices/A1/health");
  EXPECT_EQ(health["quarantine"]["reason"], quarantined.detail);
  ASSERT_EQ(health["events"].size(), 1u);
  EXPECT_EQ(health["events"][0]["kind"], "quarantined");

  EXPECT_EQ(Call("POST", "/api/v1/devices/A1/release").status, 401) << "a change needs a token";
  auto released = Call("POST", "/api/v1/devices/A1/release", "", kOps);
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_EQ(Json::parse(released.body)["quarantine"], nullptr);
  EXPECT_EQ(Get("/api/v1/devices/A1")["quarantine"], nullptr);
  auto again = Call("POST", "/api/v1/devices/A1/release", "", kOps);
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_NE(again.body.find("not quarantined"), std::string::npos) << again.body;
  EXPECT_EQ(Call("POST", "/api/v1/devices/NOPE/release", "", kOps).status, 404);

  Json events = Get("/api/v1/devices/A1/health")["events"];
  ASSERT_EQ(events.size(), 2u) << "the refused release adds nothing: " << events.dump();
  EXPECT_EQ(events[0]["kind"], "released");
  EXPECT_NE(events[0]["detail"].get<std::string>().find("ops-anna"), std::string::npos);
  Json audit = Get("/api/v1/audit")["entries"];
  ASSERT_EQ(audit.size(), 1u) << "only the release that changed something: " << audit.dump();
  EXPECT_EQ(audit[0]["path"], "/api/v1/devices/A1/release");
  EXPECT_EQ(audit[0]["caller"], "ops-anna");
}

}  // namespace
}  // namespace droidlab::api
