// droidlab-devsim: simulated Android devices for the real adb server.
//   droidlab-devsim [--port N] [--count N] [--scenario FILE] [--bind ADDR] [--fast]
// Prints one line per device once it listens, for scripts and tests to read:
//   devsim listening on 127.0.0.1:40123 serial=DEVSIM0001 model=Pixel 7 sdk=33
#include <charconv>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "tools/devsim/android/scenario.h"
#include "tools/devsim/android/simulated_android.h"
#include "tools/devsim/transport.h"

namespace {

using namespace droidlab::devsim;

constexpr std::string_view kUsage =
    "usage: droidlab-devsim [--port N] [--count N] [--scenario FILE] [--bind ADDR] [--fast]\n"
    "  --port N        first port to listen on; 0 (default) lets the system pick each port\n"
    "  --count N       how many devices to simulate (ports N, N+1, … or all ephemeral)\n"
    "  --scenario F    device and apps as JSON (see tools/devsim/README.md)\n"
    "  --bind ADDR     address to listen on (default 127.0.0.1)\n"
    "  --fast          am start -W answers at once instead of waiting for the launch\n";

bool ParseNumber(std::string_view text, long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

int Fail(const std::string& message) {
  std::cerr << "droidlab-devsim: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long port = 0;
  long count = 1;
  std::string scenario_path;
  std::string bind_address = "127.0.0.1";
  bool fast = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--port" && has_value) {
      if (!ParseNumber(argv[++i], port) || port < 0 || port > 65535) return Fail("bad --port");
    } else if (arg == "--count" && has_value) {
      if (!ParseNumber(argv[++i], count) || count < 1 || count > 10000) return Fail("bad --count");
    } else if (arg == "--scenario" && has_value) {
      scenario_path = argv[++i];
    } else if (arg == "--bind" && has_value) {
      bind_address = argv[++i];
    } else if (arg == "--fast") {
      fast = true;
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  // The adb server polls 5555-5585 as emulator console/adb ports; a device there is found
  // twice, once as emulator-N. API.md's own example uses 5555 (where a phone's adbd listens in
  // tcpip mode), so this warns instead of refusing.
  if (port != 0 && port <= 5585 && port + count - 1 >= 5555) {
    std::cerr << "droidlab-devsim: warning: ports 5555-5585 are polled by the adb server as "
                 "emulators; the device may be listed twice (also as emulator-"
              << (port - 1) << ")\n";
  }
  if (port != 0 && port + count - 1 > 65535) return Fail("--port + --count goes past 65535");

  Scenario scenario = DefaultScenario();
  if (!scenario_path.empty()) {
    std::ifstream file(scenario_path);
    if (!file) return Fail("cannot read scenario " + scenario_path);
    std::stringstream text;
    text << file.rdbuf();
    auto parsed = ParseScenario(text.str());
    if (auto* error = std::get_if<std::string>(&parsed)) return Fail(*error);
    scenario = std::get<Scenario>(std::move(parsed));
  }

  DeviceHost host;
  for (long i = 0; i < count; ++i) {
    Scenario device_scenario = scenario;
    if (i > 0) {
      // Each device its own serial and its own random stream.
      device_scenario.device.serial += "-" + std::to_string(i + 1);
      device_scenario.seed += static_cast<std::uint64_t>(i);
    }
    SimulatedAndroid::Options options;
    options.realtime_launches = !fast;
    auto android = std::make_shared<SimulatedAndroid>(device_scenario, options,
                                                      std::chrono::system_clock::now);
    const auto wanted = static_cast<std::uint16_t>(port == 0 ? 0 : port + i);
    auto bound = host.AddDevice(android, bind_address, wanted);
    if (auto* error = std::get_if<std::string>(&bound)) return Fail(*error);
    const DeviceSpec& d = device_scenario.device;
    std::cout << "devsim listening on " << bind_address << ":" << std::get<std::uint16_t>(bound)
              << " serial=" << d.serial << " model=" << d.model << " sdk=" << d.sdk << std::endl;
  }
  host.Run();
  return 0;
}
