#include "tools/devsim/android/slow_messages.h"

#include <charconv>
#include <string>

#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {

void ReadSlowMessageThreshold(DeviceState& device, App& app) {
  app.slow_threshold_ms.reset();
  const int sdk = device.scenario.device.sdk;
  if (sdk < 28) return;
  const auto it =
      device.properties.find("log.looper." + std::to_string(app.spec.uid) + ".main.slow");
  if (it == device.properties.end() || it->second.empty()) return;
  long value = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return;  // getInt's default
  // 9–13: `thresholdOverride > 0`; 14+: `>= 0`.
  if (value > 0 || (sdk >= 34 && value == 0)) app.slow_threshold_ms = value;
}

void LogSlowMessages(DeviceState& device, const App& app,
                     std::chrono::system_clock::time_point shown_at) {
  if (!app.slow_threshold_ms || app.pid == 0) return;
  long offset_ms = 2;
  for (const SlowMessageSpec& m : app.spec.slow_messages) {
    if (m.ms < *app.slow_threshold_ms) continue;
    const std::string what = m.kind == "delivery" ? "delivery" : "dispatch";
    device.Log(shown_at + std::chrono::milliseconds(offset_ms), app.pid, app.pid, 'W', "Looper",
               "Slow " + what + " took " + std::to_string(m.ms) + "ms main h=" + m.handler +
                   " c=" + m.callback + " m=" + std::to_string(m.what),
               LogBufferId::kMain);
    offset_ms += 1;
  }
}

}  // namespace droidlab::devsim
