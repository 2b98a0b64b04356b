#include "orchestrator/run/device_clock.h"

#include <charconv>
#include <string>
#include <vector>

#include "orchestrator/run/device_commands.h"
#include "parsers/proc_stat.h"

namespace droidlab::orchestrator {

namespace {

std::string_view TrimLine(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<int64_t> ParseRealtimeAtBootMs(std::string_view text) {
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  auto uptime = parsers::ParseProcUptime(text.substr(0, nl + 1));
  if (!uptime) return std::nullopt;
  const std::string_view date = TrimLine(text.substr(nl + 1));
  const size_t dot = date.find('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  int64_t secs = 0;
  auto [p, ec] = std::from_chars(date.data(), date.data() + dot, secs);
  if (ec != std::errc() || p != date.data() + dot) return std::nullopt;
  const std::string_view frac = date.substr(dot + 1);
  if (frac.size() < 3) return std::nullopt;  // %N missing: a date without nanoseconds
  for (char c : frac) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  const int64_t ms = (frac[0] - '0') * 100 + (frac[1] - '0') * 10 + (frac[2] - '0');
  return secs * 1000 + ms - uptime->uptime_cs * 10;
}

std::optional<int64_t> ParseClkTck(std::string_view output) {
  const std::string_view t = TrimLine(output);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v <= 0) return std::nullopt;
  return v;
}

boost::asio::awaitable<CommandResult<DeviceClock>> ReadDeviceClock(DeviceShell& shell,
                                                                   adb::Deadline deadline) {
  DeviceClock clock;
  auto getconf_clk_tck = shell.Run(GetconfClkTck(), deadline, /*require_success=*/false);
  auto tck = co_await std::move(getconf_clk_tck);
  if (!tck) {
    if (tck.error().device_lost() || tck.error().cancelled() || tck.error().timed_out()) {
      co_return tck.error();
    }
  } else if (auto v = ParseClkTck(tck->out); v && (!tck->exit_code || *tck->exit_code == 0)) {
    clock.clk_tck = *v;
    clock.clk_tck_read = true;
  }
  auto getconf_page_size = shell.Run(GetconfPageSize(), deadline, /*require_success=*/false);
  auto page = co_await std::move(getconf_page_size);
  if (!page) {
    if (page.error().device_lost() || page.error().cancelled() || page.error().timed_out()) {
      co_return page.error();
    }
  } else if (auto v = ParseClkTck(page->out); v && (!page->exit_code || *page->exit_code == 0)) {
    clock.page_size = *v;
  }
  auto uptime_and_date = shell.RunLiteral(UptimeAndDate(), deadline);
  auto both = co_await std::move(uptime_and_date);
  if (!both) co_return both.error();
  auto offset = ParseRealtimeAtBootMs(both->out);
  if (!offset) {
    co_return CommandError{
        std::nullopt,
        "`cat /proc/uptime; date +%s.%N` printed no uptime and date: " + both->out.substr(0, 120)};
  }
  clock.realtime_at_boot_ms = *offset;
  co_return clock;
}

}  // namespace droidlab::orchestrator
