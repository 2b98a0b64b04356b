// Why a run lost its device, in words a person can act on. A command that fails with "connection
// lost" says nothing of the cause; asked right after, adb and the device tell it apart: the phone
// rebooted (back already, its boot clock restarted), turned `unauthorized` (this host's key is no
// longer allowed), went offline or off adb's list, or the adb server itself went away.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "orchestrator/run/device_shell.h"

namespace droidlab::orchestrator {

// "the device rebooted", "the device turned unauthorized (…)", "the device went offline", "adb
// no longer lists the device", "the adb server went away", else "the device dropped the
// connection". `realtime_at_boot_ms`: the device clock read at the run's start (device_clock.h);
// a boot more than 2 s later than it means a reboot. Bounded: adb asked up to 4 times, 0.5 s
// apart, while it says `offline`; about 4 s at most.
boost::asio::awaitable<std::string> DescribeDeviceLoss(DeviceShell& shell,
                                                       std::optional<int64_t> realtime_at_boot_ms);

}  // namespace droidlab::orchestrator
