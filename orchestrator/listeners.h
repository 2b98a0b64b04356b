// Listeners of one kind of event, as the lab's services publish them (the run queue its
// RunEvents, the device registry its device changes): Add returns an id for Remove; Emit calls
// every listener with the lock released, so a listener may add or remove listeners, and one that
// is removed during an Emit may still get that one event. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace droidlab::orchestrator {

template <class Event>
class Listeners {
 public:
  using Listener = std::function<void(const Event&)>;

  uint64_t Add(Listener listener) {
    std::lock_guard lock(mutex_);
    const uint64_t id = next_id_++;
    listeners_.emplace(id, std::move(listener));
    return id;
  }

  void Remove(uint64_t id) {
    std::lock_guard lock(mutex_);
    listeners_.erase(id);
  }

  void Emit(const Event& event) const {
    std::vector<Listener> copy;
    {
      std::lock_guard lock(mutex_);
      copy.reserve(listeners_.size());
      for (const auto& [id, listener] : listeners_) copy.push_back(listener);
    }
    for (const auto& listener : copy) listener(event);
  }

 private:
  mutable std::mutex mutex_;
  std::map<uint64_t, Listener> listeners_;
  uint64_t next_id_ = 1;
};

}  // namespace droidlab::orchestrator
