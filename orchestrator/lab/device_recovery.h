// The recovery ladder for a phone that stopped answering (issue 17 §3): each rung is tried only
// when the one below did not bring the phone back, and after each the phone is given time to
// answer again:
//   1. reconnect_transport — the adb server drops that phone's transport and connects again
//      (`adb -s SERIAL reconnect`): a host side that stopped moving bytes;
//   2. reconnect_device — the phone's adbd drops its end (`adb -s SERIAL reconnect device`);
//   3. reboot — only when the config allows it and the daemon's bound on reboots per phone is
//      not used up (lab/device_health.h counts them); a phone comes back from a reboot slowly.
// When none worked the caller quarantines the phone. Never `adb kill-server`: it would cut every
// other phone on the host, mid-run.
//
// "Answers" means `cat /proc/uptime` printed an uptime within the probe's deadline: a phone adb
// lists as `device` whose shell hangs is not answering.
//
// Threading: on the adb client's executor, like every device command.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "adb/client.h"

namespace droidlab::orchestrator {

struct RecoveryOptions {
  // One probe's deadline, and how long the phone has to answer again after a reconnect and
  // after a reboot (polled once a second).
  std::chrono::milliseconds probe_timeout{10'000};
  std::chrono::milliseconds settle_timeout{30'000};
  std::chrono::milliseconds boot_timeout{180'000};
  // The config's `recovery_reboot`: whether the ladder may reboot a phone at all.
  bool allow_reboot = false;
};

enum class RecoveryStep { kReconnectTransport, kReconnectDevice, kReboot };
// "reconnect_transport", "reconnect_device", "reboot": the device event kinds (schema 0019).
std::string_view RecoveryStepName(RecoveryStep step);

struct RecoveryResult {
  bool recovered = false;
  std::optional<RecoveryStep> fixed_by;  // the rung after which the phone answered
  int steps_taken = 0;
};

// Told each rung as it is taken and how it ended ("recovered" when the phone answers again):
// kind is a device event kind, detail one line for a person. Awaited before the ladder goes on,
// so that what it records is in the store before the next rung is tried.
using RecoveryRecorder =
    std::function<boost::asio::awaitable<void>(std::string kind, std::string detail)>;

// Whether the phone printed an uptime for `cat /proc/uptime` within `timeout`.
boost::asio::awaitable<bool> PhoneAnswers(adb::Client& client, adb::Serial serial,
                                          std::chrono::milliseconds timeout);

// Climbs the ladder until the phone answers or the rungs run out. `may_reboot`: this phone's
// reboot is allowed now (options.allow_reboot and the bound not used up). Cancellation ends it
// between or during rungs (the result then says not recovered).
boost::asio::awaitable<RecoveryResult> ClimbRecoveryLadder(adb::Client& client, adb::Serial serial,
                                                           RecoveryOptions options,
                                                           bool may_reboot,
                                                           RecoveryRecorder record);

}  // namespace droidlab::orchestrator
