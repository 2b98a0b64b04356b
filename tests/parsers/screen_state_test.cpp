// Screen on and unlocked: `mWakefulness=` of `dumpsys power` (PowerManagerService.dumpInternal,
// all versions) and `mKeyguardShowing=` of `dumpsys activity activities` (KeyguardController.dump,
// Android 8+). Samples in tests/data/screen_state/ (README there).
#include "parsers/screen_state.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

TEST(ScreenStateTest, WakefulnessOfRealDumps) {
  EXPECT_EQ(ParseWakefulness(ReadTestData("screen_state/dumpsys_power_awake_public_excerpt.txt")),
            "Awake");
  // Always-on display: the panel is off, and the wakefulness says Dozing.
  EXPECT_EQ(
      ParseWakefulness(ReadTestData("screen_state/dumpsys_power_galaxy_s9_dozing_excerpt.txt")),
      "Dozing");
  // Android 12: mWakefulnessRaw is another field; CRLF line ends.
  EXPECT_EQ(
      ParseWakefulness(ReadTestData("screen_state/dumpsys_power_android12_asleep_built_crlf.txt")),
      "Asleep");
}

TEST(ScreenStateTest, WakefulnessUnknownIsNotAwake) {
  EXPECT_EQ(ParseWakefulness(""), std::nullopt);
  EXPECT_EQ(ParseWakefulness("Can't find service: power\n"), std::nullopt);
  EXPECT_EQ(ParseWakefulness("  mWakefulnessRaw=Awake\n"), std::nullopt);
  EXPECT_EQ(ParseWakefulness("  mWakefulness=\n"), std::nullopt);
  EXPECT_EQ(ParseWakefulness("  mWakefulness=Aw ake\n"), std::nullopt);
  // The first line is the global one (Android 12 also prints one per power group later).
  EXPECT_EQ(ParseWakefulness("  mWakefulness=Asleep\n  PowerGroup 0\n    mWakefulness=Awake\n"),
            "Asleep");
}

TEST(ScreenStateTest, KeyguardOfRealDumps) {
  EXPECT_EQ(ParseKeyguardShowing(
                ReadTestData("screen_state/activities_android9_blog_excerpt_unlocked.txt")),
            false);
  EXPECT_EQ(
      ParseKeyguardShowing(ReadTestData("screen_state/activities_android8_excerpt_locked.txt")),
      true);
}

TEST(ScreenStateTest, KeyguardUnknownIsNotUnlocked) {
  EXPECT_EQ(ParseKeyguardShowing(""), std::nullopt);
  EXPECT_EQ(ParseKeyguardShowing("  KeyguardController:\n    mAodShowing=false\n"), std::nullopt);
  EXPECT_EQ(ParseKeyguardShowing("    mKeyguardShowing=maybe\n"), std::nullopt);
  // Another field that ends with the name is not it.
  EXPECT_EQ(ParseKeyguardShowing("    xmKeyguardShowing=false\n"), std::nullopt);
  EXPECT_EQ(ParseKeyguardShowing("    mKeyguardShowing=true\r\n"), true);
  EXPECT_EQ(ParseKeyguardShowing("mKeyguardShowing=false"), false);
}

}  // namespace
}  // namespace droidlab::parsers
