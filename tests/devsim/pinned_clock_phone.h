// A simulated phone on a clock the test moves: SimulatedAndroid driven through devsim's shell as
// adbd would drive it (Sh), time passing only when the test says (Pass), launches not in real
// time. The base of the devsim unit tests that need a phone and passing time.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string_view>

#include "tools/devsim/android/simulated_android.h"
#include "tools/devsim/shell_interpreter.h"

namespace droidlab::devsim {

// The app of DefaultScenario(), which the tests launch and dump.
inline constexpr char kApp[] = "com.example.app";

class PinnedClockPhoneTest : public ::testing::Test {
 protected:
  // The phone of `scenario` (FinishScenario must accept it); call in ASSERT_NO_FATAL_FAILURE.
  void MakePhone(Scenario scenario) {
    ASSERT_EQ(FinishScenario(scenario), "");
    SimulatedAndroid::Options options;
    options.realtime_launches = false;
    android_ = std::make_unique<SimulatedAndroid>(scenario, options, [this] { return *now_; });
  }
  // `scenario` on Android `sdk`: its release and fingerprint follow the SDK (FinishScenario).
  static Scenario OnSdk(int sdk, Scenario scenario = DefaultScenario()) {
    scenario.device.sdk = sdk;
    scenario.device.release.clear();
    scenario.device.fingerprint.clear();
    return scenario;
  }
  CommandOutput Sh(std::string_view script) {
    ShellEnvironment env;
    return RunShellScript(script, env, *android_);
  }
  void Pass(std::chrono::milliseconds time) { *now_ += time; }

  std::shared_ptr<std::chrono::system_clock::time_point> now_ =
      std::make_shared<std::chrono::system_clock::time_point>(
          std::chrono::sys_days{std::chrono::year{2026} / 3 / 14});
  std::unique_ptr<SimulatedAndroid> android_;
};

}  // namespace droidlab::devsim
