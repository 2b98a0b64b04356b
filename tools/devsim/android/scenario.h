// What one simulated device is: its properties, its installed apps and how long they take to
// launch. Read from a scenario JSON file (`--scenario FILE`) or taken from the defaults below.
//
//   {
//     "seed": 42,
//     "device": {"serial": "DEVSIM0001", "model": "Pixel 7", "manufacturer": "Google",
//                "device": "panther", "product": "panther", "sdk": 33, "release": "13",
//                "abi": "arm64-v8a", "fingerprint": "google/panther/panther:13/…",
//                "uptime_s": 3600},
//     "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
//                   "cold": {"mean": 800, "stddev": 60}, "warm": {"mean": 350, "stddev": 30},
//                   "hot": {"mean": 120, "stddev": 15}}]
//   }
// Every field is optional; "release" and "fingerprint" follow "sdk" when not given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace droidlab::devsim {

struct LaunchTimeDistribution {
  double mean_ms = 0;
  double stddev_ms = 0;
};

struct PackageSpec {
  std::string name;
  std::string activity;  // as given to am start: ".MainActivity" or a full class name
  int uid = 10100;       // app uids start at 10000 (u0a100 is 10100)
  LaunchTimeDistribution cold{800, 60};
  LaunchTimeDistribution warm{350, 30};
  LaunchTimeDistribution hot{120, 15};
};

struct DeviceSpec {
  std::string serial = "DEVSIM0001";
  std::string model = "Pixel 7";
  std::string manufacturer = "Google";
  std::string device = "panther";
  std::string product = "panther";
  int sdk = 33;
  std::string release;  // from sdk when empty
  std::string abi = "arm64-v8a";
  std::string fingerprint;  // from the other fields when empty
  double uptime_s = 3600;   // how long the device has been up when devsim starts
};

struct Scenario {
  std::uint64_t seed = 42;
  DeviceSpec device;
  std::vector<PackageSpec> packages;
};

// The scenario used without --scenario: a Pixel 7 on Android 13 with two apps.
Scenario DefaultScenario();

// Parses a scenario file's text. The error names the field that is wrong.
std::variant<Scenario, std::string> ParseScenario(std::string_view json_text);

// "9" for 28, "10" for 29, …; "" for an SDK we have no name for.
std::string ReleaseForSdk(int sdk);

// Fills release and fingerprint from the rest, and checks that values fit the connect banner
// (no ':' or ';' in name, model, device). Returns an error text, or "" when fine.
std::string FinishScenario(Scenario& scenario);

}  // namespace droidlab::devsim
