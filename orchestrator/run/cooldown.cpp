#include "orchestrator/run/cooldown.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <iterator>
#include <vector>

#include "orchestrator/run/device_commands.h"
#include "parsers/dumpsys_battery.h"
#include "parsers/dumpsys_thermal.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

std::string Celsius(int64_t tenths) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f °C", static_cast<double>(tenths) / 10);
  return text;
}

}  // namespace

asio::awaitable<CommandResult<LaunchConditions>> ReadLaunchConditions(
    DeviceShell& shell, std::chrono::milliseconds command_timeout, std::vector<ShellPart> also,
    std::vector<CommandResult<adb::ShellResult>>* also_answers) {
  LaunchConditions c;
  // Both dumps in one command: read before every launch, they were a fifth of a run's commands.
  std::vector<ShellPart> parts{{DumpsysThermalservice(), false}, {DumpsysBattery(), false}};
  for (ShellPart& part : also) parts.push_back(std::move(part));
  const auto deadline = adb::DeadlineAfter(static_cast<int>(parts.size()) * command_timeout);
  auto dumping = shell.RunJoined(std::move(parts), deadline);
  auto dumps = co_await std::move(dumping);
  if (also_answers)
    also_answers->assign(std::make_move_iterator(dumps.begin() + 2),
                         std::make_move_iterator(dumps.end()));
  if (!dumps[0]) co_return dumps[0].error();
  if (auto parsed = parsers::ParseDumpsysThermal(dumps[0]->out)) {
    c.thermal_status = parsed->thermal_status;
  }
  if (!dumps[1]) co_return dumps[1].error();
  if (auto parsed = parsers::ParseDumpsysBattery(dumps[1]->out)) {
    if (!parsed->updates_stopped && parsed->temperature_tenths_c) {
      c.battery_temp_tenths_c = *parsed->temperature_tenths_c;
    }
  }
  co_return c;
}

std::string TooHot(const LaunchConditions& c, const CoolEnough& limit) {
  std::string why;
  if (c.thermal_status && *c.thermal_status > limit.max_thermal_status) {
    why = "thermal status " + std::string(parsers::ThermalStatusName(*c.thermal_status)) +
          " (at most " + std::string(parsers::ThermalStatusName(limit.max_thermal_status)) + ")";
  }
  if (c.battery_temp_tenths_c && *c.battery_temp_tenths_c > limit.max_battery_temp_tenths_c) {
    if (!why.empty()) why += ", ";
    why += "battery " + Celsius(*c.battery_temp_tenths_c) + " (at most " +
           Celsius(limit.max_battery_temp_tenths_c) + ")";
  }
  return why;
}

asio::awaitable<CommandResult<CooldownResult>> WaitUntilCool(
    DeviceShell& shell, CoolEnough limit, std::chrono::milliseconds timeout,
    std::chrono::milliseconds poll, std::chrono::milliseconds command_timeout,
    std::vector<ShellPart> with_first_read) {
  const auto started = std::chrono::steady_clock::now();
  CooldownResult result;
  for (bool paused = false;; paused = true) {
    std::vector<CommandResult<adb::ShellResult>> answers;
    std::vector<ShellPart> also;
    if (!paused) also = std::move(with_first_read);
    auto reading = ReadLaunchConditions(shell, command_timeout, std::move(also), &answers);
    auto read = co_await std::move(reading);
    if (!read) co_return read.error();
    result.conditions = *read;
    const auto waited = std::chrono::steady_clock::now() - started;
    // The readings alone are not a wait: a phone cool at once waited 0 ms.
    result.waited_ms =
        paused ? std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() : 0;
    const std::string hot = TooHot(result.conditions, limit);
    if (hot.empty()) {
      if (!paused) result.first_read_answers = std::move(answers);
      co_return result;
    }
    if (waited + poll > timeout) {
      result.still_hot = hot;
      co_return result;
    }
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer pause(executor, poll);
    boost::system::error_code ec;
    co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      CommandError cancelled;
      cancelled.adb = adb::AdbErrc::kCancelled;
      cancelled.message = "cancelled while waiting for the phone to cool down";
      co_return cancelled;
    }
  }
}

}  // namespace droidlab::orchestrator
