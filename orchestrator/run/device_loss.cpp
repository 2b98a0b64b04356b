#include "orchestrator/run/device_loss.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "orchestrator/run/device_clock.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

// A boot that moved by more than this is a new boot, not the centiseconds of /proc/uptime.
constexpr int64_t kRebootSlackMs = 2000;
constexpr std::chrono::seconds kAskTimeout{2};
constexpr std::chrono::milliseconds kSettle{500};
constexpr int kAsks = 4;

}  // namespace

asio::awaitable<std::string> DescribeDeviceLoss(DeviceShell& shell,
                                                std::optional<int64_t> realtime_at_boot_ms) {
  // Right after a drop adb may still say `offline` for a phone that is on its way back (and
  // about to show `unauthorized`, or to answer with a new boot): asked again a few times.
  std::optional<adb::DeviceEntry> entry;
  for (int asked = 0; asked < kAsks; ++asked) {
    if (asked > 0) {
      const asio::any_io_executor executor = co_await asio::this_coro::executor;
      asio::steady_timer pause(executor, kSettle);
      boost::system::error_code ec;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
    auto listing = shell.client().Devices(adb::DeadlineAfter(kAskTimeout));
    adb::Result<adb::DeviceList> list = co_await std::move(listing);
    if (!list) co_return std::string("the adb server went away");
    entry.reset();
    for (const adb::DeviceEntry& d : list->devices) {
      if (d.serial == shell.serial().str()) entry = d;
    }
    if (entry && entry->state != adb::DeviceState::kOffline) break;
  }
  if (!entry) co_return std::string("adb no longer lists the device");
  if (entry->state == adb::DeviceState::kUnauthorized) {
    co_return std::string(
        "the device turned unauthorized (allow this host's adb key on the phone)");
  }
  if (entry->state != adb::DeviceState::kDevice) {
    std::string went = "the device went " + std::string(adb::DeviceStateName(entry->state));
    co_return went;
  }
  // Listed as a device again already: a phone that rebooted has a new boot time.
  auto reading = ReadDeviceClock(shell, adb::DeadlineAfter(kAskTimeout));
  CommandResult<DeviceClock> clock = co_await std::move(reading);
  if (clock && realtime_at_boot_ms &&
      clock->realtime_at_boot_ms - *realtime_at_boot_ms > kRebootSlackMs) {
    co_return std::string("the device rebooted");
  }
  co_return std::string("the device dropped the connection");
}

}  // namespace droidlab::orchestrator
