#include "base/parse_int.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace droidlab {
namespace {

TEST(ParseIntTest, ConsumesTheWholeField) {
  EXPECT_EQ(ParseInt<int64_t>("797"), 797);
  EXPECT_EQ(ParseInt<int64_t>("-1"), -1);
  EXPECT_EQ(ParseInt<int>("0"), 0);
  EXPECT_FALSE(ParseInt<int64_t>("12ab"));
  EXPECT_FALSE(ParseInt<int64_t>("12 "));
  EXPECT_FALSE(ParseInt<int64_t>(" 12"));
  EXPECT_FALSE(ParseInt<int64_t>("12\n"));  // callers trim line ends themselves
  EXPECT_FALSE(ParseInt<int64_t>(""));
  EXPECT_FALSE(ParseInt<int64_t>("-"));
}

TEST(ParseIntTest, NoPlusSignNoPrefix) {
  EXPECT_FALSE(ParseInt<int64_t>("+12"));
  EXPECT_FALSE(ParseInt<uint32_t>("0x10", 16));
  EXPECT_EQ(ParseInt<uint32_t>("10000000", 16), 0x10000000u);
  EXPECT_EQ(ParseInt<uint64_t>("ffffffffffffffff", 16), UINT64_MAX);
}

TEST(ParseIntTest, OverflowIsAnErrorNotAWrap) {
  EXPECT_FALSE(ParseInt<int64_t>("99999999999999999999"));
  EXPECT_EQ(ParseInt<int64_t>("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(ParseInt<int64_t>("9223372036854775808"));
  EXPECT_EQ(ParseInt<int64_t>("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseInt<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseInt<uint16_t>("65536"));
  EXPECT_EQ(ParseInt<uint16_t>("65535"), 65535);
  EXPECT_FALSE(ParseInt<int8_t>("128"));
}

TEST(ParseIntTest, UnsignedRefusesMinus) {
  EXPECT_FALSE(ParseInt<uint64_t>("-1"));
  EXPECT_FALSE(ParseInt<unsigned>("-0"));
}

}  // namespace
}  // namespace droidlab
