// GET /api/v1/runs/{id}/faults over real HTTP: a run's app faults as the store keeps them
// (schema/0012), seeded through the store, in iteration order with their stacks' lines; a run
// with none is an empty list; an unknown run is a 404.
#include <nlohmann/json.hpp>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

TEST_F(ApiTest, FaultsAreServedInIterationOrderWithTheirStacks) {
  const int64_t run = SeedRun("R58M123ABC", "com.example.app", 1000, {500, 510});
  store::IterationFault crash;
  crash.run_id = run;
  crash.iteration = 2;
  crash.seq = 0;
  crash.kind = "crash";
  crash.time = "1767323045.678";
  crash.at_ms = 81'234;
  crash.pid = 4321;
  crash.process_name = "com.example.app";
  crash.reason = "java.lang.IllegalStateException: boom";
  crash.stack = {"\tat com.example.app.Main.onResume(Main.java:42)",
                 "\tat android.app.Activity.performResume(Activity.java:8135)"};
  store::IterationFault anr;
  anr.run_id = run;
  anr.iteration = 1;
  anr.seq = 0;
  anr.kind = "anr";
  anr.time = "1767323040.001";
  anr.process_name = "com.example.app:remote";
  anr.reason = "Input dispatching timed out (Application does not have a focused window)";
  ASSERT_TRUE(store_->AddIterationFaults({crash, anr}));
  ASSERT_TRUE(store_->Flush());
  Start();

  auto response = Call("GET", "/api/v1/runs/" + std::to_string(run) + "/faults");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json body = Json::parse(response.body);
  ASSERT_EQ(body["faults"].size(), 2u);
  const Json& first = body["faults"][0];
  EXPECT_EQ(first["iteration"], 1);
  EXPECT_EQ(first["kind"], "anr");
  EXPECT_EQ(first["process_name"], "com.example.app:remote");
  EXPECT_EQ(first["reason"], anr.reason);
  EXPECT_TRUE(first["pid"].is_null());
  EXPECT_TRUE(first["at_ms"].is_null());
  EXPECT_EQ(first["stack"], Json::array());
  const Json& second = body["faults"][1];
  EXPECT_EQ(second["iteration"], 2);
  EXPECT_EQ(second["kind"], "crash");
  EXPECT_EQ(second["time"], "1767323045.678");
  EXPECT_EQ(second["at_ms"], 81'234);
  EXPECT_EQ(second["pid"], 4321);
  EXPECT_EQ(second["reason"], "java.lang.IllegalStateException: boom");
  ASSERT_EQ(second["stack"].size(), 2u);
  EXPECT_EQ(second["stack"][1], "\tat android.app.Activity.performResume(Activity.java:8135)");
  EXPECT_TRUE(second["duration_ms"].is_null());

  auto empty = Call("GET", "/api/v1/runs/" +
                               std::to_string(SeedRun("R58M123ABC", "com.example.app", 2000, {1})) +
                               "/faults");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(Json::parse(empty.body)["faults"], Json::array());
  EXPECT_EQ(Call("GET", "/api/v1/runs/999/faults").status, 404);
}

// The run's summary counts its faults by kind (a run with none counts zeros).
TEST_F(ApiTest, ARunsSummaryCountsItsFaultsByKind) {
  const int64_t run = SeedRun("R58M123ABC", "com.example.app", 1000, {500, 510, 520});
  std::vector<store::IterationFault> faults;
  for (int64_t iteration : {1, 3}) {
    store::IterationFault f;
    f.run_id = run;
    f.iteration = iteration;
    f.kind = "crash";
    f.reason = "java.lang.IllegalStateException: boom";
    faults.push_back(f);
  }
  faults.back().seq = 1;
  faults.back().kind = "anr";
  store::IterationFault other = faults.front();
  other.run_id = SeedRun("R58M123ABC", "com.example.app", 2000, {1});
  faults.push_back(other);
  ASSERT_TRUE(store_->AddIterationFaults(faults));
  ASSERT_TRUE(store_->Flush());
  Start();

  auto response = Call("GET", "/api/v1/runs/" + std::to_string(run));
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(Json::parse(response.body)["summary"]["faults"],
            Json::parse(R"({"anr":1,"crash":1,"native_crash":0})"));
  auto none = Call(
      "GET", "/api/v1/runs/" + std::to_string(SeedRun("R58M123ABC", "com.example.app", 3000, {1})));
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(Json::parse(none.body)["summary"]["faults"],
            Json::parse(R"({"anr":0,"crash":0,"native_crash":0})"));
}

}  // namespace
}  // namespace droidlab::api
