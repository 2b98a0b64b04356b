#include "parsers/text.h"

#include <gtest/gtest.h>

namespace droidlab::parsers {
namespace {

// The whole-field rules are base/parse_int.h's (tests/base/parse_int_test.cpp); these are the
// parsers' 64-bit shorthands over it.
TEST(TextTest, Int64ShorthandsReadWholeFields) {
  EXPECT_EQ(ParseInt64("797"), 797);
  EXPECT_FALSE(ParseInt64("12ab"));
  EXPECT_EQ(ParseUint64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseUint64("-1"));
}

TEST(TextTest, TokensAndTrimming) {
  std::string_view s = "  1234  567 I tag";
  EXPECT_EQ(NextToken(s), "1234");
  EXPECT_EQ(NextToken(s), "567");
  EXPECT_EQ(Trim("  a b \r"), "a b");
  std::string_view kv = "key: value";
  EXPECT_EQ(SplitFirst(kv, ':'), "key");
  EXPECT_EQ(kv, " value");
  std::string_view p = "Displayed x";
  EXPECT_TRUE(ConsumePrefix(p, "Displayed "));
  EXPECT_EQ(p, "x");
  EXPECT_FALSE(ConsumePrefix(p, "y"));
}

}  // namespace
}  // namespace droidlab::parsers
