// The run's one logcat stream: opened before the first launch and read until the run ends, its
// launch lines parsed as they come (parsers::LogcatReader) and kept in order for the launch
// matcher. Waiters (an iteration waiting for its Displayed line) sleep on a timer the stream
// wakes at each new event.
//
// Command: `logcat -v epoch -b main,system -T 1`. epoch dates lines by the realtime clock in
// seconds (logprint.cpp, since Android 7), which the executor maps to the boot clock; main and
// system hold ActivityManager/ActivityTaskManager (system) and the rest of the default set
// minus crash; -T 1 starts at the last line instead of replaying the whole buffer, and that one
// line tells the stream is attached before the first launch.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/run/device_shell.h"
#include "parsers/logcat.h"

namespace droidlab::orchestrator {

struct LogcatFeed {
  parsers::LogcatReader reader;
  std::vector<parsers::LaunchEvent> events;
  uint64_t lines = 0;
  bool ended = false;
  std::string end_reason;  // why the stream ended (device gone, ...)
  boost::asio::steady_timer* waiter = nullptr;

  void Wake() {
    if (waiter) waiter->cancel();
  }
};

// Streams until cancelled; when the stream ends on its own (device gone) it records why, wakes
// the waiter and waits for cancellation, so it never ends the executor's `||` race by itself.
boost::asio::awaitable<void> FollowLogcat(DeviceShell& shell, std::shared_ptr<LogcatFeed> feed);

enum class WaitResult { kDone, kTimeout, kStreamEnded, kCancelled };

// Waits until `done()` holds (checked at once and after each new event), the deadline passes,
// the stream ends, or the run is cancelled.
boost::asio::awaitable<WaitResult> WaitForLog(LogcatFeed& feed, const std::function<bool()>& done,
                                              adb::Deadline deadline);

}  // namespace droidlab::orchestrator
