// parsers/surfaceflinger_latency.h: the vsync period from `dumpsys SurfaceFlinger --latency`,
// as frameworks/native services/surfaceflinger/SurfaceFlinger.cpp dumpStatsLocked prints it:
// the period alone on Android 10+ (getVsyncPeriodFromHWC), followed by the animation frame
// tracker's rows on 9 and before; over a pty the newline comes as "\r\n".
#include "parsers/surfaceflinger_latency.h"

#include <gtest/gtest.h>

namespace droidlab::parsers {
namespace {

TEST(SurfaceFlingerLatencyTest, Android13At60HzIsThePeriodAlone) {
  auto period = ParseVsyncPeriodNs("16666666\n");
  ASSERT_TRUE(period.ok()) << period.error().message;
  EXPECT_EQ(*period, 16'666'666);
}

TEST(SurfaceFlingerLatencyTest, NinetyAndOneTwentyHertzPhones) {
  EXPECT_EQ(ParseVsyncPeriodNs("11111111\n").value(), 11'111'111);
  EXPECT_EQ(ParseVsyncPeriodNs("8333333\r\n").value(), 8'333'333);  // a pty's line end
}

TEST(SurfaceFlingerLatencyTest, Android9TrackerRowsAfterThePeriodAreLeftAlone) {
  auto period = ParseVsyncPeriodNs("16666666\n0\t0\t0\n0\t0\t0\n");
  ASSERT_TRUE(period.ok()) << period.error().message;
  EXPECT_EQ(*period, 16'666'666);
}

TEST(SurfaceFlingerLatencyTest, WhatIsNoPeriodIsSaidSo) {
  EXPECT_EQ(ParseVsyncPeriodNs("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseVsyncPeriodNs("\n").error().code, ParseErrorCode::kEmpty);
  auto denied =
      ParseVsyncPeriodNs("Permission Denial: can't dump SurfaceFlinger from pid=4242, uid=2000\n");
  EXPECT_EQ(denied.error().code, ParseErrorCode::kPermissionDenied);
  auto words = ParseVsyncPeriodNs("Can't find service: SurfaceFlinger\n");
  EXPECT_EQ(words.error().code, ParseErrorCode::kMalformed);
  EXPECT_EQ(words.error().message,
            "SurfaceFlinger --latency: first line \"Can't find service: SurfaceFlinger\" is not a "
            "period in ns");
  // A number that no display's period is: 0, 10 GHz, 0.5 Hz, negative.
  for (const char* bad : {"0\n", "100\n", "2000000000\n", "-16666666\n"}) {
    EXPECT_EQ(ParseVsyncPeriodNs(bad).error().code, ParseErrorCode::kMalformed) << bad;
  }
}

}  // namespace
}  // namespace droidlab::parsers
