// EventHub's queue per subscriber: bounded in bytes, oldest dropped first and counted for the
// `lagged` event, one copy of an event shared by every queue. Issue 13, §1.
#include "api/event_hub.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <string>

namespace droidlab::api {
namespace {

TEST(EventHubTest, ASubscriberThatIsNotReadKeepsAtMostItsBoundAndCountsWhatItLost) {
  boost::asio::io_context io;
  EventHub hub(io.get_executor(), 16 * 1024);
  auto idle = hub.Subscribe();
  const std::string data = "{\"text\":\"" + std::string(1000, 'x') + "\"}";
  for (int i = 0; i < 10'000; ++i) hub.Publish("run", data);
  EXPECT_LE(idle->pending_bytes, 16u * 1024);
  EXPECT_GT(idle->pending_bytes, 14u * 1024);  // dropped no more than it had to
  EXPECT_EQ(idle->pending.size() + idle->dropped, 10'000u);
  EXPECT_EQ(hub.largest_backlog(), idle->pending_bytes);
  const std::string out = EventHub::TakePending(*idle);
  EXPECT_EQ(out.rfind("event: lagged\ndata: {\"dropped\":" + std::to_string(10'000 - 15), 0), 0u)
      << out.substr(0, 80);
  EXPECT_EQ(idle->pending_bytes, 0u);
  EXPECT_EQ(hub.largest_backlog(), 0u);
}

TEST(EventHubTest, AnEventLargerThanTheBoundIsStillDelivered) {
  boost::asio::io_context io;
  EventHub hub(io.get_executor(), 100);
  auto s = hub.Subscribe();
  hub.Publish("run", std::string(500, 'x'));
  ASSERT_EQ(s->pending.size(), 1u);
  hub.Publish("run", "{}");
  ASSERT_EQ(s->pending.size(), 1u);  // the large one made way for the newest
  EXPECT_EQ(*s->pending.front(), "event: run\ndata: {}\n\n");
}

TEST(EventHubTest, OneCopyOfAnEventIsSharedByEveryQueue) {
  boost::asio::io_context io;
  EventHub hub(io.get_executor());
  auto a = hub.Subscribe();
  auto b = hub.Subscribe();
  hub.Publish("device", "{\"serial\":\"A\"}");
  ASSERT_EQ(a->pending.size(), 1u);
  ASSERT_EQ(b->pending.size(), 1u);
  EXPECT_EQ(a->pending.front().get(), b->pending.front().get());
}

}  // namespace
}  // namespace droidlab::api
