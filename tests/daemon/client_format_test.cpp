// What the client commands print for people: tables, summaries, verdicts, progress.
#include "daemon/client_format.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace droidlab::daemon {
namespace {

using Json = nlohmann::json;

TEST(ClientFormatTest, TableColumnsAlignAndNumbersAlignRight) {
  EXPECT_EQ(
      FormatTable({{"ID", true}, {"NAME"}, {"NOTE"}}, {{"7", "a", ""}, {"12", "longer", "x"}}),
      "ID  NAME    NOTE\n"
      " 7  a\n"
      "12  longer  x\n");
}

TEST(ClientFormatTest, TableWidthsCountCharactersNotBytes) {
  EXPECT_EQ(FormatTable({{"MODEL"}, {"SDK", true}}, {{"小米 13", "34"}, {"Pixel", "33"}}),
            "MODEL  SDK\n"
            "小米 13   34\n"
            "Pixel   33\n");
}

TEST(ClientFormatTest, ValuesAndTimes) {
  EXPECT_EQ(FormatValue(Json(201.25)), "201.2");  // %.1f of a binary 201.25 rounds to even
  EXPECT_EQ(FormatValue(Json(200.0)), "200");
  EXPECT_EQ(FormatValue(Json(7)), "7");
  EXPECT_EQ(FormatValue(Json(nullptr)), "-");
  EXPECT_EQ(FormatValue(Json()), "-");
  EXPECT_EQ(FormatValue(Json(true)), "yes");
  EXPECT_EQ(FormatValue(Json("x")), "x");
  EXPECT_EQ(FormatTime(Json(int64_t{1795426189587})), "2026-11-23 09:29:49Z");
  EXPECT_EQ(FormatTime(Json(nullptr)), "-");
}

TEST(ClientFormatTest, DevicesTableFromTheApi) {
  const Json body = Json::parse(R"({"devices":[
      {"serial":"R58M123ABC","state":"device","model":"Pixel 7","manufacturer":"Google",
       "sdk":33,"release":"13","host":"lab-1","labels":["nightly","p7"],
       "last_seen":1795426189587},
      {"serial":"emulator-5554","state":"disconnected","model":null,"manufacturer":null,
       "sdk":null,"release":null,"host":null,"labels":[],"last_seen":1795426189587}]})");
  EXPECT_EQ(DevicesTable(body),
            "SERIAL         STATE         MODEL    MANUFACTURER  SDK  RELEASE  HOST   LABELS      "
            "LAST SEEN\n"
            "R58M123ABC     device        Pixel 7  Google         33  13       lab-1  nightly,p7  "
            "2026-11-23 09:29:49Z\n"
            "emulator-5554  disconnected  -        -               -  -        -      -           "
            "2026-11-23 09:29:49Z\n");
  EXPECT_EQ(DevicesTable(Json::parse(R"({"devices":[]})")),
            "SERIAL  STATE  MODEL  MANUFACTURER  SDK  RELEASE  HOST  LABELS  LAST SEEN\n");
}

TEST(ClientFormatTest, RunsTableNamesTheNextPage) {
  const Json body = Json::parse(R"({"runs":[{"id":3,"status":"failed","serial":"S",
      "device_model":"Pixel 7","package":"com.a","mode":"cold","iterations":20,
      "created_at":1795426189587,"finished_at":null}],"next_cursor":"abc"})");
  const std::string text = RunsTable(body);
  EXPECT_NE(text.find(" 3  failed  S       Pixel 7  com.a    cold"), std::string::npos) << text;
  EXPECT_NE(text.find("\nmore: --cursor abc\n"), std::string::npos) << text;
}

TEST(ClientFormatTest, RunSummaryHasTheMetricsThatHaveValues) {
  const Json run = Json::parse(R"({"id":12,"status":"succeeded","serial":"S",
      "device_model":"Pixel 7","package":"com.example.app","mode":"cold","iterations":20,
      "error":null,"launches":{"recorded":20,"valid":19},
      "summary":{"displayed_ms":{"count":19,"min":190,"median":200,"mean":201.3,"p90":210,
                                 "max":220,"stddev":8.1},
                 "fully_drawn_ms":null}})");
  EXPECT_EQ(RunSummaryText(run),
            "run 12 succeeded: com.example.app cold x20 on S (Pixel 7)\n"
            "launches: 20 recorded, 19 valid\n"
            "METRIC        COUNT  MIN  MEDIAN   MEAN  P90  MAX  STDDEV\n"
            "displayed_ms     19  190     200  201.3  210  220     8.1\n");
  const Json failed = Json::parse(R"({"id":13,"status":"failed","serial":"S","package":"com.a",
      "mode":"hot","iterations":2,"error":"preflight: package com.a is not installed on S"})");
  EXPECT_EQ(RunSummaryText(failed),
            "run 13 failed: com.a hot x2 on S\n"
            "error: preflight: package com.a is not installed on S\n");
}

TEST(ClientFormatTest, ComparisonSaysVerdictNumbersAndReason) {
  const Json c = Json::parse(R"({"verdict":"regression","baseline_id":11,"run_id":12,
      "baseline_median_ms":200,"candidate_median_ms":240,"delta_percent":20.0,
      "p_value":0.000123,"reason":"median +40 ms"})");
  EXPECT_EQ(ComparisonText(c),
            "regression against run 11: median 200 -> 240 ms (+20.0 %), p = 0.00012\n"
            "median +40 ms\n");
}

TEST(ClientFormatTest, ProgressFromARunAndFromAnEvent) {
  auto from_event = ProgressFromJson(Json::parse(R"({"id":5,"serial":"S","status":"running",
      "error":null,"progress":{"phase":"launching","iterations_done":8,"iterations":20,
      "valid_launches":7}})"));
  ASSERT_TRUE(from_event);
  EXPECT_EQ(ProgressLine(*from_event), "run 5: running, launching 8/20 (7 valid)");
  EXPECT_EQ(ProgressBar(*from_event, 80),
            "run 5 launching [################------------------------]  8/20");
  EXPECT_LE(ProgressBar(*from_event, 40).size(), 40u);
  auto queued = ProgressFromJson(Json::parse(R"({"id":5,"status":"queued","iterations":20,
      "progress":null,"launches":{"recorded":0,"valid":0}})"));
  ASSERT_TRUE(queued);
  EXPECT_EQ(ProgressLine(*queued), "run 5: queued");
  EXPECT_FALSE(ProgressFromJson(Json::parse(R"({"serial":"S"})")));
}

// Plain lines (not a terminal): one per status or phase change and per tenth of the run, so a
// 1000-iteration run does not print 1000 lines in a CI log.
TEST(ClientFormatTest, PlainProgressIsShort) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* memory = open_memstream(&text, &size);
  ASSERT_NE(memory, nullptr);
  {
    ProgressReporter reporter(memory, false);
    RunProgressView p{9, "running", "launching", 0, 100, 0};
    for (int i = 0; i <= 100; ++i) {
      p.done = i;
      p.valid = i;
      reporter.Update(p);
    }
    p.status = "succeeded";
    reporter.Update(p);
    reporter.Finish();
  }
  std::fclose(memory);
  const std::string out(text, size);
  std::free(text);
  int lines = 0;
  for (char c : out) lines += c == '\n';
  EXPECT_EQ(lines, 12) << out;  // 0, 10, …, 100, then the end
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_NE(out.find("run 9: succeeded 100/100 (100 valid)\n"), std::string::npos) << out;
}

TEST(ClientFormatTest, TerminalProgressRedrawsOneLine) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* memory = open_memstream(&text, &size);
  ASSERT_NE(memory, nullptr);
  {
    ProgressReporter reporter(memory, true, 60);
    reporter.Update({9, "running", "launching", 1, 4, 1});
    reporter.Update({9, "running", "launching", 2, 4, 2});
    reporter.Finish();
  }
  std::fclose(memory);
  const std::string out(text, size);
  std::free(text);
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;  // one line, ended once
  EXPECT_NE(out.find("\r\033[Krun 9 launching ["), std::string::npos) << out;
}

}  // namespace
}  // namespace droidlab::daemon
