#include "adb/async_semaphore.h"

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <optional>

namespace droidlab::adb {
namespace {

namespace asio = boost::asio;

TEST(AsyncSemaphoreTest, WaitersGoInOrderAndNeverExceedTheLimit) {
  asio::io_context io;
  AsyncSemaphore semaphore(2);
  int holding = 0, most = 0;
  std::vector<int> order;
  for (int i = 0; i < 6; ++i) {
    asio::co_spawn(io, [&, i]() -> asio::awaitable<void> {
      auto permit = co_await semaphore.Acquire();
      EXPECT_TRUE(permit);
      order.push_back(i);
      most = std::max(most, ++holding);
      co_await asio::post(io, asio::use_awaitable);  // hold it across a turn of the loop
      --holding;
    }, [](std::exception_ptr e) { EXPECT_FALSE(e); });
  }
  io.run();
  EXPECT_EQ(most, 2);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(semaphore.available(), 2u);
}

TEST(AsyncSemaphoreTest, ACancelledWaiterLeavesTheQueue) {
  asio::io_context io;
  AsyncSemaphore semaphore(1);
  asio::cancellation_signal cancel;
  bool got = true;
  std::optional<AsyncSemaphore::Permit> held;
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    held.emplace(co_await semaphore.Acquire());
  }, [](std::exception_ptr e) { EXPECT_FALSE(e); });
  io.run();
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    auto permit = co_await semaphore.Acquire();
    got = static_cast<bool>(permit);
  }, asio::bind_cancellation_slot(cancel.slot(), [](std::exception_ptr e) { EXPECT_FALSE(e); }));
  io.restart();
  io.poll();
  EXPECT_EQ(semaphore.waiting(), 1u);
  cancel.emit(asio::cancellation_type::terminal);
  io.restart();
  io.run();
  EXPECT_FALSE(got);
  EXPECT_EQ(semaphore.waiting(), 0u);
  held.reset();
  EXPECT_EQ(semaphore.available(), 1u);
}

TEST(AsyncSemaphoreTest, AWaiterGivesUpAtItsDeadline) {
  asio::io_context io;
  AsyncSemaphore semaphore(1);
  std::optional<AsyncSemaphore::Permit> held;
  bool got = true;
  asio::co_spawn(io, [&]() -> asio::awaitable<void> {
    held.emplace(co_await semaphore.Acquire());
    auto late = co_await semaphore.Acquire(std::chrono::steady_clock::now() +
                                           std::chrono::milliseconds(20));
    got = static_cast<bool>(late);
  }, [](std::exception_ptr e) { EXPECT_FALSE(e); });
  io.run();
  EXPECT_FALSE(got);
  EXPECT_EQ(semaphore.waiting(), 0u);
  held.reset();
  EXPECT_EQ(semaphore.available(), 1u);
}

}  // namespace
}  // namespace droidlab::adb
