// Is the screen on and the device unlocked? A launch on a dark or locked phone draws nothing
// worth timing (the activity starts behind the keyguard, or never gets a frame), so the
// preflight reads both, from the two dumps that print them (frameworks/base):
//
// `dumpsys power`: PowerManagerService.dumpInternal, every Android version:
//   POWER MANAGER (dumpsys power)
//
//   Power Manager State:
//     mDirty=0x0
//     mWakefulness=Awake
//     mWakefulnessChanging=false
// mWakefulness is PowerManagerInternal.wakefulnessToString: Awake, Asleep, Dreaming or Dozing
// (a dark panel with an always-on display reads Dozing). Only Awake has a lit, interactive
// screen. Android 12+ also prints mWakefulnessRaw, and per-group lines further down: the first
// `mWakefulness=` line is the global one.
//
// `dumpsys activity activities`: KeyguardController.dump (services/core/.../wm/ from Android
// 10, .../am/ before; present from Android 8.0):
//     KeyguardController:
//       mKeyguardShowing=false
//       mAodShowing=false
//       mKeyguardGoingAway=false
// Some builds print "KeyguardController:" at the end of the previous line
// ("isHomeRecentsComponent=true  KeyguardController:"), so the field is found as a token, not by
// the line before it. From Android 12 the value is display 0's (getDisplayState(0)).
//
// Both return nullopt when the dump does not have the field (an older or OEM format): unknown,
// which the caller must not take for "on" or "unlocked".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace droidlab::parsers {

// The first `mWakefulness=VALUE` line's VALUE ("Awake", "Asleep", …); nullopt when none or
// the value is empty or not a word.
std::optional<std::string> ParseWakefulness(std::string_view dumpsys_power);

// The first `mKeyguardShowing=true|false` token; nullopt when none (or another value).
std::optional<bool> ParseKeyguardShowing(std::string_view dumpsys_activity_activities);

}  // namespace droidlab::parsers
