// GET /api/v1/runs/{id}/frames over real HTTP: a run's frames per iteration as the store keeps
// them (schema/0011), seeded through the store; an unknown run is a 404. The jank figures in
// the run's summary and /compare.
#include <nlohmann/json.hpp>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

TEST_F(ApiTest, FramesAreServedPerIterationWithTheirRowsAsPrinted) {
  const int64_t run = SeedRun("R58M123ABC", "com.example.app", 1000, {500, 510});
  store::IterationFrames f;
  f.run_id = run;
  f.iteration = 2;
  f.total_frames = 40;
  f.janky_frames = 3;
  f.gfx_p50_ms = 6;
  f.gfx_p90_ms = 14;
  f.gfx_p95_ms = 20;
  f.frame_rows = 2;
  f.counted = 1;
  f.refresh_period_ns = 8'333'333;
  f.p50_ms = 9.5;
  f.p90_ms = 9.5;
  f.p95_ms = 9.5;
  f.p99_ms = 9.5;
  f.over_16_7ms = 0;
  f.matrix_normal = 0;
  f.dropped_frames = 0;
  f.jank = 0;
  f.columns_json = R"(["Flags","IntendedVsync","FrameCompleted"])";
  f.rows_json = "[[1,100,300],[0,400,9500400]]";
  ASSERT_TRUE(store_->AddIterationFrames({f}));
  ASSERT_TRUE(store_->Flush());
  Start();

  auto response = Call("GET", "/api/v1/runs/" + std::to_string(run) + "/frames");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = Json::parse(response.body);
  ASSERT_EQ(body["iterations"].size(), 1u);
  const Json& it = body["iterations"][0];
  EXPECT_EQ(it["iteration"], 2);
  EXPECT_EQ(it["total_frames"], 40);
  EXPECT_EQ(it["janky_frames"], 3);
  EXPECT_EQ(it["gfx_percentiles_ms"]["90"], 14);
  EXPECT_TRUE(it["gfx_percentiles_ms"]["99"].is_null());
  EXPECT_EQ(it["counted"], 1);
  EXPECT_NEAR(it["refresh_period_ms"].get<double>(), 8.333333, 1e-6);
  EXPECT_EQ(it["percentiles_ms"]["50"], 9.5);
  EXPECT_EQ(it["matrix"]["dropped_frames"], 0);
  EXPECT_EQ(it["columns"], Json::parse(R"(["Flags","IntendedVsync","FrameCompleted"])"));
  EXPECT_EQ(it["rows"][1][2], 9500400);

  auto empty = Call("GET", "/api/v1/runs/" +
                               std::to_string(SeedRun("R58M123ABC", "com.example.app", 2000, {1})) +
                               "/frames");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(Json::parse(empty.body)["iterations"], Json::array());
  EXPECT_EQ(Call("GET", "/api/v1/runs/999/frames").status, 404);
}

// The jank figures and the memory are run statistics like launch time: in the run's summary,
// and what /compare judges when asked (?metric=), each counted iteration's own figure.
TEST_F(ApiTest, JankAndMemoryFiguresAreInTheRunSummaryAndComparedWhenAsked) {
  auto seed = [&](int64_t created_at, double p90) {
    const int64_t run = SeedRun("R58M123ABC", "com.example.app", created_at, {500, 510, 505, 507});
    std::vector<store::IterationFrames> frames;
    for (int64_t i = 1; i <= 4; ++i) {
      store::IterationFrames f;
      f.run_id = run;
      f.iteration = i;
      f.total_frames = 100;
      f.janky_frames = i;  // 1..4 %
      f.p90_ms = p90 + static_cast<double>(i) / 10;
      f.p99_ms = 2 * p90;
      frames.push_back(f);
    }
    EXPECT_TRUE(store_->AddIterationFrames(std::move(frames)));
    std::vector<store::IterationMemory> memory;
    for (int64_t i = 1; i <= 4; ++i) {
      store::IterationMemory m;
      m.run_id = run;
      m.iteration = i;
      m.pid = 4000;
      m.total_pss_kb = static_cast<int64_t>(p90) * 1000 + i;  // 10001..10004, 20001..20004
      memory.push_back(m);
    }
    EXPECT_TRUE(store_->AddIterationMemory(std::move(memory)));
    EXPECT_TRUE(store_->Flush());
    return run;
  };
  const int64_t before = seed(1000, 10.0);
  const int64_t after = seed(2000, 20.0);
  Start();

  auto detail = Call("GET", "/api/v1/runs/" + std::to_string(after));
  ASSERT_EQ(detail.status, 200) << detail.body;
  const Json summary = Json::parse(detail.body)["summary"];
  EXPECT_EQ(summary["frame_p90_ms"]["count"], 4);
  EXPECT_DOUBLE_EQ(summary["frame_p90_ms"]["median"].get<double>(), 20.25);
  EXPECT_DOUBLE_EQ(summary["frame_p99_ms"]["median"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(summary["janky_pct"]["median"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(summary["pss_kb"]["median"].get<double>(), 20002.5);
  const Json pss = Json::parse(
      Call("GET", "/api/v1/runs/" + std::to_string(after) + "/compare?metric=pss_kb").body);
  EXPECT_DOUBLE_EQ(pss["baseline_median_ms"].get<double>(), 10002.5);
  EXPECT_DOUBLE_EQ(pss["candidate_median_ms"].get<double>(), 20002.5);
  EXPECT_EQ(summary["displayed_ms"]["count"], 4);

  auto compared =
      Call("GET", "/api/v1/runs/" + std::to_string(after) + "/compare?metric=frame_p90_ms");
  ASSERT_EQ(compared.status, 200) << compared.body;
  const Json c = Json::parse(compared.body);
  EXPECT_EQ(c["metric"], "frame_p90_ms");
  EXPECT_EQ(c["baseline_id"], before);
  EXPECT_DOUBLE_EQ(c["baseline_median_ms"].get<double>(), 10.25);
  EXPECT_DOUBLE_EQ(c["candidate_median_ms"].get<double>(), 20.25);
  // The launches did not move; displayed_ms stays the default.
  const Json by_default =
      Json::parse(Call("GET", "/api/v1/runs/" + std::to_string(after) + "/compare").body);
  EXPECT_EQ(by_default["metric"], "displayed_ms");
  EXPECT_DOUBLE_EQ(by_default["candidate_median_ms"].get<double>(), 506.0);
  auto bad = Call("GET", "/api/v1/runs/" + std::to_string(after) + "/compare?metric=fps");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("janky_pct"), std::string::npos) << bad.body;
}

}  // namespace
}  // namespace droidlab::api
