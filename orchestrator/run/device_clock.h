// The device clocks a launch's phases need. Logcat dates lines by the realtime clock
// (`-v epoch`: seconds since the Unix epoch); /proc/PID/stat's starttime counts clock ticks
// since boot (CLOCK_BOOTTIME, what /proc/uptime shows). One shell command reads both clocks
// back to back, `cat /proc/uptime; date +%s.%N` (toybox date has %N), so their difference is
// the realtime at boot to within the ~ms between the two reads and /proc/uptime's centiseconds.
// CLK_TCK comes from `getconf CLK_TCK` (toybox); 100 (USER_HZ on every Android kernel) when the
// device has no getconf; the page size (for rss) likewise from `getconf PAGESIZE`, else 4 KiB.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>

#include "orchestrator/run/device_shell.h"

namespace droidlab::orchestrator {

struct DeviceClock {
  int64_t clk_tck = 100;
  bool clk_tck_read = false;        // false: getconf missing, 100 assumed
  int64_t realtime_at_boot_ms = 0;  // realtime − boot time
  int64_t page_size = 4096;         // `getconf PAGESIZE`; 4 KiB (arm64 and x86 Android) when absent

  // A logcat epoch time (ms) on the boot clock (ms since boot).
  int64_t ToBootMs(int64_t realtime_ms) const { return realtime_ms - realtime_at_boot_ms; }
  int64_t TicksToMs(uint64_t ticks) const {
    return static_cast<int64_t>(ticks) * 1000 / (clk_tck > 0 ? clk_tck : 100);
  }
};

// The outputs are read by parsers/getconf.h and parsers/boot_clock.h.
boost::asio::awaitable<CommandResult<DeviceClock>> ReadDeviceClock(DeviceShell& shell,
                                                                   adb::Deadline deadline);

}  // namespace droidlab::orchestrator
