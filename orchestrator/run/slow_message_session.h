// The app's own slow main-thread messages (issue 16 §4), measured by Android itself. Looper.loop
// reads the system property `log.looper.<uid>.<thread name>.slow` once, when the thread's loop
// starts, and from then on logs every message slower than that many milliseconds (tag Looper,
// level W, Looper.showSlowLog):
//   "Slow dispatch took 712ms main h=android.app.ActivityThread$H c=null m=159"
//   "Slow delivery took 1530ms main h=… c=… m=…"
// (frameworks/base core/java/android/os/Looper.java: Android 9+ with the property read in loop();
// 14 moved it to getThresholdOverride() with -1 as "none", so 0 there means "every message").
// An OEM build may read more (one seen reads log.looper.any.main.slow first); droidlab sets only
// the AOSP one.
//
// The session reads the property, records durably what undoes it (owed_restores.h: setprop back
// to the old value, or empty), sets it, reads it back, and force-stops the app: a process that is
// already running read the property at its start, so only the next one — the run's first launch
// — logs with the threshold. A shell may set log.* properties on user builds (property_contexts
// gives them log_prop, which shell may set).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/owed_restores.h"

namespace droidlab::orchestrator {

// Looper.java logs slow messages from Android 9 (P).
inline constexpr int64_t kFirstSdkWithSlowMessages = 28;

// "log.looper.<uid>.main.slow": the main thread's property of the app whose uid is `uid`.
std::string SlowMessageProperty(int64_t uid);

struct SlowMessageSession {
  std::string property;
  std::optional<std::string> previous;  // none: it was unset (empty)
};

// Reads, records, sets, checks, force-stops `package`; each command under its own
// `command_timeout`. A record that fails stops the session before the property is set.
boost::asio::awaitable<CommandResult<SlowMessageSession>> StartSlowMessageSession(
    DeviceShell& shell, std::string package, int64_t uid, int64_t threshold_ms,
    std::chrono::milliseconds command_timeout, RecordRestore record);

}  // namespace droidlab::orchestrator
