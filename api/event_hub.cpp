#include "api/event_hub.h"

#include <algorithm>

namespace droidlab::api {

std::shared_ptr<EventHub::Subscriber> EventHub::Subscribe() {
  auto subscriber = std::make_shared<Subscriber>(executor_);
  subscriber->wake.expires_at(boost::asio::steady_timer::time_point::max());
  subscribers_.insert(subscriber);
  return subscriber;
}

void EventHub::Unsubscribe(const std::shared_ptr<Subscriber>& subscriber) {
  subscribers_.erase(subscriber);
}

void EventHub::Publish(std::string_view event, std::string_view data) {
  auto framed = std::make_shared<std::string>();
  framed->reserve(event.size() + data.size() + 16);
  framed->append("event: ").append(event).append("\ndata: ").append(data).append("\n\n");
  std::shared_ptr<const std::string> shared = std::move(framed);
  for (const auto& s : subscribers_) {
    while (!s->pending.empty() && s->pending_bytes + shared->size() > max_pending_bytes_) {
      s->pending_bytes -= s->pending.front()->size();
      s->pending.pop_front();
      ++s->dropped;
    }
    s->pending.push_back(shared);
    s->pending_bytes += shared->size();
    s->wake.cancel();
  }
}

void EventHub::CloseAll() {
  for (const auto& s : subscribers_) {
    s->closed = true;
    s->wake.cancel();
  }
}

std::string EventHub::TakePending(Subscriber& subscriber) {
  std::string out;
  out.reserve(subscriber.pending_bytes + 48);
  if (subscriber.dropped > 0) {
    out += "event: lagged\ndata: {\"dropped\":" + std::to_string(subscriber.dropped) + "}\n\n";
    subscriber.dropped = 0;
  }
  for (const auto& event : subscriber.pending) out += *event;
  subscriber.pending.clear();
  subscriber.pending_bytes = 0;
  return out;
}

size_t EventHub::largest_backlog() const {
  size_t largest = 0;
  for (const auto& s : subscribers_) largest = std::max(largest, s->pending_bytes);
  return largest;
}

}  // namespace droidlab::api
