// `input keyevent` and `wm dismiss-keyguard`: the keys and window-manager calls lab scripts
// use to wake, sleep, unlock and leave apps.
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {

CommandOutput RunInput(DeviceState& device, const Argv& argv) {
  if (argv.size() >= 3 && argv[1] == "keyevent") {
    const std::string& key = argv[2];
    // PhoneWindowManager: WAKEUP wakes, SLEEP sleeps, POWER toggles; going to sleep shows the
    // keyguard, and MENU dismisses an insecure one (the old "unlock by menu" of lab scripts).
    const bool wakeup = key == "224" || key == "KEYCODE_WAKEUP";
    const bool sleep = key == "223" || key == "KEYCODE_SLEEP";
    const bool power = key == "26" || key == "KEYCODE_POWER";
    if (wakeup || (power && !device.screen_on)) {
      device.screen_on = true;
    } else if (sleep || power) {
      device.screen_on = false;
      device.keyguard_showing = true;
    } else if ((key == "82" || key == "KEYCODE_MENU") && device.screen_on) {
      device.keyguard_showing = false;
    }
    // HOME leaves the app's activity stopped (the next start is hot), BACK finishes it (warm).
    for (auto& [name, app] : device.apps) {
      if (app.activity != ActivityState::kForeground) continue;
      if (key == "3" || key == "KEYCODE_HOME") app.activity = ActivityState::kBackground;
      if (key == "4" || key == "KEYCODE_BACK") app.activity = ActivityState::kDestroyed;
    }
    return {};
  }
  return Error("Error: Unknown command: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n", 1);
}

// `wm dismiss-keyguard` (WindowManagerShellCommand): dismisses an insecure keyguard.
CommandOutput RunWm(DeviceState& device, const Argv& argv) {
  if (argv.size() >= 2 && argv[1] == "dismiss-keyguard") {
    if (device.screen_on) device.keyguard_showing = false;
    return {};
  }
  return Error("Error: unknown command '" + (argv.size() > 1 ? argv[1] : std::string()) + "'\n",
               255);
}

}  // namespace droidlab::devsim
