// EventHub: fans run and device changes out to the Server-Sent-Event streams of
// GET /api/v1/events. Each subscriber has its own bounded queue: a dashboard that stops reading
// loses its oldest events (and is told so), it never holds up the daemon.
//
// Threading: the io thread only (publishers are the run queue's listeners and the device poll,
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
  static constexpr size_t kMaxPending = 1000;

  struct Subscriber {
    explicit Subscriber(boost::asio::any_io_executor ex) : wake(ex) {}
    std::deque<std::string> pending;  // framed events ("event: run\ndata: {...}\n\n")
    uint64_t dropped = 0;
    boost::asio::steady_timer wake;   // cancelled when an event arrives or the hub closes
    bool closed = false;
  };

  explicit EventHub(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  std::shared_ptr<Subscriber> Subscribe();
  void Unsubscribe(const std::shared_ptr<Subscriber>& subscriber);
  // `data` is one line of JSON.
  void Publish(std::string_view event, std::string_view data);
  // Ends every stream (shutdown).
  void CloseAll();
  size_t subscribers() const { return subscribers_.size(); }

 private:
  boost::asio::any_io_executor executor_;
  std::set<std::shared_ptr<Subscriber>> subscribers_;
};

}  // namespace droidlab::api
