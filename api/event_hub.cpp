#include "api/event_hub.h"

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
  std::string framed;
  framed.reserve(event.size() + data.size() + 16);
  framed.append("event: ").append(event).append("\ndata: ").append(data).append("\n\n");
  for (const auto& s : subscribers_) {
    if (s->pending.size() >= kMaxPending) {
      s->pending.pop_front();
      ++s->dropped;
    }
    s->pending.push_back(framed);
    s->wake.cancel();
  }
}

void EventHub::CloseAll() {
  for (const auto& s : subscribers_) {
    s->closed = true;
    s->wake.cancel();
  }
}

}  // namespace droidlab::api
