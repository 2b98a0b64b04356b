// TooHot (orchestrator/run/cooldown.h): what keeps a launch waiting. An unknown reading (Android
// 9 has no thermal status; a battery frozen by `dumpsys battery unplug`) never does.
#include "orchestrator/run/cooldown.h"

#include <gtest/gtest.h>

namespace droidlab::orchestrator {
namespace {

TEST(CooldownTest, CoolEnoughAtTheLimits) {
  const CoolEnough limit{1, 380};
  EXPECT_EQ(TooHot(LaunchConditions{1, 380}, limit), "");
  EXPECT_EQ(TooHot(LaunchConditions{0, 285}, limit), "");
  EXPECT_EQ(TooHot(LaunchConditions{std::nullopt, std::nullopt}, limit), "");
}

TEST(CooldownTest, SaysWhatIsTooHot) {
  const CoolEnough limit{1, 380};
  EXPECT_EQ(TooHot(LaunchConditions{2, std::nullopt}, limit),
            "thermal status MODERATE (at most LIGHT)");
  EXPECT_EQ(TooHot(LaunchConditions{std::nullopt, 412}, limit),
            "battery 41.2 °C (at most 38.0 °C)");
  EXPECT_EQ(TooHot(LaunchConditions{3, 455}, limit),
            "thermal status SEVERE (at most LIGHT), battery 45.5 °C (at most 38.0 °C)");
}

}  // namespace
}  // namespace droidlab::orchestrator
