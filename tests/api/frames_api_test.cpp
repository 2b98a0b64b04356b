// GET /api/v1/runs/{id}/frames over real HTTP: a run's frames per iteration as the store keeps
// them (schema/0011), seeded through the store; an unknown run is a 404.
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

}  // namespace
}  // namespace droidlab::api
