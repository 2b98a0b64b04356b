#include "orchestrator/run/logcat_feed.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "orchestrator/run/cancelled.h"
#include "orchestrator/run/device_commands.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

asio::awaitable<void> FollowLogcat(DeviceShell& shell, std::shared_ptr<LogcatFeed> feed) {
  co_await asio::this_coro::throw_if_cancelled(false);
  const std::vector<std::string> argv = LogcatFromNow();
  auto command = adb::BuildShellCommand(argv);
  if (!command) {
    feed->ended = true;
    feed->end_reason = command.error().message;
  } else {
    // The sink named first: a lambda made into a std::function inside the co_await
    // full-expression is destroyed twice by g++ 12.
    adb::LineSink sink = [feed](std::string_view line) -> asio::awaitable<bool> {
      ++feed->lines;
      const size_t before = feed->events.size();
      const size_t faults_before = feed->faults.size();
      feed->reader.AddLine(line, feed->events, feed->faults);
      if (feed->lines == 1 || feed->events.size() != before ||
          feed->faults.size() != faults_before) {
        feed->Wake();
      }
      co_return true;
    };
    auto streaming =
        shell.client().StreamLines(shell.serial(), *command, std::move(sink), adb::kNoDeadline);
    auto end = co_await std::move(streaming);
    feed->ended = true;
    if (!end) {
      feed->end_reason = "logcat stream: " + std::string(adb::ErrcName(end.error().code)) + ": " +
                         end.error().message;
    } else {
      std::string exit = "?";
      if (end->exit_code) exit = std::to_string(*end->exit_code);
      feed->end_reason = "logcat stream ended (exit " + exit + IfAny(": ", end->err) + ")";
    }
  }
  feed->Wake();
  // Stay in the race until the executor ends it.
  const asio::any_io_executor forever_executor = co_await asio::this_coro::executor;
  asio::steady_timer forever(forever_executor, adb::kNoDeadline);
  while (!co_await Cancelled()) {
    boost::system::error_code ec;
    co_await forever.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<WaitResult> WaitForLog(LogcatFeed& feed, const std::function<bool()>& done,
                                       adb::Deadline deadline) {
  const asio::any_io_executor timer_executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(timer_executor);
  for (;;) {
    if (done()) co_return WaitResult::kDone;
    if (co_await Cancelled()) co_return WaitResult::kCancelled;
    if (feed.ended) co_return WaitResult::kStreamEnded;
    if (adb::Clock::now() >= deadline) co_return WaitResult::kTimeout;
    timer.expires_at(deadline);
    feed.waiter = &timer;
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    feed.waiter = nullptr;
  }
}

}  // namespace droidlab::orchestrator
