// The run's one logcat stream: opened before the first launch and read until the run ends, its
// launch lines parsed as they come (parsers::LogcatReader) and kept in order for the launch
// matcher, and the app faults the reader completes (ANRs, crashes, native crashes: logcat_faults.h)
// kept in order for the iterations (launch_iteration.h). Waiters (an iteration waiting for its
// Displayed line) sleep on a timer the stream wakes at each new event or fault.
//
// Command: `logcat -v epoch -b main,system,crash,events -T 1`. epoch dates lines by the realtime
// clock in seconds (logprint.cpp, since Android 7), which the executor maps to the boot clock;
// system holds ActivityManager/ActivityTaskManager (launches, "ANR in"), main the apps' own lines
// (Looper, a tombstone's DEBUG), crash AndroidRuntime's FATAL EXCEPTION (Android 5+: every version
// epoch runs on has it) and events am_anr / am_crash (printed as text: "I am_crash: [0,…]");
// -T 1 starts at the last line instead of replaying the whole buffer, and that one line tells the
// stream is attached before the first launch.
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
  // Every fault of every process, in the order completed; a crash with a short stack is complete
  // only at the next fault or at reader.FlushFaults(faults), which an iteration calls at its end.
  std::vector<parsers::FaultEvent> faults;
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
