// UserHandle.formatUid text (frameworks/base core/java/android/os/UserHandle.java; the "ai"
// app-zygote form since Android 10), as logcat's Start proc and looper_stats print it.
#include "parsers/android_uid.h"

#include <gtest/gtest.h>

namespace droidlab::parsers {
namespace {

TEST(AndroidUidTest, EveryFormUidPrints) {
  EXPECT_EQ(ParseFormattedUid("0"), 0);
  EXPECT_EQ(ParseFormattedUid("1000"), 1000);
  EXPECT_EQ(ParseFormattedUid("u0a0"), 10000);
  EXPECT_EQ(ParseFormattedUid("u0a123"), 10123);
  EXPECT_EQ(ParseFormattedUid("u10a5"), 1010005);
  EXPECT_EQ(ParseFormattedUid("u10a123"), 1010123);
  EXPECT_EQ(ParseFormattedUid("u0s1000"), 1000);
  EXPECT_EQ(ParseFormattedUid("u10s1000"), 1001000);
  EXPECT_EQ(ParseFormattedUid("u0i1"), 99001);
  EXPECT_EQ(ParseFormattedUid("u0i5"), 99005);
  EXPECT_EQ(ParseFormattedUid("u0ai3"), 90003);
}

TEST(AndroidUidTest, RefusesWhatFormatUidNeverPrints) {
  EXPECT_FALSE(ParseFormattedUid("-1").has_value());  // Message.UID_NONE
  EXPECT_FALSE(ParseFormattedUid("").has_value());
  EXPECT_FALSE(ParseFormattedUid("u").has_value());
  EXPECT_FALSE(ParseFormattedUid("ua1").has_value());
  EXPECT_FALSE(ParseFormattedUid("a5").has_value());
  EXPECT_FALSE(ParseFormattedUid("u0x1").has_value());
  EXPECT_FALSE(ParseFormattedUid("u0a").has_value());
  EXPECT_FALSE(ParseFormattedUid("u0a80000").has_value());  // would be an isolated app id
  EXPECT_FALSE(ParseFormattedUid("u0a99999").has_value());
  EXPECT_FALSE(ParseFormattedUid("10123").has_value());     // printed as u0a123
  EXPECT_FALSE(ParseFormattedUid("u99999a1").has_value());  // user id past INT32 uids
  EXPECT_FALSE(ParseFormattedUid("u0a12 ").has_value());
}

}  // namespace
}  // namespace droidlab::parsers
