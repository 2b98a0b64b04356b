// `input` (keyevent, tap, swipe, text) and `wm dismiss-keyguard`: the keys, touches and window-
// manager calls lab scripts use to wake, sleep, unlock, drive and leave apps. Each input is
// recorded (`devsim-input-log`, devsim's own) and the app on top renders frames for it.
#include <algorithm>
#include <cstdlib>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// Input.java (to 11) / InputShellCommand (12+) take coordinates as floats.
bool IsNumber(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Arguments that do not parse, as each version's input tool answers:
// - Android 12+ (InputShellCommand, run by `cmd input`): a missing argument is ShellCommand.
//   getNextArgRequired's IllegalArgumentException ('Argument expected after "PREV"'), a number
//   that does not parse INVALID_ARGUMENTS + the command; BasicShellCommandHandler prints
//   "Exception occurred while executing 'CMD':" and the exception on stderr, exit 255.
// - Android 9 and before (Input.java): INVALID_ARGUMENTS + the command and the usage on stderr,
//   and main returns: exit 0. 10–11's Input.java throws the same message out of main (devsim:
//   the message and exit 1; the runtime's exact text around it is not simulated).
CommandOutput InvalidArguments(int sdk, const std::string& command,
                               const std::string& missing_after) {
  if (sdk >= 31) {
    const std::string message = missing_after.empty()
                                    ? "Error: Invalid arguments for command: " + command
                                    : "Argument expected after \"" + missing_after + "\"";
    return Error("Exception occurred while executing '" + command +
                     "':\njava.lang.IllegalArgumentException: " + message + "\n",
                 255);
  }
  return Error("Error: Invalid arguments for command: " + command +
                   "\nUsage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n",
               sdk >= 29 ? 1 : 0);
}

// Too few of `needed` arguments after the command: the last one given, for 12+'s message.
std::string MissingAfter(const Argv& args, std::size_t needed) {
  return args.size() < needed + 1 ? args.back() : "";
}

std::string Join(const Argv& argv, std::size_t from) {
  std::string text;
  for (std::size_t i = from; i < argv.size(); ++i) text += (i > from ? " " : "") + argv[i];
  return text;
}

CommandOutput KeyEvent(DeviceState& device, const Argv& args) {
  if (args.size() < 2) return InvalidArguments(device.scenario.device.sdk, "keyevent", args[0]);
  const std::string& key = args[1];
  // PhoneWindowManager: WAKEUP wakes, SLEEP sleeps, POWER toggles; going to sleep shows the
  // keyguard, and MENU dismisses an insecure one (the old "unlock by menu" of lab scripts).
  const bool wakeup = key == "224" || key == "KEYCODE_WAKEUP";
  const bool sleep = key == "223" || key == "KEYCODE_SLEEP";
  const bool power = key == "26" || key == "KEYCODE_POWER";
  const bool menu = key == "82" || key == "KEYCODE_MENU";
  const bool home = key == "3" || key == "KEYCODE_HOME";
  if (wakeup || (power && !device.screen_on)) {
    device.screen_on = true;
  } else if (sleep || power) {
    device.screen_on = false;
    device.keyguard_showing = true;
  } else if (menu && device.screen_on) {
    device.keyguard_showing = false;
  }
  // Keys the window manager keeps for itself (HOME, power, MENU's unlock) draw nothing in the
  // app; BACK and the rest reach it and it redraws.
  device.DeliverInput(Join(args, 0), !(wakeup || sleep || power || menu || home));
  // HOME leaves the app's activity stopped (the next start is hot), BACK finishes it (warm).
  for (auto& [name, app] : device.apps) {
    if (app.activity != ActivityState::kForeground) continue;
    if (home) app.activity = ActivityState::kBackground;
    if (key == "4" || key == "KEYCODE_BACK") app.activity = ActivityState::kDestroyed;
  }
  return {};
}

// Input.java sendText: "%s" stands for a space (adb shell splits words on spaces).
std::string DecodeText(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == 's') {
      out += ' ';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

bool IsSource(const std::string& word) {
  for (const char* source :
       {"keyboard", "mouse", "touchscreen", "touchpad", "touchnavigation", "stylus", "trackball",
        "dpad", "gamepad", "joystick", "rotaryencoder"}) {
    if (word == source) return true;
  }
  return false;
}

}  // namespace

CommandOutput RunInput(DeviceState& device, const Argv& argv) {
  Argv args(argv.begin() + 1, argv.end());
  if (!args.empty() && IsSource(args[0])) args.erase(args.begin());
  if (args.empty()) {
    return Error("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n", 1);
  }
  const int sdk = device.scenario.device.sdk;
  const std::string& command = args[0];
  if (command == "keyevent") return KeyEvent(device, args);
  if (command == "tap") {
    if (args.size() < 3) return InvalidArguments(sdk, command, MissingAfter(args, 2));
    // Input.java (to 11) takes exactly the arguments; InputShellCommand ignores extra ones.
    if ((sdk < 31 && args.size() > 3) || !IsNumber(args[1]) || !IsNumber(args[2])) {
      return InvalidArguments(sdk, command, "");
    }
    device.DeliverInput(Join(args, 0));
    return {};
  }
  if (command == "swipe") {
    if (args.size() < 5) return InvalidArguments(sdk, command, MissingAfter(args, 4));
    if (sdk < 31 && args.size() > 6) return InvalidArguments(sdk, command, "");
    for (std::size_t i = 1; i < std::min<std::size_t>(args.size(), 6); ++i) {
      if (!IsNumber(args[i])) return InvalidArguments(sdk, command, "");
    }
    // Input.java: no duration → 300 ms; the command returns when the finger lifts.
    const long ms = args.size() >= 6 ? std::atol(args[5].c_str()) : 300;
    device.DeliverInput("swipe " + args[1] + " " + args[2] + " " + args[3] + " " + args[4] + " " +
                        std::to_string(ms));
    CommandOutput output;
    if (device.options.realtime_launches && ms > 0) output.Wait(std::chrono::milliseconds(ms));
    return output;
  }
  if (command == "text") {
    if (args.size() < 2) return InvalidArguments(sdk, command, command);
    if (sdk < 31 && args.size() > 2) return InvalidArguments(sdk, command, "");
    device.DeliverInput("text " + DecodeText(args[1]));
    return {};
  }
  // 12+: ShellCommand.handleDefaultCommands on stdout, exit 255; before: Input.java's message
  // and its usage on stderr, main returns (exit 0 to 9; devsim: 1 on 10–11, as above).
  if (sdk >= 31) {
    CommandOutput output;
    output.Out("Unknown command: " + command + "\n");
    output.exit_code = 255;
    return output;
  }
  return Error("Error: Unknown command: " + command +
                   "\nUsage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n",
               sdk >= 29 ? 1 : 0);
}

// devsim's own (no such command on Android): the inputs delivered so far, one per line.
CommandOutput RunDevsimInputLog(DeviceState& device, const Argv& argv) {
  CommandOutput output;
  if (argv.size() > 1 && argv[1] == "clear") {
    device.input_log.clear();
    return output;
  }
  for (const std::string& line : device.input_log) output.Out(line + "\n");
  return output;
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
