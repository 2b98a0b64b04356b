#include "adb/async_semaphore.h"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace droidlab::adb {

namespace asio = boost::asio;

// A waiter parks on a timer that expires at its deadline; Release() grants it and cancels it.
struct AsyncSemaphore::Waiter {
  Waiter(const asio::any_io_executor& executor, asio::steady_timer::time_point until)
      : timer(executor, until) {}
  asio::steady_timer timer;
  bool granted = false;
};

AsyncSemaphore::Permit& AsyncSemaphore::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    Reset();
    owner_ = other.owner_;
    other.owner_ = nullptr;
  }
  return *this;
}

void AsyncSemaphore::Permit::Reset() {
  if (owner_ != nullptr) {
    owner_->Release();
    owner_ = nullptr;
  }
}

asio::awaitable<AsyncSemaphore::Permit> AsyncSemaphore::Acquire(
    std::chrono::steady_clock::time_point until) {
  if (available_ > 0 && waiters_.empty()) {
    --available_;
    co_return Permit(this);
  }
  Waiter waiter(co_await asio::this_coro::executor, until);
  waiters_.push_back(&waiter);
  // Granted, cancelled or expired, the wait ends; `granted` tells whether the permit is ours.
  co_await waiter.timer.async_wait(asio::as_tuple(asio::use_awaitable));
  if (waiter.granted) co_return Permit(this);
  waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), &waiter), waiters_.end());
  co_return Permit();
}

void AsyncSemaphore::Release() {
  if (waiters_.empty()) {
    ++available_;
    return;
  }
  // The permit passes straight to the first waiter: available_ does not change.
  Waiter* next = waiters_.front();
  waiters_.pop_front();
  next->granted = true;
  next->timer.cancel();
}

}  // namespace droidlab::adb
