// Clients that are slow on purpose, at each phase of a request, and an event-stream reader that
// stops reading: each is dropped at its own deadline while everyone else is answered at once.
// Issue 13, §1. Real HTTP over loopback (tests/api/api_server_fixture.h); the stalled phases
// that are not trickled — a silent header, a stalled body, an answer never read — are in
// api_test.cpp (ASilentClientIsDroppedAndOthersAreNotSlowed) and request_guard_test.cpp.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <string>

#include "tests/api/api_server_fixture.h"
#include "tests/common/wait_until.h"

namespace droidlab::api {
namespace {

using Clock = std::chrono::steady_clock;

class SlowClientsTest : public ApiTest {
 protected:
  // Read on the server's thread, like OpenConnections.
  size_t EventStreams() {
    std::promise<size_t> answer;
    auto counted = answer.get_future();
    asio::post(io_, [&] { answer.set_value(server_->event_streams()); });
    return counted.get();
  }
  size_t LargestEventBacklog() {
    std::promise<size_t> answer;
    auto counted = answer.get_future();
    asio::post(io_, [&] { answer.set_value(server_->largest_event_backlog()); });
    return counted.get();
  }

  // Sends `byte` every 50 ms (the wait for the server's close is the pace) until the server
  // closes the connection or `limit` passes; halfway, another client's call must be answered
  // at once. The time from `since` to the close, or nothing.
  std::optional<milliseconds> TrickleUntilClosed(RawClient& slow, Clock::time_point since,
                                                 milliseconds limit) {
    bool asked_other = false;
    while (Clock::now() - since < limit) {
      slow.Send("a");
      if (slow.ClosedWithin(milliseconds(50))) {
        return std::chrono::duration_cast<milliseconds>(Clock::now() - since);
      }
      if (!asked_other && Clock::now() - since > milliseconds(150)) {
        asked_other = true;
        const auto asked = Clock::now();
        EXPECT_EQ(Call("GET", "/api/v1/health").status, 200);
        EXPECT_LT(Clock::now() - asked, milliseconds(250)) << "another client was slowed";
      }
    }
    return std::nullopt;
  }
};

// A client that never stops reading: the kernel holds at most a page of what it was sent.
class UnreadSocket {
 public:
  explicit UnreadSocket(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int smallest = 1;  // the kernel rounds it up to its minimum (a few KB)
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &smallest, sizeof smallest);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~UnreadSocket() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// A slow-loris that keeps sending: a byte of header every 50 ms does not buy it more time than
// header_timeout, counted from the start of the header, not from its last byte.
TEST_F(SlowClientsTest, AHeaderTrickledByteByByteIsDroppedAtTheHeaderDeadline) {
  ServerOptions options;
  options.header_timeout = milliseconds(400);
  Start(options);
  RawClient slow(port_);
  ASSERT_TRUE(slow.connected());
  const auto since = Clock::now();
  slow.Send("GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nX-Trickle: ");
  const auto closed = TrickleUntilClosed(slow, since, milliseconds(5000));
  ASSERT_TRUE(closed) << "still open after 5 s of trickling";
  EXPECT_GE(*closed, milliseconds(350));
  EXPECT_LT(*closed, milliseconds(2000));
  EXPECT_EQ(slow.raw(), "");  // dropped, not answered: it never finished asking
}

// The same in the body: body_timeout counts from the end of the header.
TEST_F(SlowClientsTest, ABodyTrickledByteByByteIsDroppedAtTheBodyDeadline) {
  ServerOptions options;
  options.header_timeout = milliseconds(5000);
  options.body_timeout = milliseconds(400);
  Start(options);
  RawClient slow(port_);
  ASSERT_TRUE(slow.connected());
  const auto since = Clock::now();
  slow.Send("POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\n"
            "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n");
  const auto closed = TrickleUntilClosed(slow, since, milliseconds(5000));
  ASSERT_TRUE(closed) << "still open after 5 s of trickling";
  EXPECT_GE(*closed, milliseconds(350));
  EXPECT_LT(*closed, milliseconds(2000));
  EXPECT_EQ(StoredRuns(), 0);
}

// A dashboard whose reader stopped (a frozen tab, a stopped process): the run events it does
// not take wait in its queue in the hub, which stays within event_backlog_bytes (oldest
// dropped); once its socket is full, its write stalls and at write_timeout it is dropped. A
// reader beside it hears every event at once throughout.
TEST_F(SlowClientsTest, AnEventStreamThatStopsReadingIsDroppedAndOthersKeepHearing) {
  ServerOptions options;
  options.write_timeout = milliseconds(500);
  options.event_backlog_bytes = 8 * 1024;
  Start(options);
  UnreadSocket stalled(port_);
  ASSERT_TRUE(stalled.connected());
  ASSERT_TRUE(stalled.Send(Request("GET", "/api/v1/events", "", "", false)));
  RawClient reader(port_);
  ASSERT_TRUE(reader.connected());
  reader.Send(Request("GET", "/api/v1/events", "", "", false));
  ASSERT_TRUE(reader.ReadUntil("droidlab events")) << reader.raw();
  ASSERT_TRUE(testutil::WaitUntil([&] { return EventStreams() == 2; }, milliseconds(5000)));

  milliseconds slowest{0};
  size_t largest_backlog = 0;
  int posted = 0;
  const int most = 4000;
  for (; posted < most && EventStreams() == 2; ++posted) {
    const Response created =
        Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "1"));
    ASSERT_EQ(created.status, 201) << created.body;
    const std::string id = std::to_string(Json::parse(created.body)["id"].get<int64_t>());
    const auto asked = Clock::now();
    ASSERT_TRUE(reader.ReadUntil("\"id\":" + id + ",", milliseconds(2000)))
        << "run " << id << " was never heard";
    slowest = std::max(slowest, std::chrono::duration_cast<milliseconds>(Clock::now() - asked));
    largest_backlog = std::max(largest_backlog, LargestEventBacklog());
  }
  EXPECT_LT(posted, most) << "the stream that stopped reading was never dropped";
  EXPECT_TRUE(testutil::WaitUntil([&] { return EventStreams() == 1; }, milliseconds(3000)));
  EXPECT_LE(largest_backlog, options.event_backlog_bytes);
  EXPECT_GT(largest_backlog, 0u);  // it did fall behind before it was dropped
  EXPECT_LT(slowest, milliseconds(300));
  // Still streaming to the one that reads.
  const Response last = Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "1"));
  ASSERT_EQ(last.status, 201);
  EXPECT_TRUE(reader.ReadUntil(
      "\"id\":" + std::to_string(Json::parse(last.body)["id"].get<int64_t>()) + ","));
  std::printf("stalled stream dropped after %d runs posted; largest backlog %zu bytes (bound "
              "%zu); slowest event to the reader %lld ms\n",
              posted, largest_backlog, options.event_backlog_bytes,
              static_cast<long long>(slowest.count()));
}

}  // namespace
}  // namespace droidlab::api
