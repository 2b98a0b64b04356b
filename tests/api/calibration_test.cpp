// GET /api/v1/calibration (issue 15 §3): the noise floor of each package × model × mode learnt
// from its calibration runs — each an A/A of one build, whose first half is one side of a pair
// and whose second half the other (orchestrator/lab/calibration_report.h) — over real HTTP on a
// real store. Plain runs of the same package are no pairs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

using Json = nlohmann::json;

// A calibration run's spec as the daemon stores it: 10 launches a half.
const std::string kCalibrationSpec =
    R"({"serial":"S1","package":"com.a","mode":"cold","iterations":10,"build":3,)"
    R"("baseline_build":3,"block":10,"kind":"calibration"})";

// Calibration run k: a first half at 1000 ms and a second at 1000 + k ms (Δ = k / 10 %), each
// with a spread of ±3 ms, so that pair k's |Δ median %| is k / 10.
std::vector<int64_t> HalvesApart(int64_t k) {
  std::vector<int64_t> displayed;
  for (int half = 0; half < 2; ++half) {
    for (int i = 0; i < 10; ++i) displayed.push_back(1000 + (half == 1 ? k : 0) + (i % 7) - 3);
  }
  return displayed;
}

TEST_F(ApiTest, CalibrationLearnsAFloorFromTheHalvesOfCalibrationRuns) {
  for (int64_t k = 0; k < 25; ++k)
    SeedRun("S1", "com.a", 1000 + k, HalvesApart(k), kCalibrationSpec);
  // A plain run 30 % apart between its halves: were it a pair, it would be the floor.
  std::vector<int64_t> plain = HalvesApart(300);
  const int64_t plain_id = SeedRun("S1", "com.a", 2000, plain);
  Start();
  auto answer = Call("GET", "/api/v1/calibration?package=com.a");
  ASSERT_EQ(answer.status, 200) << answer.body;
  const Json list = Json::parse(answer.body)["calibrations"];
  ASSERT_EQ(list.size(), 1u) << answer.body;
  const Json& c = list[0];
  EXPECT_EQ(c["model"], "Pixel 7");
  EXPECT_EQ(c["mode"], "cold");
  EXPECT_EQ(c["pairs"], 25);
  EXPECT_EQ(c["runs"].size(), 25u);
  for (const Json& id : c["runs"]) EXPECT_NE(id.get<int64_t>(), plain_id);
  EXPECT_EQ(c["floor_source"], "calibration");
  // The 99th percentile of 0.0, 0.1, …, 2.4 %: between the two largest.
  EXPECT_GE(c["floor_percent"].get<double>(), 2.3);
  EXPECT_LE(c["floor_percent"].get<double>(), 2.4 + 1e-9);
  EXPECT_EQ(c["floor_used_percent"], c["floor_percent"]);
}

TEST_F(ApiTest, CalibrationWithTooFewPairsKeepsTheFixedFloor) {
  for (int64_t k = 0; k < 5; ++k)
    SeedRun("S1", "com.a", 1000 + k, HalvesApart(k), kCalibrationSpec);
  Start();
  const Json list =
      Json::parse(Call("GET", "/api/v1/calibration?package=com.a&mode=cold").body)["calibrations"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["pairs"], 5);
  EXPECT_TRUE(list[0]["floor_percent"].is_null());
  EXPECT_EQ(list[0]["floor_source"], "fixed");
  EXPECT_EQ(list[0]["floor_used_percent"], 5.0);
  // Another package, model or mode has none.
  EXPECT_EQ(
      Json::parse(Call("GET", "/api/v1/calibration?package=com.b").body)["calibrations"].size(),
      0u);
  EXPECT_EQ(
      Json::parse(
          Call("GET", "/api/v1/calibration?package=com.a&model=Pixel%208").body)["calibrations"]
          .size(),
      0u);
}

TEST_F(ApiTest, CalibrationNeedsAPackageAndAKnownMode) {
  Start();
  EXPECT_EQ(Call("GET", "/api/v1/calibration").status, 400);
  auto bad_mode = Call("GET", "/api/v1/calibration?package=com.a&mode=lukewarm");
  EXPECT_EQ(bad_mode.status, 400);
  EXPECT_NE(bad_mode.body.find("mode"), std::string::npos) << bad_mode.body;
}

}  // namespace
}  // namespace droidlab::api
