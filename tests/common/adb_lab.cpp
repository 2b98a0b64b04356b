#include "tests/common/adb_lab.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <regex>
#include <thread>

namespace droidlab::testutil {

using std::chrono::milliseconds;

const std::string& AdbPath() {
  static const std::string path = DROIDLAB_ADB_PATH;
  return path;
}

const std::string& DevsimPath() {
  static const std::string path = DROIDLAB_DEVSIM_PATH;
  return path;
}

// Below the kernel's ephemeral range (ip_local_port_range), so that no bind(0) — a devsim
// phone's, a daemon's, in this test or one running beside it — can be handed this port between
// our check and the process that binds it. From the ephemeral range, a port released here was
// once given to a devsim phone of another test first: `adb start-server` took the phone for a
// running server, sent it host:version and waited forever (a 60 s timeout in CI). Random, so
// that two tests starting together rarely try the same one; checked free by binding it.
int FreeLoopbackPort() {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pick(10000, std::max(10001, ephemeral_low - 1));
  for (int attempt = 0; attempt < 500; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int port = pick(rng);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    if (free) return port;
  }
  return -1;
}

AdbServer::AdbServer() : port_(FreeLoopbackPort()) {}

AdbServer::~AdbServer() {
  if (started_) RunProcess({AdbPath(), "-P", std::to_string(port_), "kill-server"});
}

bool AdbServer::Start() {
  const auto result = RunProcess({AdbPath(), "-P", std::to_string(port_), "start-server"});
  started_ = true;  // even a failed start may have left a server: kill-server it anyway
  return result.exit_code == 0;
}

ProcessResult AdbServer::Adb(std::vector<std::string> args) const {
  args.insert(args.begin(), {AdbPath(), "-P", std::to_string(port_)});
  return RunProcess(args);
}

std::vector<DevsimDevice> ReadListeningLines(ChildProcess& devsim, int count) {
  std::vector<DevsimDevice> devices;
  const std::regex pattern(R"(^devsim listening on (127\.0\.0\.1:\d+) serial=(\S+) )");
  for (int i = 0; i < count; ++i) {
    const auto line = devsim.ReadLine(milliseconds(10000));
    if (!line) break;
    std::smatch match;
    if (std::regex_search(*line, match, pattern)) devices.push_back({match[1], match[2]});
  }
  return devices;
}

std::string WaitForDevice(const AdbServer& server, const std::string& address) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    last = server.Adb({"devices", "-l"}).out;
    std::size_t at = last.find(address + " ");
    if (at != std::string::npos) {
      const std::string line = last.substr(at, last.find('\n', at) - at);
      if (line.find(" device ") != std::string::npos) return line;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  ADD_FAILURE() << "device " << address << " never became ready; last list:\n" << last;
  return "";
}

void AdbLabTest::SetUp() {
  if (::access(AdbPath().c_str(), X_OK) != 0) GTEST_SKIP() << "adb is not installed";
  ASSERT_GT(server_.port(), 0);
  ASSERT_TRUE(server_.Start()) << "adb start-server failed on port " << server_.port();
}

void AdbLabTest::TearDown() {
  if (devsim_) devsim_->Stop();
}

std::vector<DevsimDevice> AdbLabTest::StartDevsim(std::vector<std::string> args, int count) {
  args.insert(args.begin(), DevsimPath());
  devsim_ = std::make_unique<ChildProcess>(args);
  auto devices = ReadListeningLines(*devsim_, count);
  EXPECT_EQ(devices.size(), static_cast<std::size_t>(count));
  for (const auto& device : devices) {
    const auto connect = server_.Adb({"connect", device.address});
    EXPECT_NE(connect.out.find("connected to " + device.address), std::string::npos)
        << connect.out << connect.err;
  }
  return devices;
}

ProcessResult AdbLabTest::Shell(const DevsimDevice& device, const std::string& command) {
  return server_.Adb({"-s", device.address, "shell", command});
}

}  // namespace droidlab::testutil
