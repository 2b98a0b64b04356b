// The text/event-stream reader of the client commands (GET /api/v1/events).
#include "daemon/event_stream_parser.h"

#include <gtest/gtest.h>

namespace droidlab::daemon {
namespace {

TEST(EventStreamParserTest, EventsSplitAnywhereComeOutWhole) {
  const std::string stream =
      ": droidlab events\n\n"
      "event: run\ndata: {\"id\":1}\n\n"
      ": keepalive\n\n"
      "event: device\r\ndata: a\r\ndata: b\r\n\r\n"
      "data: plain\r\r";
  // Every split point, as bytes arrive from a socket.
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    EventStreamParser parser;
    auto events = parser.Feed(std::string_view(stream).substr(0, cut));
    auto rest = parser.Feed(std::string_view(stream).substr(cut));
    events.insert(events.end(), rest.begin(), rest.end());
    ASSERT_EQ(events.size(), 3u) << "cut at " << cut;
    EXPECT_EQ(events[0].event, "run");
    EXPECT_EQ(events[0].data, "{\"id\":1}");
    EXPECT_EQ(events[1].event, "device");
    EXPECT_EQ(events[1].data, "a\nb");
    EXPECT_EQ(events[2].event, "message");
    EXPECT_EQ(events[2].data, "plain");
  }
}

TEST(EventStreamParserTest, AnEventNotYetEndedIsHeldBack) {
  EventStreamParser parser;
  EXPECT_TRUE(parser.Feed("event: run\ndata: {}\n").empty());
  auto events = parser.Feed("\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "{}");
  // An event type with no data is not an event.
  EXPECT_TRUE(parser.Feed("event: lonely\n\n").empty());
}

}  // namespace
}  // namespace droidlab::daemon
