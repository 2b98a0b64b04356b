#include "parsers/text.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

// What ScanNonNegativeInt64 must return for `field`: the value of its leading digits, or nullopt
// when there are none, more than 19, or the value passes INT64_MAX. Worked out through
// ParseInt, not through either scan.
std::optional<int64_t> ExpectedScan(std::string_view field) {
  size_t n = 0;
  while (n < field.size() && IsAsciiDigit(field[n])) ++n;
  if (n == 0 || n > 19) return std::nullopt;
  auto value = ParseInt<uint64_t>(field.substr(0, n));
  if (!value || *value > uint64_t{INT64_MAX}) return std::nullopt;
  return static_cast<int64_t>(*value);
}

// The 8-bytes-at-a-time scan (the one framestats rows use) gives what the digit loop gives, for
// every length from 0 to 21 digits, whatever follows the digits (bytes just below '0', above
// '9', with the high bit set — where the bit trick's carries are — or more digits past `end`),
// and however many readable bytes follow `end`.
TEST(TextTest, WideIntegerScanAgreesWithTheDigitLoop) {
  const std::string digits = "9223372036854775807123";  // INT64_MAX, then more
  const std::string others[] = {",", "/", ":", "a", "\x80", "\x8a", "\xff", " ", "\n"};
  std::vector<std::string> fields;
  for (size_t len = 0; len <= 21; ++len) {
    for (const std::string& after : others) {
      fields.push_back(digits.substr(0, len) + after + "123456789");
      fields.push_back(std::string(len, '0') + after + "5");
      fields.push_back(std::string(len > 0 ? len - 1 : 0, '1') + (len > 0 ? "8" : "") + after);
    }
  }
  fields.push_back("9223372036854775808,");  // INT64_MAX + 1
  fields.push_back("18446744073709551615,");
  fields.push_back("99999999999999999999,");
  for (const std::string& field : fields) {
    // `end` at every place in the field (digits past it are not this field's), and 0–16
    // readable bytes beyond the field's own.
    for (size_t cut = 0; cut <= field.size(); ++cut) {
      for (size_t slack = 0; slack <= 16; ++slack) {
        const std::string buffer = field + std::string(slack, '7');
        const char* p = buffer.data();
        const char* end = p + cut;
        const char* readable_end = p + field.size() + slack;
        int64_t loop = -1, wide = -1;
        const char* loop_end = ScanNonNegativeInt64(p, end, loop);
        const char* wide_end = ScanNonNegativeInt64(p, end, readable_end, wide);
        const auto expected = ExpectedScan(std::string_view(p, cut));
        SCOPED_TRACE("field \"" + field + "\" cut " + std::to_string(cut) + " slack " +
                     std::to_string(slack));
        ASSERT_EQ(loop_end != nullptr, expected.has_value());
        ASSERT_EQ(wide_end, loop_end);
        if (expected) {
          EXPECT_EQ(loop, *expected);
          EXPECT_EQ(wide, *expected);
        }
      }
    }
  }
}

}  // namespace
}  // namespace droidlab::parsers
