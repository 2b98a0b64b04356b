// The app's own slow main-thread messages, as Looper logs them (frameworks/base
// core/java/android/os/Looper.java): loop() reads `log.looper.<uid>.main.slow` once when the
// process's main loop starts; showSlowLog then logs, tag Looper, level W, in the main buffer,
//   "Slow dispatch took 912ms main h=android.app.ActivityThread$H c=null m=159"
//   "Slow delivery took 1530ms main h=… c=… m=…"
// for each message over it. Android 9–13 take a value > 0 (0, the default, is "none"); 14's
// getThresholdOverride defaults to -1, so 0 there logs every message. Before 9: nothing.
#pragma once

#include <chrono>

namespace droidlab::devsim {

struct App;
struct DeviceState;

// When `app`'s process starts: its threshold from the property (App::slow_threshold_ms).
void ReadSlowMessageThreshold(DeviceState& device, App& app);

// A launch shown at `shown_at`: the scenario's slow messages over the threshold, logged.
void LogSlowMessages(DeviceState& device, const App& app,
                     std::chrono::system_clock::time_point shown_at);

}  // namespace droidlab::devsim
