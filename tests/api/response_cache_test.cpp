// The response cache (api/response_cache.h) on its own: what it keeps, and what it must not. A
// GET's store read runs on a reader thread while the io thread goes on; a run event that empties
// the cache meanwhile made that read's answer — from before the run ended — the cached one, so a
// client told "failed" and reading the run again was answered "running" and waited for an event
// that had come (`droidlab run --wait` hung on a run that failed at once, about 1 time in 6).
#include "api/response_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace droidlab::api {
namespace {

HttpResponse Ok(std::string body) {
  HttpResponse response;
  response.status = 200;
  response.body = std::move(body);
  return response;
}

TEST(ResponseCacheTest, AnAnswerIsKeptForItsTtl) {
  ResponseCache cache(std::chrono::seconds(1), 1 << 20);
  const auto now = ResponseCache::Clock::now();
  cache.Store("/api/v1/runs/1", Ok(R"({"status":"running"})"), now, cache.generation());
  auto hit = cache.Find("/api/v1/runs/1", now + std::chrono::milliseconds(999));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit->shared_body, R"({"status":"running"})");
  EXPECT_FALSE(cache.Find("/api/v1/runs/1", now + std::chrono::seconds(1)).has_value());
}

TEST(ResponseCacheTest, AnAnswerReadBeforeTheCacheWasEmptiedIsNotKept) {
  ResponseCache cache(std::chrono::seconds(30), 1 << 20);
  const auto now = ResponseCache::Clock::now();
  const uint64_t read_at = cache.generation();  // the handler starts its store read
  cache.Clear();                                // the run's end is announced meanwhile
  cache.Store("/api/v1/runs/1", Ok(R"({"status":"running"})"), now, read_at);
  EXPECT_FALSE(cache.Find("/api/v1/runs/1", now).has_value());

  // An answer read after the change is kept as usual.
  cache.Store("/api/v1/runs/1", Ok(R"({"status":"failed"})"), now, cache.generation());
  auto hit = cache.Find("/api/v1/runs/1", now);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit->shared_body, R"({"status":"failed"})");
}

}  // namespace
}  // namespace droidlab::api
