// GET /api/v1/runs/{id}/memory over real HTTP: a run's memory per iteration as the store keeps it
// (schema/0013), seeded through the store, and the leak check of analysis/leak.h over it —
// suspected for Activities growing in one process, not applicable when every iteration is a new
// process (a cold run); an unknown run is a 404.
#include <nlohmann/json.hpp>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

store::IterationMemory MemoryOf(int64_t run, int64_t iteration, int64_t pid, int64_t activities) {
  store::IterationMemory m;
  m.run_id = run;
  m.iteration = iteration;
  m.pid = pid;
  m.total_pss_kb = 50000 + 100 * iteration;
  m.total_rss_kb = std::nullopt;  // Android 6-10
  m.total_swap_pss_kb = 400;
  m.java_heap_kb = 12000 + iteration;
  m.native_heap_kb = 18000;
  m.code_kb = 9000;
  m.stack_kb = 900;
  m.graphics_kb = 6000;
  m.private_other_kb = 3000;
  m.system_kb = 8000;
  m.views = 60;
  m.view_root_impl = 1;
  m.app_contexts = 3;
  m.activities = activities;
  m.assets = 10;
  m.asset_managers = 0;
  m.local_binders = 16;
  m.proxy_binders = 33;
  m.death_recipients = 1;
  m.webviews = 0;
  return m;
}

TEST_F(ApiTest, MemoryIsServedPerIterationWithTheLeakItShows) {
  const int64_t run = SeedRun("R58M123ABC", "com.example.app", 1000, {500, 510, 520, 530});
  ASSERT_TRUE(store_->AddIterationMemory({MemoryOf(run, 1, 4242, 1), MemoryOf(run, 2, 4242, 2),
                                          MemoryOf(run, 3, 4242, 3), MemoryOf(run, 4, 4242, 5)}));
  const int64_t cold = SeedRun("R58M123ABC", "com.example.app", 2000, {500, 510, 520});
  ASSERT_TRUE(store_->AddIterationMemory(
      {MemoryOf(cold, 1, 100, 1), MemoryOf(cold, 2, 101, 2), MemoryOf(cold, 3, 102, 3)}));
  const int64_t flat = SeedRun("R58M123ABC", "com.example.app", 3000, {500, 510, 520});
  ASSERT_TRUE(store_->AddIterationMemory(
      {MemoryOf(flat, 1, 9, 1), MemoryOf(flat, 2, 9, 1), MemoryOf(flat, 3, 9, 1)}));
  ASSERT_TRUE(store_->Flush());
  Start();

  auto response = Call("GET", "/api/v1/runs/" + std::to_string(run) + "/memory");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = Json::parse(response.body);
  ASSERT_EQ(body["iterations"].size(), 4u);
  const Json& it = body["iterations"][3];
  EXPECT_EQ(it["iteration"], 4);
  EXPECT_EQ(it["pid"], 4242);
  EXPECT_EQ(it["total_pss_kb"], 50400);
  EXPECT_TRUE(it["total_rss_kb"].is_null());
  EXPECT_EQ(it["total_swap_pss_kb"], 400);
  EXPECT_EQ(it["java_heap_kb"], 12004);
  EXPECT_EQ(it["native_heap_kb"], 18000);
  EXPECT_EQ(it["system_kb"], 8000);
  EXPECT_EQ(it["objects"]["activities"], 5);
  EXPECT_EQ(it["objects"]["views"], 60);
  EXPECT_EQ(it["objects"]["proxy_binders"], 33);
  EXPECT_EQ(body["iterations"][0]["objects"]["activities"], 1);
  EXPECT_EQ(body["leak_check"], "suspected");
  const Json& leak = body["leak_suspected"];
  EXPECT_EQ(leak["metric"], "activities");
  EXPECT_EQ(leak["from"], 1);
  EXPECT_EQ(leak["to"], 5);
  // x̄ = 2.5, ȳ = 11/4: Σ(x−x̄)(y−ȳ) = 6.5, Σ(x−x̄)² = 5.
  EXPECT_NEAR(leak["slope_per_iteration"].get<double>(), 1.3, 1e-12);

  auto cold_body =
      Json::parse(Call("GET", "/api/v1/runs/" + std::to_string(cold) + "/memory").body);
  EXPECT_EQ(cold_body["iterations"].size(), 3u);
  EXPECT_EQ(cold_body["leak_check"], "not_applicable");
  EXPECT_TRUE(cold_body["leak_suspected"].is_null());

  auto flat_body =
      Json::parse(Call("GET", "/api/v1/runs/" + std::to_string(flat) + "/memory").body);
  EXPECT_EQ(flat_body["leak_check"], "no_leak");
  EXPECT_TRUE(flat_body["leak_suspected"].is_null());

  auto empty = Call("GET", "/api/v1/runs/" +
                               std::to_string(SeedRun("R58M123ABC", "com.example.app", 4000, {1})) +
                               "/memory");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(Json::parse(empty.body)["iterations"], Json::array());
  EXPECT_EQ(Json::parse(empty.body)["leak_check"], "not_applicable");
  EXPECT_EQ(Call("GET", "/api/v1/runs/999/memory").status, 404);
}

}  // namespace
}  // namespace droidlab::api
