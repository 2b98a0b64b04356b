// EventHub: fans run and device changes out to the Server-Sent-Event streams of
// GET /api/v1/events. Each subscriber has its own queue, bounded in bytes: a dashboard that
// stops reading loses its oldest events (and is told so: `event: lagged`), it never holds up the
// daemon nor grows its memory. The stream itself is dropped when a write to it stalls for the
// server's write_timeout (api/server.cpp).
//
// One event's text is shared by every queue it is in: 1,024 streams cost one copy, not 1,024.
//
// Threading: the io thread only (publishers are the run queue's and the registry's listeners,
// both on that thread).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace droidlab::api {

class EventHub {
 public:
  // What a subscriber may have waiting: a few hundred run events. A reader that far behind
  // refetches what it shows (the `lagged` event tells it to) rather than replaying them.
  static constexpr size_t kDefaultMaxPendingBytes = 64 * 1024;

  struct Subscriber {
    explicit Subscriber(boost::asio::any_io_executor ex) : wake(ex) {}
    // Framed events ("event: run\ndata: {...}\n\n"), shared with the other subscribers.
    std::deque<std::shared_ptr<const std::string>> pending;
    size_t pending_bytes = 0;  // the sum of pending's sizes: what the bound counts
    uint64_t dropped = 0;
    boost::asio::steady_timer wake;   // cancelled when an event arrives or the hub closes
    bool closed = false;
  };

  explicit EventHub(boost::asio::any_io_executor executor,
                    size_t max_pending_bytes = kDefaultMaxPendingBytes)
      : executor_(std::move(executor)), max_pending_bytes_(max_pending_bytes) {}

  std::shared_ptr<Subscriber> Subscribe();
  void Unsubscribe(const std::shared_ptr<Subscriber>& subscriber);
  // `data` is one line of JSON. A subscriber over its bound loses its oldest events first; the
  // newest is always kept.
  void Publish(std::string_view event, std::string_view data);
  // Ends every stream (shutdown).
  void CloseAll();
  // Takes what is waiting for `subscriber`, oldest first, as one string to write.
  static std::string TakePending(Subscriber& subscriber);

  size_t subscribers() const { return subscribers_.size(); }
  // The most bytes any one subscriber has waiting (never much above the bound).
  size_t largest_backlog() const;

 private:
  boost::asio::any_io_executor executor_;
  size_t max_pending_bytes_;
  std::set<std::shared_ptr<Subscriber>> subscribers_;
};

}  // namespace droidlab::api
