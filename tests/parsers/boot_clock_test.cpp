// `date +%s.%N` (toybox toys/posix/date.c) and `cat /proc/uptime; date +%s.%N` (fs/proc/uptime.c,
// then date) as one command: the realtime at boot that maps logcat epoch times onto the boot
// clock of /proc/PID/stat's starttime.
#include "parsers/boot_clock.h"

#include <gtest/gtest.h>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

TEST(BootClockTest, UptimeThenDateSample) {
  auto r = ParseUptimeThenDate(ReadTestData("boot_clock/uptime_then_date.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->uptime.uptime_cs, 8204414);
  EXPECT_EQ(r->date.seconds, 1763891234);
  EXPECT_EQ(r->date.nanoseconds, 123456789);
  EXPECT_EQ(r->date.milliseconds(), 1763891234123);
  EXPECT_EQ(r->RealtimeAtBootMs(), 1763891234123 - 82044140);
}

TEST(BootClockTest, RealtimeAtBootFromUptimeAndDate) {
  // Up 3604.39 s at realtime 1763891234.123456789 s.
  auto r = ParseUptimeThenDate("3604.39 22707.63\n1763891234.123456789\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->RealtimeAtBootMs(), 1763891234123 - 3604390);
  // Over a pty.
  auto pty = ParseUptimeThenDate("3604.39 22707.63\r\n1763891234.123456789\r\n");
  ASSERT_TRUE(pty.ok()) << pty.error().message;
  EXPECT_EQ(pty->RealtimeAtBootMs(), 1763891234123 - 3604390);
}

TEST(BootClockTest, MissingOrUnreadableLines) {
  EXPECT_FALSE(ParseUptimeThenDate("3604.39 22707.63\n").ok());              // no date
  EXPECT_FALSE(ParseUptimeThenDate("3604.39 22707.63\n1763891234\n").ok());  // date without %N
  EXPECT_FALSE(ParseUptimeThenDate("3604.39 22707.63\n1763891234.%N\n").ok());
  EXPECT_FALSE(ParseUptimeThenDate("nonsense\n1763891234.123\n").ok());
  EXPECT_FALSE(ParseUptimeThenDate("3604.39 22707.63\n1763891234.123\nmore\n").ok());
  auto empty = ParseUptimeThenDate("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ParseErrorCode::kEmpty);
}

TEST(BootClockTest, DateFractions) {
  auto nine = ParseDateEpoch("1763891234.123456789\n");
  ASSERT_TRUE(nine.ok()) << nine.error().message;
  EXPECT_EQ(nine->nanoseconds, 123456789);
  auto three = ParseDateEpoch("1763891234.123");
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_EQ(three->nanoseconds, 123000000);
  EXPECT_EQ(three->milliseconds(), 1763891234123);
  EXPECT_FALSE(ParseDateEpoch("1763891234.N").ok());           // busybox without %N
  EXPECT_FALSE(ParseDateEpoch("1763891234.12").ok());          // under ms
  EXPECT_FALSE(ParseDateEpoch("1763891234.1234567890").ok());  // more than ns
  EXPECT_FALSE(ParseDateEpoch("-1.123456789").ok());
  EXPECT_FALSE(ParseDateEpoch("1763891234.-23456789").ok());
  EXPECT_FALSE(ParseDateEpoch("99999999999999999999.123").ok());
}

}  // namespace
}  // namespace droidlab::parsers
