#include "orchestrator/run/device_clock.h"

#include <string>
#include <vector>

#include "parsers/boot_clock.h"
#include "parsers/getconf.h"

namespace droidlab::orchestrator {

boost::asio::awaitable<CommandResult<DeviceClock>> ReadDeviceClock(DeviceShell& shell,
                                                                   adb::Deadline deadline) {
  DeviceClock clock;
  auto op1 = shell.Run(Argv("getconf", "CLK_TCK"), deadline, /*require_success=*/false);
  auto tck = co_await std::move(op1);
  if (!tck) {
    if (tck.error().device_lost() || tck.error().cancelled() || tck.error().timed_out()) {
      co_return tck.error();
    }
  } else if (auto v = parsers::ParseGetconfPositive(tck->out);
             v && (!tck->exit_code || *tck->exit_code == 0)) {
    clock.clk_tck = *v;
    clock.clk_tck_read = true;
  }
  auto op2 = shell.Run(Argv("getconf", "PAGESIZE"), deadline, /*require_success=*/false);
  auto page = co_await std::move(op2);
  if (!page) {
    if (page.error().device_lost() || page.error().cancelled() || page.error().timed_out()) {
      co_return page.error();
    }
  } else if (auto v = parsers::ParseGetconfPositive(page->out);
             v && (!page->exit_code || *page->exit_code == 0)) {
    clock.page_size = *v;
  }
  auto both = co_await shell.RunLiteral("cat /proc/uptime; date +%s.%N", deadline);
  if (!both) co_return both.error();
  auto clocks = parsers::ParseUptimeThenDate(both->out);
  if (!clocks) {
    co_return CommandError{
        std::nullopt,
        "`cat /proc/uptime; date +%s.%N` printed no uptime and date: " + both->out.substr(0, 120)};
  }
  clock.realtime_at_boot_ms = clocks->RealtimeAtBootMs();
  co_return clock;
}

}  // namespace droidlab::orchestrator
