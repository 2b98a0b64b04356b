// ParseJsonBody (orchestrator/spec/json_body.h): one parse, a depth limit, no key twice, the path
// of the offending key; and ParseScheduleSpec (orchestrator/lab/schedule_spec.h) on top of it.
#include "orchestrator/spec/json_body.h"

#include <gtest/gtest.h>

#include <string>

#include "orchestrator/lab/schedule_spec.h"

namespace droidlab::orchestrator {
namespace {

std::string Arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonBodyTest, SixtyFourLevelsAreReadSixtyFiveAreNot) {
  auto at_limit = ParseJsonBody(Arrays(64));
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message;
  auto over = ParseJsonBody(Arrays(65));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().field, "");
  EXPECT_EQ(over.error().message, "is nested deeper than 64 levels");
}

TEST(JsonBodyTest, AMillionOpenBracketsAreRefusedWithoutRecursion) {
  // Would overflow the stack in a recursive parser, dump() or destructor.
  auto over = ParseJsonBody(std::string(1'000'000, '['));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, "is nested deeper than 64 levels");
}

TEST(JsonBodyTest, ADuplicateKeyIsNamedByItsPath) {
  auto dup = ParseJsonBody(R"({"a":[{"b":1},{"c":{"d":1,"d":2}}]})");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().field, "a[1].c.d");
  EXPECT_EQ(dup.error().message, "is given more than once");
  // The same key in sibling objects is not a duplicate.
  EXPECT_TRUE(ParseJsonBody(R"({"a":{"x":1},"b":{"x":1}})").ok());
}

TEST(JsonBodyTest, ValuesAreBuiltAsNlohmannWould) {
  const std::string text =
      R"({"s":"x\u00e9","i":-3,"u":18446744073709551615,"f":1.5,"n":null,"t":true,"a":[1,[2,{}],[]],"o":{}})";
  auto parsed = ParseJsonBody(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(*parsed, nlohmann::json::parse(text));
}

TEST(JsonBodyTest, SyntaxErrorsCarryNlohmannsWordsWithoutItsPrefix) {
  auto bad = ParseJsonBody(R"({"a":1,})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "");
  EXPECT_EQ(bad.error().message.rfind("is not valid JSON: parse error at line 1", 0), 0u)
      << bad.error().message;
  EXPECT_FALSE(ParseJsonBody("").ok());
  EXPECT_FALSE(ParseJsonBody("1 2").ok());
  EXPECT_FALSE(ParseJsonBody("\"\xff\"").ok());  // not UTF-8
}

TEST(ScheduleSpecTest, TheRunIsCheckedOnTheParsedValueAndNamedUnderRun) {
  const std::string run =
      R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold","iterations":2})";
  auto ok = ParseScheduleSpec(R"({"cron":"0 2 * * *","timezone":"Europe/Berlin","run":)" + run +
                              R"(,"enabled":false})");
  ASSERT_TRUE(ok.ok()) << ok.error().field << ": " << ok.error().message;
  EXPECT_EQ(ok->timezone, "Europe/Berlin");
  EXPECT_EQ(ok->run.iterations, 2);
  EXPECT_FALSE(ok->enabled);

  auto not_object = ParseScheduleSpec(R"({"cron":"0 2 * * *","run":"nightly"})");
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.error().field, "run");
  EXPECT_EQ(not_object.error().message, "must be a JSON object, got string");

  auto bad_package = ParseScheduleSpec(
      R"({"cron":"0 2 * * *","run":{"serial":"x","package":"a;b","mode":"cold","iterations":1}})");
  ASSERT_FALSE(bad_package.ok());
  EXPECT_EQ(bad_package.error().field, "run.package");

  auto unknown = ParseScheduleSpec(R"({"cron":"0 2 * * *","run":)" + run + R"(,"when":1})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().field, "when");
}

}  // namespace
}  // namespace droidlab::orchestrator
