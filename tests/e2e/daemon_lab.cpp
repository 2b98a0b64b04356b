#include "tests/e2e/daemon_lab.h"

#include <chrono>

#include "tests/common/http_client.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {

namespace {

std::string Encoded(const std::string& serial) {
  std::string out;
  for (char c : serial) out += c == ':' ? std::string("%3A") : std::string(1, c);
  return out;
}

}  // namespace

uint16_t DaemonLabTest::StartDaemon(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {
      DROIDLAB_BINARY, "serve",
      "--listen",      "127.0.0.1:0",
      "--db",          dir_.File("lab.db"),
      "--adb-server",  "tcp:127.0.0.1:" + std::to_string(server_.port()),
      "--adb-path",    AdbPath(),
      "--log-level",   "warn"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  daemon_ = std::make_unique<ChildProcess>(argv);
  auto line = daemon_->ReadLine(std::chrono::milliseconds(10000));
  if (!line) return 0;
  const size_t at = line->find("http://127.0.0.1:");
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::stoi(line->substr(at + 17)));
}

nlohmann::json DaemonLabTest::Get(uint16_t port, const std::string& target) {
  const std::string auth = api_token_.empty() ? "" : "Authorization: Bearer " + api_token_ + "\r\n";
  auto r = HttpCall(port, "GET", target, "", auth);
  if (r.status != 200) return nlohmann::json();
  return nlohmann::json::parse(r.body, nullptr, false);
}

bool DaemonLabTest::DeviceListed(uint16_t port, const std::string& serial) {
  nlohmann::json device = Get(port, "/api/v1/devices/" + Encoded(serial));
  return device.is_object() && device["state"] == "device" && device["model"].is_string();
}

std::string DaemonLabTest::RunStatus(uint16_t port, int64_t id) {
  nlohmann::json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  return run.is_object() ? run["status"].get<std::string>() : "";
}

int64_t DaemonLabTest::PostRun(uint16_t port, const std::string& body) {
  const std::string auth = api_token_.empty() ? "" : "Authorization: Bearer " + api_token_ + "\r\n";
  auto created = HttpCall(port, "POST", "/api/v1/runs", body, auth);
  EXPECT_EQ(created.status, 201) << created.body;
  if (created.status != 201) return 0;
  return nlohmann::json::parse(created.body)["id"].get<int64_t>();
}

bool DaemonLabTest::WaitForLaunches(uint16_t port, int64_t id, size_t count) {
  return WaitUntil(
      [&] {
        nlohmann::json l = Get(port, "/api/v1/runs/" + std::to_string(id) + "/launches");
        return l.is_object() && l["launches"].size() >= count;
      },
      std::chrono::seconds(30));
}

std::string DaemonLabTest::ColdLaunchScenario(const std::string& name, int seed, int mean,
                                              int stddev) {
  const std::string path = dir_.File(name + ".json");
  WriteFileBytes(path, R"({"seed":)" + std::to_string(seed) +
                           R"(,"packages":[{"name":"com.example.app","activity":".MainActivity",)"
                           R"("uid":10123,"cold":{"mean":)" +
                           std::to_string(mean) + R"(,"stddev":)" + std::to_string(stddev) +
                           "}}]}");
  return path;
}

void DaemonLabTest::StartLooperRunMidway(LooperRunMidway& mid) {
  mid.devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(mid.devices.size(), 1u);
  const DevsimDevice& device = mid.devices[0];
  const std::string serial = device.address;
  ASSERT_EQ(Shell(device, "settings put global looper_stats sampling_interval=7").exit_code, 0);
  mid.before = Shell(device, "settings get global looper_stats").out;
  mid.port = StartDaemon();
  ASSERT_NE(mid.port, 0);
  const uint16_t port = mid.port;
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, std::chrono::seconds(20)));
  const std::string body = R"({"serial":")" + serial +
                           R"(","package":"com.example.app","mode":"cold","iterations":200,)"
                           R"("looper_stats":{"sampling_interval":1}})";
  mid.run_id = PostRun(port, body);
  ASSERT_NE(mid.run_id, 0);
  ASSERT_TRUE(WaitForLaunches(port, mid.run_id, 2));
}

StoppedDaemonsDatabase::StoppedDaemonsDatabase(const std::string& path) {
  store::StoreOptions options;
  options.path = path;
  options.create_if_missing = false;
  auto opened = store::Store::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.error().message;
  if (opened.ok()) db = std::move(opened).value();
}

std::string StoppedDaemonsDatabase::Status(int64_t run_id) {
  auto run = db->Read([&](store::Reader& r) { return r.GetRun(run_id); });
  return run ? store::RunStatusName(run->status) : "";
}

size_t StoppedDaemonsDatabase::Owed(const std::string& serial) {
  auto owed = db->Read([&](store::Reader& r) { return r.ListOwedRestores(serial); });
  return owed ? owed->size() : 0;
}

}  // namespace droidlab::testutil
