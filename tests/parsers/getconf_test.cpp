// `getconf NAME`: toybox toys/posix/getconf.c show_conf (`"%ld\n"` of sysconf, or "undefined").
#include "parsers/getconf.h"

#include <gtest/gtest.h>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// source.android.com, "Get the page size": `getconf PAGE_SIZE` prints 4096.
TEST(GetconfTest, PageSize) {
  auto r = ParseGetconfPositive(ReadTestData("getconf/page_size_source_android_com.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, 4096);
}

TEST(GetconfTest, ClkTckOverPty) {
  auto r = ParseGetconfPositive(ReadTestData("getconf/clk_tck_pty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, 100);
}

// Android 6 has no getconf: the shell's complaint is no number.
TEST(GetconfTest, NoGetconf) {
  auto r = ParseGetconfPositive(ReadTestData("getconf/no_getconf_mksh.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kMalformed);
}

TEST(GetconfTest, UndefinedEmptyAndNonPositive) {
  auto undefined = ParseGetconfPositive("undefined\n");
  ASSERT_FALSE(undefined.ok());
  EXPECT_EQ(undefined.error().code, ParseErrorCode::kNotThisFormat);
  auto empty = ParseGetconfPositive("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ParseErrorCode::kEmpty);
  EXPECT_FALSE(ParseGetconfPositive("0\n").ok());  // a divisor: never zero
  EXPECT_FALSE(
      ParseGetconfPositive("-1\n").ok());  // sysconf's "no value", printed raw by old builds
  EXPECT_FALSE(ParseGetconfPositive("100\n4096\n").ok());  // two values: not one answer
  EXPECT_FALSE(ParseGetconfPositive("100x\n").ok());
}

}  // namespace
}  // namespace droidlab::parsers
