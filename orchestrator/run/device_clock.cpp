#include "orchestrator/run/device_clock.h"

#include <string>
#include <vector>

#include "orchestrator/run/device_commands.h"
#include "parsers/boot_clock.h"
#include "parsers/getconf.h"

namespace droidlab::orchestrator {

boost::asio::awaitable<CommandResult<DeviceClock>> ReadDeviceClock(DeviceShell& shell,
                                                                   adb::Deadline deadline) {
  DeviceClock clock;
  auto getconf_clk_tck = shell.Run(GetconfClkTck(), deadline, /*require_success=*/false);
  auto tck = co_await std::move(getconf_clk_tck);
  if (!tck) {
    if (tck.error().device_lost() || tck.error().cancelled() || tck.error().timed_out()) {
      co_return tck.error();
    }
  } else if (auto v = parsers::ParseGetconfPositive(tck->out);
             v && (!tck->exit_code || *tck->exit_code == 0)) {
    clock.clk_tck = *v;
    clock.clk_tck_read = true;
  }
  auto getconf_page_size = shell.Run(GetconfPageSize(), deadline, /*require_success=*/false);
  auto page = co_await std::move(getconf_page_size);
  if (!page) {
    if (page.error().device_lost() || page.error().cancelled() || page.error().timed_out()) {
      co_return page.error();
    }
  } else if (auto v = parsers::ParseGetconfPositive(page->out);
             v && (!page->exit_code || *page->exit_code == 0)) {
    clock.page_size = *v;
  }
  auto uptime_and_date = shell.RunLiteral(UptimeAndDate(), deadline);
  auto both = co_await std::move(uptime_and_date);
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
