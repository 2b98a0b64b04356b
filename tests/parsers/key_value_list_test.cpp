// The looper_stats setting as android.util.KeyValueListParser reads it
// (frameworks/base/core/java/android/util/KeyValueListParser.java; LooperStatsService, Android
// 9+), and `settings get` output (SettingsService's shell command: the value, or "null").
#include "parsers/key_value_list.h"

#include <gtest/gtest.h>

#include <string>

namespace droidlab::parsers {
namespace {

constexpr const char* kLooperStats =
    "enabled=true,sampling_interval=1000,track_screen_state=false,ignore_battery_status=true";

TEST(KeyValueListTest, LooperStatsValue) {
  KeyValueList kv = ParseKeyValueList(kLooperStats);
  ASSERT_EQ(kv.pairs.size(), 4u);
  EXPECT_EQ(kv.pairs[0].key, "enabled");
  EXPECT_EQ(kv.pairs[3].key, "ignore_battery_status");
  EXPECT_TRUE(kv.AcceptedByAndroid());
  EXPECT_TRUE(kv.GetBool("enabled", false));
  EXPECT_FALSE(kv.GetBool("track_screen_state", true));
  EXPECT_TRUE(kv.GetBool("ignore_battery_status", false));
  EXPECT_EQ(kv.GetInt("sampling_interval", 1), 1000);
  EXPECT_EQ(kv.GetLong("sampling_interval", 1), 1000);
  EXPECT_EQ(kv.GetInt("absent", 7), 7);
  EXPECT_FALSE(kv.Get("absent").has_value());
}

// Round trip: a value in canonical form comes back byte for byte, unknown keys and order kept.
TEST(KeyValueListTest, RoundTripKeepsOrderAndUnknownKeys) {
  for (std::string_view text :
       {std::string_view(kLooperStats), std::string_view("zeta=1,vendor_thing=x,enabled=false"),
        std::string_view("a=,b=c=d"), std::string_view(""), std::string_view("k=v")}) {
    KeyValueList kv = ParseKeyValueList(text);
    EXPECT_TRUE(kv.AcceptedByAndroid()) << text;
    EXPECT_EQ(kv.Serialize(), text);
    EXPECT_EQ(ParseKeyValueList(kv.Serialize()).Serialize(), kv.Serialize());
  }
  // "b=c=d": cut at the first '='.
  EXPECT_EQ(ParseKeyValueList("a=,b=c=d").Get("b"), "c=d");
  EXPECT_EQ(ParseKeyValueList("a=,b=c=d").Get("a"), "");
}

// Enabling for a run and restoring: Set keeps the other keys in place.
TEST(KeyValueListTest, SetAndRemove) {
  KeyValueList kv = ParseKeyValueList("sampling_interval=100,vendor=1,enabled=false");
  kv.Set("enabled", "true");
  kv.Set("sampling_interval", "1");
  kv.Set("ignore_battery_status", "true");
  EXPECT_EQ(kv.Serialize(),
            "sampling_interval=1,vendor=1,enabled=true,ignore_battery_status=true");
  EXPECT_TRUE(kv.Remove("vendor"));
  EXPECT_FALSE(kv.Remove("vendor"));
  EXPECT_EQ(kv.Serialize(), "sampling_interval=1,enabled=true,ignore_battery_status=true");
}

// ArrayMap.put: the last of a repeated key wins; Set leaves one.
TEST(KeyValueListTest, RepeatedKeyLastWins) {
  KeyValueList kv = ParseKeyValueList("enabled=true,x=1,enabled=false");
  EXPECT_FALSE(kv.GetBool("enabled", true));
  EXPECT_EQ(kv.Serialize(), "enabled=true,x=1,enabled=false");  // kept as read
  kv.Set("enabled", "true");
  EXPECT_EQ(kv.Serialize(), "x=1,enabled=true");
}

// KeyValueListParser trims keys and values like String.trim.
TEST(KeyValueListTest, TrimsLikeJava) {
  KeyValueList kv = ParseKeyValueList(" enabled = true ,\tsampling_interval=\t50,");
  ASSERT_EQ(kv.pairs.size(), 2u);
  EXPECT_TRUE(kv.GetBool("enabled", false));
  EXPECT_EQ(kv.GetInt("sampling_interval", 0), 50);
  EXPECT_TRUE(kv.AcceptedByAndroid());  // a trailing ',' adds nothing
  EXPECT_EQ(kv.Serialize(), "enabled=true,sampling_interval=50");
}

// Boolean.parseBoolean: "TRUE" is true, "1" and "yes" are false (not the default).
TEST(KeyValueListTest, BoolAsJavaParsesIt) {
  KeyValueList kv = ParseKeyValueList("a=TRUE,b=1,c=yes,d=");
  EXPECT_TRUE(kv.GetBool("a", false));
  EXPECT_FALSE(kv.GetBool("b", true));
  EXPECT_FALSE(kv.GetBool("c", true));
  EXPECT_FALSE(kv.GetBool("d", true));
  EXPECT_TRUE(kv.GetBool("missing", true));
}

// Integer.parseInt: '+' or '-', decimal, int range; anything else gives the default.
TEST(KeyValueListTest, IntAsJavaParsesIt) {
  KeyValueList kv = ParseKeyValueList(
      "plus=+5,minus=-5,hex=0x10,big=2147483648,max=2147483647,empty=,sign=+,twice=+-1,word=ten");
  EXPECT_EQ(kv.GetInt("plus", 0), 5);
  EXPECT_EQ(kv.GetInt("minus", 0), -5);
  EXPECT_EQ(kv.GetInt("hex", 9), 9);
  EXPECT_EQ(kv.GetInt("big", 9), 9);
  EXPECT_EQ(kv.GetLong("big", 9), 2147483648);
  EXPECT_EQ(kv.GetInt("max", 9), 2147483647);
  EXPECT_EQ(kv.GetInt("empty", 9), 9);
  EXPECT_EQ(kv.GetInt("sign", 9), 9);
  EXPECT_EQ(kv.GetInt("twice", 9), 9);
  EXPECT_EQ(kv.GetInt("word", 9), 9);
}

// A piece without '=' (an empty one included) makes KeyValueListParser throw: the device then
// ignores the whole setting. Counted, kept out of Serialize, never fatal here.
TEST(KeyValueListTest, MalformedPiecesAreKeptApart) {
  KeyValueList kv = ParseKeyValueList("enabled=true,garbage,,sampling_interval=5");
  EXPECT_FALSE(kv.AcceptedByAndroid());
  ASSERT_EQ(kv.malformed.size(), 2u);
  EXPECT_EQ(kv.malformed[0], "garbage");
  EXPECT_EQ(kv.malformed[1], "");
  EXPECT_EQ(kv.Serialize(), "enabled=true,sampling_interval=5");
  EXPECT_FALSE(ParseKeyValueList(",enabled=true").AcceptedByAndroid());
}

TEST(KeyValueListSettingsGetTest, UnsetIsNull) {
  auto r = ParseSettingsGet("null\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->unset());
}

// The exact previous value comes back for `settings put`, spaces and all.
TEST(KeyValueListSettingsGetTest, ValueVerbatim) {
  auto r = ParseSettingsGet(std::string(kLooperStats) + "\n");
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->unset());
  EXPECT_EQ(*r->value, kLooperStats);
  EXPECT_EQ(ParseKeyValueList(*r->value).Serialize(), kLooperStats);

  auto spaced = ParseSettingsGet(" enabled = true \r\r\n");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(spaced->value, " enabled = true ");
}

TEST(KeyValueListSettingsGetTest, EmptyValueAndErrors) {
  auto r = ParseSettingsGet("\n");  // set, to the empty string
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value, "");
  EXPECT_EQ(ParseSettingsGet("").error().code, ParseErrorCode::kEmpty);
  // No line end (a capture cut short) is still the value.
  EXPECT_EQ(ParseSettingsGet("null")->value, std::nullopt);
  EXPECT_EQ(ParseSettingsGet("enabled=true")->value, "enabled=true");
}

}  // namespace
}  // namespace droidlab::parsers
