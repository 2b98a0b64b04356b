// The JUnit report of `droidlab run --junit`, read back with a real XML parser.
#include "daemon/junit_report.h"

#include <gtest/gtest.h>

#include "tests/common/xml_document.h"

namespace droidlab::daemon {
namespace {

using Json = nlohmann::json;
using testutil::ParseXml;
using testutil::XmlElement;

Json RunJson(const std::string& status, const Json& error = nullptr) {
  Json run = Json::parse(R"({"id":12,"serial":"R58M<1>&\"2\"","device_model":"Pixel 7",
      "package":"com.example.app","activity":null,"mode":"cold","iterations":3,
      "created_at":1795426189587,"started_at":1795426190000,"finished_at":1795426195500,
      "launches":{"recorded":3,"valid":2},
      "summary":{"displayed_ms":{"count":2,"min":190,"median":195,"mean":195,"p90":199,
                                 "max":200,"stddev":7.1}}})");
  run["status"] = status;
  run["error"] = error;
  return run;
}

const Json kLaunches = Json::parse(R"({"launches":[
    {"iteration":1,"displayed_ms":190,"valid":true,"invalid_reason":null},
    {"iteration":2,"displayed_ms":null,"valid":false,"invalid_reason":"no Displayed line <30 s>"},
    {"iteration":3,"displayed_ms":200,"valid":true,"invalid_reason":null}]})");

TEST(JunitReportTest, XmlEscapeCoversMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(XmlEscape(R"(<a href="x">Tom & 'Jerry'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;");
  EXPECT_EQ(XmlEscape(std::string("bell\x07 nul") + '\0' + "\ttab\nline"),
            "bell\xEF\xBF\xBD nul\xEF\xBF\xBD\ttab\nline");
  EXPECT_EQ(XmlEscape("Pixel 7 – 小米"), "Pixel 7 – 小米");
}

TEST(JunitReportTest, ASucceededRunHasOneCasePerLaunchAndNoFailure) {
  const std::string xml = JunitReport(RunJson("succeeded"), kLaunches, std::nullopt, std::nullopt);
  auto doc = ParseXml(xml);
  ASSERT_TRUE(doc) << doc.error() << "\n" << xml;
  const XmlElement* suite = (*doc)->Find("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->attributes.at("name"), "droidlab.com.example.app.cold");
  EXPECT_EQ(suite->attributes.at("tests"), "4");
  EXPECT_EQ(suite->attributes.at("failures"), "0");
  EXPECT_EQ(suite->attributes.at("skipped"), "1");
  EXPECT_EQ(suite->attributes.at("timestamp"), "2026-11-23T09:29:49");
  EXPECT_EQ(suite->attributes.at("hostname"), "R58M<1>&\"2\"");  // escaped, read back whole
  auto cases = suite->Children("testcase");
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0]->attributes.at("name"), "run 12");
  EXPECT_EQ(cases[0]->attributes.at("time"), "5.500");
  EXPECT_EQ(cases[0]->Find("failure"), nullptr);
  EXPECT_EQ(cases[1]->attributes.at("name"), "launch 1");
  EXPECT_EQ(cases[1]->attributes.at("time"), "0.190");
  const XmlElement* skipped = cases[2]->Find("skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->attributes.at("message"), "no Displayed line <30 s>");
}

// Issue 14 §3: a warm-up launch is in the report, named so, skipped as not counted.
TEST(JunitReportTest, AWarmupLaunchIsSkippedAsNotCounted) {
  const Json launches = Json::parse(
      R"({"launches":[{"iteration":1,"displayed_ms":900,"valid":true,"warmup":true},
                      {"iteration":2,"displayed_ms":190,"valid":true,"warmup":false}]})");
  const std::string xml = JunitReport(RunJson("succeeded"), launches, std::nullopt, std::nullopt);
  auto doc = ParseXml(xml);
  ASSERT_TRUE(doc) << doc.error() << "\n" << xml;
  auto cases = (*doc)->Find("testsuite")->Children("testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[1]->attributes.at("name"), "warm-up 1");
  const XmlElement* skipped = cases[1]->Find("skipped");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->attributes.at("message"), "warm-up launch, left out of the statistics");
  EXPECT_EQ(cases[2]->attributes.at("name"), "launch 2");
  EXPECT_EQ(cases[2]->Find("skipped"), nullptr);
}

TEST(JunitReportTest, AFailedRunFailsWithItsError) {
  const std::string error = "preflight: package <com.a> & \"x\" is not installed\x01";
  const std::string xml = JunitReport(RunJson("failed", error), Json(), std::nullopt, std::nullopt);
  auto doc = ParseXml(xml);
  ASSERT_TRUE(doc) << doc.error() << "\n" << xml;
  const XmlElement* suite = (*doc)->Find("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->attributes.at("failures"), "1");
  const XmlElement* failure = suite->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "failed");
  EXPECT_EQ(failure->attributes.at("message"),
            "run failed: preflight: package <com.a> & \"x\" is not installed\xEF\xBF\xBD");
}

TEST(JunitReportTest, ARegressionFailsTheComparisonCase) {
  const Json comparison = Json::parse(R"({"verdict":"regression","baseline_id":11,
      "baseline_median_ms":200,"candidate_median_ms":240,"delta_percent":20.0,"p_value":0.0001,
      "reason":"p < 0.01 & |Δ| >= 5 %"})");
  const std::string xml = JunitReport(RunJson("succeeded"), kLaunches, comparison, std::nullopt);
  auto doc = ParseXml(xml);
  ASSERT_TRUE(doc) << doc.error() << "\n" << xml;
  const XmlElement* suite = (*doc)->Find("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->attributes.at("tests"), "5");
  EXPECT_EQ(suite->attributes.at("failures"), "1");
  auto cases = suite->Children("testcase");
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[4]->attributes.at("name"), "compare with run 11");
  const XmlElement* failure = cases[4]->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "regression");
  EXPECT_NE(failure->text.find("p < 0.01 & |Δ| >= 5 %"), std::string::npos) << failure->text;

  const Json same = Json::parse(R"({"verdict":"no_significant_change","baseline_id":11})");
  auto ok = ParseXml(JunitReport(RunJson("succeeded"), kLaunches, same, std::nullopt));
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)->Find("testsuite")->attributes.at("failures"), "0");
}

TEST(JunitReportTest, AComparisonThatCouldNotBeMadeFails) {
  auto doc = ParseXml(JunitReport(RunJson("succeeded"), Json(), std::nullopt,
                                  std::string("the daemon answered 404 <no run 99>")));
  ASSERT_TRUE(doc) << doc.error();
  const XmlElement* failure = (*doc)->Find("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->attributes.at("type"), "comparison");
  EXPECT_EQ(failure->attributes.at("message"), "the daemon answered 404 <no run 99>");
}

}  // namespace
}  // namespace droidlab::daemon
