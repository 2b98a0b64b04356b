// A counting semaphore for coroutines: at most N holders at once, the others wait in FIFO order
// without blocking a thread. Client uses one per device to bound the commands in flight there.
//
//   auto permit = co_await semaphore.Acquire(deadline);
//   if (!permit) ...   // the deadline passed, or the waiting coroutine was cancelled
//   ... the permit is given back when `permit` is destroyed.
//
// Thread-safety: not thread-safe; use it from one thread or one strand (the executor of the
// coroutines that call Acquire). A waiter that is cancelled (terminal cancellation of its
// coroutine) leaves the queue and gets an empty permit.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <deque>

namespace droidlab::adb {

class AsyncSemaphore {
 public:
  class Permit {
   public:
    Permit() = default;
    explicit Permit(AsyncSemaphore* owner) : owner_(owner) {}
    Permit(Permit&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Permit& operator=(Permit&& other) noexcept;
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;
    ~Permit() { Reset(); }
    explicit operator bool() const { return owner_ != nullptr; }
    void Reset();

   private:
    AsyncSemaphore* owner_ = nullptr;
  };

  explicit AsyncSemaphore(size_t permits) : available_(permits) {}
  AsyncSemaphore(const AsyncSemaphore&) = delete;
  AsyncSemaphore& operator=(const AsyncSemaphore&) = delete;
  // Every Permit must be gone first.
  ~AsyncSemaphore() = default;

  // A permit, or an empty one when `until` passed first or the coroutine was cancelled.
  boost::asio::awaitable<Permit> Acquire(
      std::chrono::steady_clock::time_point until = std::chrono::steady_clock::time_point::max());
  size_t available() const { return available_; }
  size_t waiting() const { return waiters_.size(); }

 private:
  struct Waiter;
  void Release();

  size_t available_;
  std::deque<Waiter*> waiters_;
};

}  // namespace droidlab::adb
