// A run's rows — launches, looper stats, proc samples — whole as API.md shows them, or in pages
// (`?limit=N`, then `?cursor=` from "next_cursor") so that a client of a run sampled every 10 ms
// for an hour never asks for 360,000 samples at once (issue 13, §1).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

class RowsPagingTest : public ApiTest {
 protected:
  // A finished run with `count` proc samples, 10 ms apart.
  int64_t RunWithSamples(int count) {
    const int64_t id = SeedRun("A", "com.one", 1000, {800, 810, 820});
    std::vector<store::ProcSample> samples(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      samples[static_cast<size_t>(i)].run_id = id;
      samples[static_cast<size_t>(i)].t_ms = 10 * i;
      samples[static_cast<size_t>(i)].pid = 4242;
      samples[static_cast<size_t>(i)].rss_kb = 1000 + i;
    }
    EXPECT_TRUE(store_->AddProcSamples(std::move(samples)).ok());
    EXPECT_TRUE(store_->Flush().ok());
    return id;
  }
};

TEST_F(RowsPagingTest, SamplesComeInPagesThatJoinUpToTheWholeRun) {
  const int64_t id = RunWithSamples(25'000);
  Start();
  const std::string base = "/api/v1/runs/" + std::to_string(id) + "/proc-samples?limit=10000";
  std::vector<int64_t> times;
  std::string target = base;
  int pages = 0;
  for (;;) {
    const Response page = Call("GET", target);
    ASSERT_EQ(page.status, 200) << page.body;
    const Json body = Json::parse(page.body);
    ++pages;
    for (const auto& s : body["samples"]) times.push_back(s["t_ms"].get<int64_t>());
    ASSERT_TRUE(body.contains("next_cursor"));
    if (body["next_cursor"].is_null()) break;
    ASSERT_LE(pages, 3);
    target = base + "&cursor=" + body["next_cursor"].get<std::string>();
  }
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(times.size(), 25'000u);
  for (size_t i = 0; i < times.size(); ++i) ASSERT_EQ(times[i], static_cast<int64_t>(10 * i));
}

TEST_F(RowsPagingTest, WithoutALimitEveryRowComesAsBefore) {
  const int64_t id = RunWithSamples(300);
  Start();
  const Json samples =
      Json::parse(Call("GET", "/api/v1/runs/" + std::to_string(id) + "/proc-samples").body);
  EXPECT_EQ(samples["samples"].size(), 300u);
  EXPECT_FALSE(samples.contains("next_cursor"));
  const Json launches = Json::parse(
      Call("GET", "/api/v1/runs/" + std::to_string(id) + "/launches?limit=2").body);
  ASSERT_EQ(launches["launches"].size(), 2u);
  EXPECT_EQ(launches["launches"][1]["iteration"], 2);
  const Json rest = Json::parse(Call("GET", "/api/v1/runs/" + std::to_string(id) +
                                                "/launches?limit=2&cursor=" +
                                                launches["next_cursor"].get<std::string>())
                                    .body);
  ASSERT_EQ(rest["launches"].size(), 1u);
  EXPECT_EQ(rest["launches"][0]["iteration"], 3);
  EXPECT_TRUE(rest["next_cursor"].is_null());
}

TEST_F(RowsPagingTest, ABadLimitOrCursorIsA400) {
  const int64_t id = RunWithSamples(10);
  Start();
  const std::string rows = "/api/v1/runs/" + std::to_string(id) + "/looper-stats";
  for (const char* query : {"?limit=0", "?limit=100001", "?limit=ten", "?cursor=r1ab", "?cursor=o-1",
                            "?cursor=o"}) {
    const Response r = Call("GET", rows + query);
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
  }
  EXPECT_EQ(Call("GET", "/api/v1/runs/999/proc-samples?limit=5").status, 404);
}

}  // namespace
}  // namespace droidlab::api
