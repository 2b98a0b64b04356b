#include "tools/devsim/android/launch_formats.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

Component Example() {
  Component component;
  EXPECT_TRUE(ParseComponent("com.example.app/.MainActivity", component));
  return component;
}

TEST(LaunchFormatsTest, ComponentSpellings) {
  const Component c = Example();
  EXPECT_EQ(c.class_name, "com.example.app.MainActivity");
  EXPECT_EQ(c.FlattenToShortString(), "com.example.app/.MainActivity");
  EXPECT_EQ(c.ToShortString(), "{com.example.app/com.example.app.MainActivity}");
  Component other;
  ASSERT_TRUE(ParseComponent("com.x/org.y.Main", other));
  EXPECT_EQ(other.FlattenToShortString(), "com.x/org.y.Main");
  EXPECT_FALSE(ParseComponent("com.x", other));
}

TEST(LaunchFormatsTest, DurationsAsTimeUtilsPrintsThem) {
  EXPECT_EQ(FormatLogDuration(797), "+797ms");
  EXPECT_EQ(FormatLogDuration(1234), "+1s234ms");
  EXPECT_EQ(FormatLogDuration(1000), "+1s0ms");
  EXPECT_EQ(FormatLogDuration(61005), "+1m1s5ms");
}

TEST(LaunchFormatsTest, Uids) {
  EXPECT_EQ(FormatUid(10123), "u0a123");
  EXPECT_EQ(FormatUid(1000), "1000");
  EXPECT_EQ(FormatUid(1010123), "u10a123");
}

TEST(LaunchFormatsTest, TagChangesWithAndroid10) {
  EXPECT_STREQ(ActivityStartTag(28), "ActivityManager");
  EXPECT_STREQ(ActivityStartTag(29), "ActivityTaskManager");
}

// ActivityMetricsLogger.logAppDisplayed: " for user N" from Android 12; real Android 13 lines
// (tests/data/logcat/android13_raw.txt) carry it.
TEST(LaunchFormatsTest, DisplayedPerSdk) {
  EXPECT_EQ(DisplayedLogMessage(28, Example(), 797),
            "Displayed com.example.app/.MainActivity: +797ms");
  EXPECT_EQ(DisplayedLogMessage(29, Example(), 797),
            "Displayed com.example.app/.MainActivity: +797ms");
  EXPECT_EQ(DisplayedLogMessage(33, Example(), 797),
            "Displayed com.example.app/.MainActivity for user 0: +797ms");
  EXPECT_EQ(DisplayedLogMessage(34, Example(), 1234),
            "Displayed com.example.app/.MainActivity for user 0: +1s234ms");
}

// ActivityMetricsLogger.logAppFullyDrawn: no user id on any SDK.
TEST(LaunchFormatsTest, FullyDrawnHasNoUser) {
  EXPECT_EQ(FullyDrawnLogMessage(34, Example(), 4528),
            "Fully drawn com.example.app/.MainActivity: +4s528ms");
  EXPECT_EQ(FullyDrawnLogMessage(28, Example(), 1400),
            "Fully drawn com.example.app/.MainActivity: +1s400ms");
}

TEST(LaunchFormatsTest, StartProcPerSdk) {
  EXPECT_EQ(StartProcLogMessage(28, 4200, "com.example.app", 10123, Example()),
            "Start proc 4200:com.example.app/u0a123 for activity com.example.app/.MainActivity");
  EXPECT_EQ(StartProcLogMessage(29, 4200, "com.example.app", 10123, Example()),
            "Start proc 4200:com.example.app/u0a123 for activity "
            "{com.example.app/com.example.app.MainActivity}");
}

TEST(LaunchFormatsTest, AmStartWaitOnAndroid9HasThisTimeAndNoLaunchState) {
  AmStartResult result;
  result.total_ms = 797;
  result.wait_ms = 805;
  EXPECT_EQ(AmStartWaitOutput(28, Example(), result),
            "Status: ok\n"
            "Activity: com.example.app/.MainActivity\n"
            "ThisTime: 797\n"
            "TotalTime: 797\n"
            "WaitTime: 805\n"
            "Complete\n");
}

TEST(LaunchFormatsTest, AmStartWaitFromAndroid10HasLaunchState) {
  AmStartResult result;
  result.state = LaunchState::kWarm;
  result.total_ms = 350;
  result.wait_ms = 361;
  EXPECT_EQ(AmStartWaitOutput(33, Example(), result),
            "Status: ok\n"
            "LaunchState: WARM\n"
            "Activity: com.example.app/.MainActivity\n"
            "TotalTime: 350\n"
            "WaitTime: 361\n"
            "Complete\n");
}

}  // namespace
}  // namespace droidlab::devsim
