// Fleet health through `droidlab serve` (issue 17 §3): a phone that stops answering climbs the
// recovery ladder, is quarantined, is shown so on GET /devices/{serial} and /health and on
// /metrics, takes no run of a pool while out (the healthy phone takes them all), and comes back
// when an operator releases it — POST /devices/{serial}/release, recorded in the audit log and in
// the phone's history under the name of the token that asked. Real adb server, devsim phones,
// the daemon as a process.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/http_client.h"
#include "tests/common/temp_dir.h"
#include "tests/common/wait_until.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string Path(const std::string& serial) {
  std::string out;
  for (char c : serial) out += c == ':' ? std::string("%3A") : std::string(1, c);
  return "/api/v1/devices/" + out;
}

class FleetHealthServeE2eTest : public DaemonLabTest {
 protected:
  HttpResponse Call(uint16_t port, const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return HttpCall(port, method, target, body, "Authorization: Bearer " + api_token_ + "\r\n");
  }
};

TEST_F(FleetHealthServeE2eTest, AQuarantinedPhoneIsOutOfThePoolUntilAnOperatorReleasesIt) {
  const auto phones = StartDevsim({"--port", "0", "--count", "2", "--fast"}, 2);
  ASSERT_EQ(phones.size(), 2u);
  for (const auto& p : phones) WaitForDevice(server_, p.address);
  const auto& dead = phones[0];
  const auto& healthy = phones[1];

  const std::string config = dir_.File("droidlab.json");
  WriteFileBytes(config, R"({"health":{"interval_seconds":1,"probe_timeout_seconds":2,
                             "settle_seconds":3,"recovery_reboot":false}})");
  const std::string tokens = dir_.File("tokens");
  WriteFileBytes(tokens, "ci:ci-secret-token\noperator-anna:anna-secret-token\n");
  ::chmod(tokens.c_str(), 0600);
  api_token_ = "anna-secret-token";
  const uint16_t port = StartDaemon({"--config", config, "--token-file", tokens});
  ASSERT_NE(port, 0);
  for (const auto& p : phones) {
    ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, p.address); }, seconds(20)));
    ASSERT_EQ(Call(port, "PUT", Path(p.address) + "/labels", R"({"labels":["nightly"]})").status,
              200);
  }

  ASSERT_EQ(Shell(dead, "devsim-fault wedge never").out, "wedged until never\n");
  ASSERT_TRUE(WaitUntil([&] { return Get(port, Path(dead.address))["quarantine"].is_object(); },
                        seconds(40), milliseconds(200)))
      << Get(port, Path(dead.address) + "/health").dump(1);
  const Json device = Get(port, Path(dead.address));
  EXPECT_NE(device["quarantine"]["reason"].get<std::string>().find(
                "reboots not allowed: recovery_reboot is off"),
            std::string::npos)
      << device.dump(1);
  const Json health = Get(port, Path(dead.address) + "/health");
  std::vector<std::string> kinds;
  for (const Json& e : health["events"]) kinds.insert(kinds.begin(), e["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{"unresponsive", "reconnect_transport",
                                             "reconnect_device", "quarantined"}))
      << health.dump(1);
  EXPECT_EQ(health["monitor"]["ladder"]["reconnect_device"], 1) << health.dump(1);
  EXPECT_EQ(Get(port, Path(healthy.address))["quarantine"], nullptr);

  // /metrics: the quarantine, the ladder's rungs, the healthy phone's battery and adb figures.
  const auto metrics = Call(port, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  const std::string dead_labels = "{serial=\"" + dead.address + "\",model=\"Pixel 7\"}";
  const std::string healthy_labels = "{serial=\"" + healthy.address + "\",model=\"Pixel 7\"}";
  EXPECT_NE(metrics.body.find("droidlab_device_quarantined" + dead_labels + " 1\n"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("droidlab_device_quarantined" + healthy_labels + " 0\n"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("droidlab_device_recovery_steps_total{serial=\"" + dead.address +
                              "\",model=\"Pixel 7\",step=\"reconnect_device\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("droidlab_device_battery_level_percent" + healthy_labels),
            std::string::npos);
  EXPECT_NE(metrics.body.find("droidlab_device_adb_command_errors_total" + dead_labels),
            std::string::npos);

  // A pool of two: the quarantined phone takes none; the healthy one measures both, in turn.
  const auto created = Call(port, "POST", "/api/v1/runs",
                            R"({"pool":{"labels":["nightly"]},"devices":2,)"
                            R"("package":"com.example.app","mode":"cold","iterations":2})");
  ASSERT_EQ(created.status, 201) << created.body;
  std::vector<int64_t> ids;
  const Json pool = Json::parse(created.body);
  for (const Json& run : pool["runs"]) ids.push_back(run["id"]);
  ASSERT_EQ(ids.size(), 2u);
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int64_t id : ids) {
          if (RunStatus(port, id) != "succeeded") return false;
        }
        return true;
      },
      seconds(60), milliseconds(200)));
  for (int64_t id : ids) {
    EXPECT_EQ(Get(port, "/api/v1/runs/" + std::to_string(id))["serial"], healthy.address);
  }

  // Released by operator-anna: back in, checked again, and the release is on record twice.
  EXPECT_EQ(Shell(dead, "devsim-fault clear").exit_code, 0);
  const auto released = Call(port, "POST", Path(dead.address) + "/release");
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_EQ(Json::parse(released.body)["quarantine"], nullptr);
  const auto twice = Call(port, "POST", Path(dead.address) + "/release");
  EXPECT_EQ(twice.status, 409) << twice.body;
  EXPECT_EQ(Call(port, "POST", "/api/v1/devices/NOPE/release").status, 404);
  const Json after = Get(port, Path(dead.address) + "/health");
  ASSERT_FALSE(after["events"].empty());
  EXPECT_EQ(after["events"][0]["kind"], "released") << after.dump(1);
  EXPECT_NE(after["events"][0]["detail"].get<std::string>().find("operator-anna"),
            std::string::npos);
  const Json audit = Get(port, "/api/v1/audit");
  bool audited = false;
  for (const Json& e : audit["entries"]) {
    audited = audited || (e["path"] == Path(dead.address) + "/release" &&
                          e["caller"] == "operator-anna" && e["status"] == 200);
  }
  EXPECT_TRUE(audited) << audit.dump(1);
  EXPECT_TRUE(WaitUntil(
      [&] {
        const Json h = Get(port, Path(dead.address) + "/health");
        return !h["samples"].empty() && h["samples"][0]["answered"] == true &&
               h["samples"][0]["at"].get<int64_t>() >
                   after["events"][0]["at"].get<int64_t>();
      },
      seconds(10)))
      << "a released phone is checked again";
}

}  // namespace
}  // namespace droidlab::testutil
