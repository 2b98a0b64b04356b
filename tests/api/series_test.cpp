// GET /api/v1/series and GET /api/v1/packages/{package}/series over real HTTP, on a store whose
// runs were summarised as the daemon summarises them (orchestrator/lab/run_summaries.h): the
// JSON shape, one series per package × model × mode × metric in time order, the time bounds,
// the runs of an unknown model, and a 400 naming each bad parameter.
#include <string>
#include <vector>

#include "orchestrator/lab/run_summaries.h"
#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

class SeriesApiTest : public ApiTest {
 protected:
  // A succeeded run with one valid launch per value of `displayed`, summarised; its first `hot`
  // launches (all by default) measured at `thermal` (ThermalStatus's name) when given.
  int64_t AddSummarisedRun(
      int64_t created_at, std::optional<std::string> model, const std::string& mode,
      const std::vector<int64_t>& displayed, int64_t version_code = 1200,
      const std::string& spec_json = "{}",
      const std::string& fingerprint = "google/panther/panther:14/UQ1A/1:user/release-keys",
      std::optional<std::string> thermal = std::nullopt, size_t hot = SIZE_MAX) {
    store::NewRun run;
    run.spec_json = spec_json;
    run.serial = kSerial;
    run.device_model = std::move(model);
    run.package = "com.a";
    run.mode = mode;
    run.iterations = static_cast<int64_t>(displayed.size());
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok());
    store::RunStatusUpdate done;
    done.run_id = *id;
    done.status = store::RunStatus::kSucceeded;
    done.fingerprint = fingerprint;
    done.preflight_json = R"({"package":{"version_code":)" + std::to_string(version_code) +
                          R"(,"compiler_filter":"speed-profile"}})";
    EXPECT_TRUE(store_->UpdateRunStatus(done).ok());
    std::vector<store::Launch> launches;
    for (size_t i = 0; i < displayed.size(); ++i) {
      store::Launch l;
      l.run_id = *id;
      l.iteration = static_cast<int64_t>(i) + 1;
      l.displayed_ms = displayed[i];
      l.total_time_ms = displayed[i] + 5;
      if (i < hot) l.thermal_status = thermal;
      launches.push_back(l);
    }
    EXPECT_TRUE(store_->AddLaunches(launches).ok());
    auto stored = store_->Read([&](store::Reader& r) { return r.GetRun(*id); });
    EXPECT_TRUE(stored.ok());
    EXPECT_TRUE(
        store_->AddRunSummaries(orchestrator::SummarizeRunForSeries(*stored, launches)).ok());
    return *id;
  }

  // A nightly's 20 launches around `level` ms (±2 %, the same spread every run).
  static std::vector<int64_t> Launches(int64_t level) {
    std::vector<int64_t> out;
    for (int i = 0; i < 20; ++i) out.push_back(level + level * ((i * 7) % 9 - 4) / 200);
    return out;
  }

  Json Get(const std::string& target, int want = 200) {
    const Response r = Call("GET", target);
    EXPECT_EQ(r.status, want) << target << ": " << r.body;
    return Json::parse(r.body, nullptr, false);
  }

  static std::vector<int64_t> RunIds(const Json& body) {
    std::vector<int64_t> ids;
    for (const Json& p : body["points"]) ids.push_back(p["run_id"].get<int64_t>());
    return ids;
  }
};

TEST_F(SeriesApiTest, ASeriesIsItsRunsInTimeOrderWithTheirSummaries) {
  const int64_t second = AddSummarisedRun(2000, "Pixel 7", "cold", {600, 610, 620, 630});
  const int64_t first = AddSummarisedRun(1000, "Pixel 7", "cold", {500, 510, 520});
  AddSummarisedRun(1500, "Pixel 8", "cold", {400});
  AddSummarisedRun(1500, "Pixel 7", "warm", {300});
  Start();
  const Response r = Call("GET", "/api/v1/series?package=com.a&model=Pixel%207&mode=cold");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.headers.at("etag").empty());
  const Json body = Json::parse(r.body);
  EXPECT_EQ(body["package"], "com.a");
  EXPECT_EQ(body["model"], "Pixel 7");
  EXPECT_EQ(body["mode"], "cold");
  EXPECT_EQ(body["metric"], "displayed_ms");  // the default
  EXPECT_EQ(body["change_points"], Json::array());
  ASSERT_EQ(RunIds(body), (std::vector<int64_t>{first, second}));
  const Json& p = body["points"][0];
  std::vector<std::string> keys;
  for (auto it = p.begin(); it != p.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"build_id", "ci_high", "ci_low", "compilation", "count",
                                            "fingerprint", "hot_launches", "median",
                                            "out_of_range", "p90", "run_id", "t",
                                            "version_code"}));
  EXPECT_EQ(p["t"], 1000);
  EXPECT_EQ(p["count"], 3);
  EXPECT_EQ(p["median"], 510.0);
  EXPECT_DOUBLE_EQ(p["p90"].get<double>(), 518.0);
  EXPECT_TRUE(p["ci_low"].is_number());
  EXPECT_LE(p["ci_low"].get<double>(), 510.0);
  EXPECT_GE(p["ci_high"].get<double>(), 510.0);
  EXPECT_TRUE(p["build_id"].is_null());
  EXPECT_EQ(p["version_code"], 1200);
  EXPECT_EQ(p["fingerprint"], "google/panther/panther:14/UQ1A/1:user/release-keys");
  EXPECT_EQ(p["compilation"], "speed-profile");
  EXPECT_EQ(body["points"][1]["median"], 615.0);

  const Json total =
      Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold&metric=total_time_ms");
  EXPECT_EQ(total["metric"], "total_time_ms");
  EXPECT_EQ(total["points"][0]["median"], 515.0);
  const Json fully_drawn =
      Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold&metric=fully_drawn_ms");
  EXPECT_EQ(fully_drawn["points"], Json::array());  // no run reported it
  const Json warm = Get("/api/v1/series?package=com.a&model=Pixel%207&mode=warm");
  EXPECT_EQ(warm["points"].size(), 1u);
  EXPECT_EQ(warm["points"][0]["median"], 300.0);
  const Json other = Get("/api/v1/series?package=com.b&model=Pixel%207&mode=cold");
  EXPECT_EQ(other["points"], Json::array());
}

TEST_F(SeriesApiTest, SinceAndUntilBoundTheRunsTime) {
  std::vector<int64_t> ids;
  for (int64_t t : {1000, 2000, 3000}) ids.push_back(AddSummarisedRun(t, "Pixel 7", "cold", {500}));
  Start();
  EXPECT_EQ(RunIds(Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold&since=2000")),
            (std::vector<int64_t>{ids[1], ids[2]}));
  EXPECT_EQ(RunIds(Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold&until=2000")),
            (std::vector<int64_t>{ids[0], ids[1]}));
  EXPECT_EQ(
      RunIds(Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold&since=1500&until=2500")),
      (std::vector<int64_t>{ids[1]}));
}

// model= (given, empty) is the series of the runs on phones whose model droidlab never learnt;
// GET /packages/{package}/series lists it with "model": null.
TEST_F(SeriesApiTest, AnEmptyModelIsTheRunsOfAnUnknownModel) {
  const int64_t unknown = AddSummarisedRun(1000, std::nullopt, "cold", {500});
  const int64_t known = AddSummarisedRun(2000, "Pixel 7", "cold", {600, 610});
  Start();
  const Json body = Get("/api/v1/series?package=com.a&model=&mode=cold");
  EXPECT_TRUE(body["model"].is_null());
  EXPECT_EQ(RunIds(body), (std::vector<int64_t>{unknown}));

  const Json list = Get("/api/v1/packages/com.a/series");
  EXPECT_EQ(list["package"], "com.a");
  ASSERT_EQ(list["series"].size(), 4u) << list.dump();  // 2 models × displayed, total
  EXPECT_TRUE(list["series"][0]["model"].is_null());
  EXPECT_EQ(list["series"][0]["mode"], "cold");
  EXPECT_EQ(list["series"][0]["metric"], "displayed_ms");
  EXPECT_EQ(list["series"][0]["points"], 1);
  EXPECT_EQ(list["series"][2]["model"], "Pixel 7");
  EXPECT_EQ(list["series"][2]["first_t"], 2000);
  EXPECT_EQ(list["series"][2]["last_t"], 2000);
  EXPECT_EQ(list["series"][3]["metric"], "total_time_ms");
  EXPECT_EQ(Get("/api/v1/packages/com.none/series")["series"], Json::array());
  (void)known;
}

// The points are written straight into the body (series_routes.cpp): a value that needs escaping
// still comes back as stored, and the body is JSON.
TEST_F(SeriesApiTest, AFingerprintThatNeedsEscapingComesBackAsStored) {
  const std::string odd = "vendor/\"odd\"\\build:14/\x01/\xc3\xa9:user";
  const int64_t id = AddSummarisedRun(1000, "Pixel \"7\"", "cold", {500, 510}, 1200, "{}", odd);
  auto run = store_->Read([&](store::Reader& r) { return r.GetRun(id); });
  auto launches = store_->Read([&](store::Reader& r) { return r.ListLaunches(id); });
  ASSERT_TRUE(store_->AddRunSummaries(orchestrator::SummarizeRunForSeries(*run, *launches)).ok());
  Start();
  const Json body = Get("/api/v1/series?package=com.a&model=Pixel%20%227%22&mode=cold");
  ASSERT_EQ(body["points"].size(), 1u) << body.dump();
  EXPECT_EQ(body["model"], "Pixel \"7\"");
  EXPECT_EQ(body["points"][0]["fingerprint"], odd);
  EXPECT_EQ(body["points"][0]["median"], 505.0);
}

struct BadSeries {
  const char* name;
  const char* query;
  const char* message_start;
};

class SeriesRefusedTest : public SeriesApiTest, public ::testing::WithParamInterface<BadSeries> {};

TEST_P(SeriesRefusedTest, IsA400NamingTheParameter) {
  Start();
  const Response r = Call("GET", std::string("/api/v1/series?") + GetParam().query);
  ASSERT_EQ(r.status, 400) << r.body;
  const Json body = Json::parse(r.body);
  EXPECT_EQ(body["error"]["code"], "invalid_argument");
  EXPECT_EQ(body["error"]["message"].get<std::string>().rfind(GetParam().message_start, 0), 0u)
      << body.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Parameters, SeriesRefusedTest,
    ::testing::Values(
        BadSeries{"NoPackage", "model=Pixel%207&mode=cold", "package: is required"},
        BadSeries{"EmptyPackage", "package=&model=Pixel%207&mode=cold", "package: is required"},
        BadSeries{"NoModel", "package=com.a&mode=cold", "model: is required"},
        BadSeries{"NoMode", "package=com.a&model=Pixel%207", "mode: is required"},
        BadSeries{"BadMode", "package=com.a&model=Pixel%207&mode=lukewarm",
                  "mode: 'lukewarm' is not cold, warm or hot"},
        BadSeries{"BadMetric", "package=com.a&model=Pixel%207&mode=cold&metric=wait_time_ms",
                  "metric: 'wait_time_ms' is not one of displayed_ms, fully_drawn_ms, "
                  "total_time_ms"},
        BadSeries{"SinceNotANumber", "package=com.a&model=Pixel%207&mode=cold&since=yesterday",
                  "since: expected milliseconds since the Unix epoch"},
        BadSeries{"NegativeUntil", "package=com.a&model=Pixel%207&mode=cold&until=-1",
                  "until: expected milliseconds since the Unix epoch"},
        BadSeries{"UntilBeforeSince", "package=com.a&model=Pixel%207&mode=cold&since=5&until=4",
                  "until: is before since"}),
    [](const ::testing::TestParamInfo<BadSeries>& param_info) {
      return std::string(param_info.param.name);
    });

// Issue 15 §2: twelve nightlies of build 1200 at 500 ms, then build 1201 at 600 ms from the
// thirteenth on. The series has one change point, at exactly that run, explained by the build —
// the app's own change — and nowhere else.
TEST_F(SeriesApiTest, AStepIsAChangePointAtItsRunExplainedByTheBuild) {
  std::vector<int64_t> ids;
  for (int64_t n = 0; n < 18; ++n) {
    const bool stepped = n >= 12;
    ids.push_back(AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(stepped ? 600 : 500),
                                   stepped ? 1201 : 1200));
  }
  Start();
  const Json body = Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold");
  ASSERT_EQ(body["points"].size(), 18u);
  ASSERT_EQ(body["change_points"].size(), 1u) << body["change_points"].dump();
  const Json& change = body["change_points"][0];
  EXPECT_EQ(change["run_id"], ids[12]);
  EXPECT_EQ(change["t"], 1012);
  EXPECT_NEAR(change["delta_pct"].get<double>(), 20.0, 1.0);
  EXPECT_EQ(change["explained_by"], Json::array({"build"}));
  EXPECT_TRUE(change["app_change"].get<bool>());
  EXPECT_LT(change["ci"][0].get<double>(), change["delta_pct"].get<double>());
  EXPECT_GT(change["ci"][1].get<double>(), change["delta_pct"].get<double>());
}

// Two nights after a step are too few for a change point (3 runs each side), but they moved
// together: the series and the second night's verdict say so as "emerging", at the first.
TEST_F(SeriesApiTest, TheFirstNightsOfAStepAreAnEmergingShiftBeforeAChangePoint) {
  std::vector<int64_t> ids;
  for (int64_t n = 0; n < 14; ++n) {
    const bool stepped = n >= 12;
    ids.push_back(AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(stepped ? 600 : 500),
                                   stepped ? 1201 : 1200));
  }
  Start();
  const Json body = Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold");
  EXPECT_EQ(body["change_points"], Json::array()) << body["change_points"].dump();
  const Json& emerging = body["emerging"];
  ASSERT_TRUE(emerging.is_object()) << body.dump();
  EXPECT_EQ(emerging["run_id"], ids[12]);
  EXPECT_EQ(emerging["runs_after"], 2);
  EXPECT_NEAR(emerging["delta_pct"].get<double>(), 20.0, 1.0);
  EXPECT_EQ(emerging["explained_by"], Json::array({"build"}));
  const Json verdict = Get("/api/v1/runs/" + std::to_string(ids[13]) + "/verdict");
  EXPECT_EQ(verdict["emerging"]["run_id"], ids[12]) << verdict.dump();

  // Before the step: nothing emerging.
  const Json before = Get("/api/v1/runs/" + std::to_string(ids[11]) + "/verdict");
  EXPECT_TRUE(before["emerging"].is_null()) << before.dump();
}

// GET /runs/{id}/verdict: tonight's run against the current segment of its series, not the
// previous run alone.
TEST_F(SeriesApiTest, AVerdictJudgesARunAgainstItsSegment) {
  for (int64_t n = 0; n < 10; ++n) AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(500));
  const int64_t same = AddSummarisedRun(1010, "Pixel 7", "cold", Launches(502), 1201);
  const int64_t slower = AddSummarisedRun(1011, "Pixel 7", "cold", Launches(600), 1202);
  Start();
  const Json passed = Get("/api/v1/runs/" + std::to_string(same) + "/verdict");
  EXPECT_EQ(passed["verdict"], "no_change") << passed.dump();
  EXPECT_EQ(passed["floor_source"], "fixed");
  EXPECT_EQ(passed["floor_pct"], 5.0);
  EXPECT_EQ(passed["segment"]["runs"], 10) << passed.dump();
  const Json caught = Get("/api/v1/runs/" + std::to_string(slower) + "/verdict");
  EXPECT_EQ(caught["verdict"], "regression") << caught.dump();
  EXPECT_NEAR(caught["delta_pct"].get<double>(), 20.0, 1.5);
  EXPECT_GT(caught["ci"][0].get<double>(), 5.0);
  EXPECT_LT(caught["p"].get<double>(), 0.001);
  EXPECT_EQ(caught["metric"], "displayed_ms");
  EXPECT_EQ(caught["series_runs"], 12);
  Get("/api/v1/runs/999/verdict", 404);
}

// Issue 15 §2, the conditions: a night measured on a phone hotter than the run's limits (every
// launch at thermal status "severe", the default limit being "light") is out of range. Its own
// verdict is not comparable, saying so; it is no change point although it is 20 % slower; and
// the next night, two of whose launches were hot, is judged against the ten cool nights, the hot
// one left out of the segment.
TEST_F(SeriesApiTest, ANightMeasuredTooHotIsLeftOutOfItsHistory) {
  for (int64_t n = 0; n < 10; ++n) AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(500));
  const int64_t hot =
      AddSummarisedRun(1010, "Pixel 7", "cold", Launches(600), 1200, "{}",
                       "google/panther/panther:14/UQ1A/1:user/release-keys", "severe");
  // The next night had a cool-down time out twice (two launches of twenty measured at
  // "moderate"): a tenth, not out of range (lab/history_verdict.h's OutOfRange).
  const int64_t next =
      AddSummarisedRun(1011, "Pixel 7", "cold", Launches(502), 1200, "{}",
                       "google/panther/panther:14/UQ1A/1:user/release-keys", "moderate", 2);
  Start();
  const Json verdict = Get("/api/v1/runs/" + std::to_string(hot) + "/verdict");
  EXPECT_EQ(verdict["verdict"], "not_comparable") << verdict.dump();
  EXPECT_NE(verdict["reason"].get<std::string>().find("conditions were out of range"),
            std::string::npos)
      << verdict.dump();
  const Json after = Get("/api/v1/runs/" + std::to_string(next) + "/verdict");
  EXPECT_EQ(after["verdict"], "no_change") << after.dump();
  EXPECT_EQ(after["segment"]["runs"], 10)
      << "the hot night is not in the segment: " << after.dump();
  const Json body = Get("/api/v1/series?package=com.a&model=Pixel%207&mode=cold");
  ASSERT_EQ(body["points"].size(), 12u);
  EXPECT_EQ(body["points"][10]["hot_launches"], 20) << "every launch of the hot night";
  EXPECT_EQ(body["points"][11]["hot_launches"], 2);
  // Each point says whether the history leaves it out, so a client (the Trends page) marks it
  // without knowing the quarter rule.
  EXPECT_EQ(body["points"][10]["out_of_range"], true) << body["points"][10].dump();
  EXPECT_EQ(body["points"][11]["out_of_range"], false) << body["points"][11].dump();
  EXPECT_EQ(body["points"][0]["out_of_range"], false) << body["points"][0].dump();
  EXPECT_EQ(body["change_points"], Json::array()) << body["change_points"].dump();
  EXPECT_TRUE(body["emerging"].is_null()) << body.dump();
}

// ?metric= judges the run in the series of another metric, with the fixed floor (calibration
// learns displayed_ms); a metric the run has no launches of is not comparable; one that is no
// series metric is refused.
TEST_F(SeriesApiTest, AVerdictOfAnotherMetricJudgesThatSeries) {
  for (int64_t n = 0; n < 10; ++n) AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(500));
  const int64_t slower = AddSummarisedRun(1011, "Pixel 7", "cold", Launches(600), 1202);
  Start();
  const std::string path = "/api/v1/runs/" + std::to_string(slower) + "/verdict";
  const Json total = Get(path + "?metric=total_time_ms");
  EXPECT_EQ(total["metric"], "total_time_ms") << total.dump();
  EXPECT_EQ(total["verdict"], "regression") << total.dump();
  EXPECT_EQ(total["floor_source"], "fixed");
  // total_time_ms is displayed + 5 here: its Δ is a little smaller than displayed_ms's 20 %.
  EXPECT_NEAR(total["delta_pct"].get<double>(), 100.0 * 605 / 505 - 100, 1.5);
  EXPECT_EQ(total["segment_median"].get<double>(), 505.0) << total.dump();

  const Json fully = Get(path + "?metric=fully_drawn_ms");
  EXPECT_EQ(fully["verdict"], "not_comparable") << fully.dump();
  EXPECT_NE(fully["reason"].get<std::string>().find("fully_drawn_ms"), std::string::npos);

  const Json refused = Get(path + "?metric=wait_time_ms", 400);
  EXPECT_EQ(refused["error"]["message"],
            "metric: 'wait_time_ms' is not one of displayed_ms, fully_drawn_ms, total_time_ms, "
            "frame_p90_ms, frame_p99_ms, janky_pct, pss_kb");
}

// A run that is no point of its series is answered, not refused: not_comparable and why.
TEST_F(SeriesApiTest, ARunOutsideItsSeriesIsNotComparable) {
  for (int64_t n = 0; n < 5; ++n) AddSummarisedRun(1000 + n, "Pixel 7", "cold", Launches(500));
  const int64_t calibration = AddSummarisedRun(
      1006, "Pixel 7", "cold", Launches(500), 1200,
      R"({"serial":"R58M123ABC","package":"com.a","mode":"cold","iterations":10,"build":3,)"
      R"("baseline_build":3,"block":10,"kind":"calibration"})");
  Start();
  const Json aa = Get("/api/v1/runs/" + std::to_string(calibration) + "/verdict");
  EXPECT_EQ(aa["verdict"], "not_comparable");
  EXPECT_NE(aa["reason"].get<std::string>().find("calibration"), std::string::npos) << aa.dump();
}

}  // namespace
}  // namespace droidlab::api
