// LostWrites: what a run handed to the store's writer and the writer then lost (a full disk, an
// I/O error), told by the writer's completions on its own thread. The run waits for the writer
// before it decides how it ended, and a lost batch fails it with the reason: a run is never
// `succeeded` with launches, samples or looper rows the store does not have.
#pragma once

#include <mutex>
#include <optional>
#include <string>

namespace droidlab::orchestrator {

class LostWrites {
 public:
  void Record(std::string why) {
    std::lock_guard lock(mutex_);
    ++lost_;
    if (!first_) first_ = std::move(why);
  }
  // The first loss ("iteration 3 of 10's launch not stored: database or disk is full") and how
  // many more there were, or nothing.
  std::optional<std::string> Summary() const {
    std::lock_guard lock(mutex_);
    if (!first_) return std::nullopt;
    if (lost_ == 1) return first_;
    return *first_ + " (and " + std::to_string(lost_ - 1) + " more batch(es) lost)";
  }

 private:
  mutable std::mutex mutex_;
  int lost_ = 0;
  std::optional<std::string> first_;
};

}  // namespace droidlab::orchestrator
