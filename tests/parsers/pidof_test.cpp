// `pidof NAME`: toybox toys/posix/pidof.c (pids separated by one blank, a newline after the last;
// no output and exit status 1 when nothing matches).
#include "parsers/pidof.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// The simpleperf README's capture: one app process.
TEST(PidofTest, OneAppProcess) {
  auto r = ParsePidof(ReadTestData("pidof/simpleperf_readme_app.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->pids, std::vector<int64_t>{6885});
  EXPECT_EQ(FirstPid(ReadTestData("pidof/simpleperf_readme_app.txt")), 6885);
}

// A shell without pidof answers in words: not a pid, and no pid taken from it.
TEST(PidofTest, NoPidofOnTheDevice) {
  auto r = ParsePidof(ReadTestData("pidof/no_pidof_mksh.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kMalformed);
  EXPECT_FALSE(FirstPid(ReadTestData("pidof/no_pidof_mksh.txt")));
}

TEST(PidofTest, SeveralPidsInPrintedOrder) {
  auto r = ParsePidof("1234 5678\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->pids, (std::vector<int64_t>{1234, 5678}));
  EXPECT_EQ(r->first(), 1234);
}

TEST(PidofTest, PtyLineEndAndPadding) {
  EXPECT_EQ(FirstPid("6885\r\n"), 6885);
  EXPECT_EQ(FirstPid("\n 6885 \n"), 6885);
}

TEST(PidofTest, NothingMatched) {
  for (const char* out : {"", "\n", "  \r\n"}) {
    auto r = ParsePidof(out);
    ASSERT_FALSE(r.ok()) << out;
    EXPECT_EQ(r.error().code, ParseErrorCode::kEmpty);
    EXPECT_FALSE(FirstPid(out));
  }
}

TEST(PidofTest, WordsThatAreNoPids) {
  for (const char* out : {"0\n", "-5\n", "12ab\n", "123 abc\n", "99999999999999999999\n"}) {
    auto r = ParsePidof(out);
    ASSERT_FALSE(r.ok()) << out;
    EXPECT_EQ(r.error().code, ParseErrorCode::kMalformed) << out;
  }
}

}  // namespace
}  // namespace droidlab::parsers
