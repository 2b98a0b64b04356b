#include "orchestrator/lab/device_recovery.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "adb/error.h"
#include "orchestrator/run/cancelled.h"
#include "orchestrator/run/device_commands.h"
#include "parsers/proc_stat.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

// False when cancelled.
asio::awaitable<bool> Sleep(std::chrono::milliseconds how_long) {
  asio::steady_timer timer(co_await asio::this_coro::executor, how_long);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  co_return !ec;
}

// A phone on the network: its serial is its address, "host:port" (adb connect's form).
bool IsNetworkSerial(std::string_view serial) {
  const size_t colon = serial.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == serial.size()) return false;
  for (char c : serial.substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string Seconds(std::chrono::milliseconds ms) {
  return std::to_string(ms.count() / 1000) + " s";
}

// Polls the phone once a second until it answers or `within` has passed.
asio::awaitable<bool> AnswersWithin(adb::Client& client, adb::Serial serial,
                                    const RecoveryOptions& options,
                                    std::chrono::milliseconds within) {
  const auto until = adb::Clock::now() + within;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - adb::Clock::now());
    if (left <= std::chrono::milliseconds::zero()) co_return false;
    auto probing = PhoneAnswers(client, serial, std::min(options.probe_timeout, left));
    const bool answers = co_await std::move(probing);
    if (answers) co_return true;
    const bool slept = co_await Sleep(std::chrono::milliseconds(1000));
    if (!slept) co_return false;
  }
}

// One rung: what it sends, as one line for the device's history ("" when it went through).
asio::awaitable<std::string> TakeStep(adb::Client& client, adb::Serial serial, RecoveryStep step,
                                      std::chrono::milliseconds timeout) {
  const adb::Deadline deadline = adb::DeadlineAfter(timeout);
  switch (step) {
    case RecoveryStep::kReconnectTransport: {
      auto asking = client.ReconnectTransport(serial, deadline);
      auto said = co_await std::move(asking);
      if (!said) co_return said.error().message;
      if (!IsNetworkSerial(serial.str())) co_return std::string();
      // adb 29 drops a network phone's transport for good on `reconnect` (it kicks it as
      // reset, and a kicked transport is not tracked for reconnection): connect it again.
      const bool slept = co_await Sleep(std::chrono::milliseconds(500));
      if (!slept) co_return std::string("cancelled");
      auto connecting = client.Connect(serial, adb::DeadlineAfter(timeout));
      auto connected = co_await std::move(connecting);
      if (!connected) co_return "adb connect " + serial.str() + ": " + connected.error().message;
      co_return std::string();
    }
    case RecoveryStep::kReconnectDevice: {
      auto asking = client.ReconnectDevice(serial, deadline);
      auto said = co_await std::move(asking);
      if (!said) co_return said.error().message;
      co_return std::string();
    }
    case RecoveryStep::kReboot: {
      auto asking = client.Reboot(serial, deadline);
      auto said = co_await std::move(asking);
      if (!said) co_return said.error().message;
      co_return std::string();
    }
  }
  co_return std::string("unknown step");
}

std::string StepDetail(RecoveryStep step, std::chrono::milliseconds wait) {
  switch (step) {
    case RecoveryStep::kReconnectTransport:
      return "adb -s SERIAL reconnect: the adb server drops the phone's transport and connects "
             "again (adb connect again for a phone on the network); waiting up to " +
             Seconds(wait) + " for an answer";
    case RecoveryStep::kReconnectDevice:
      return "adb -s SERIAL reconnect device: the phone's adbd drops its end; waiting up to " +
             Seconds(wait) + " for an answer";
    case RecoveryStep::kReboot:
      return "adb -s SERIAL reboot; waiting up to " + Seconds(wait) + " for the phone to answer";
  }
  return "";
}

}  // namespace

std::string_view RecoveryStepName(RecoveryStep step) {
  switch (step) {
    case RecoveryStep::kReconnectTransport:
      return "reconnect_transport";
    case RecoveryStep::kReconnectDevice:
      return "reconnect_device";
    case RecoveryStep::kReboot:
      return "reboot";
  }
  return "unknown";
}

asio::awaitable<bool> PhoneAnswers(adb::Client& client, adb::Serial serial,
                                   std::chrono::milliseconds timeout) {
  const std::vector<std::string> argv = CatProcUptime();
  auto asking = client.ShellArgv(serial, argv, adb::DeadlineAfter(timeout));
  auto said = co_await std::move(asking);
  if (!said) co_return false;
  co_return parsers::ParseProcUptime(said->out).ok();
}

asio::awaitable<RecoveryResult> ClimbRecoveryLadder(adb::Client& client, adb::Serial serial,
                                                    RecoveryOptions options, bool may_reboot,
                                                    RecoveryRecorder record) {
  RecoveryResult result;
  std::vector<RecoveryStep> steps{RecoveryStep::kReconnectTransport,
                                  RecoveryStep::kReconnectDevice};
  if (may_reboot) steps.push_back(RecoveryStep::kReboot);
  for (const RecoveryStep step : steps) {
    const bool cancelled = co_await Cancelled();
    if (cancelled) co_return result;
    const std::chrono::milliseconds wait =
        step == RecoveryStep::kReboot ? options.boot_timeout : options.settle_timeout;
    std::string kind(RecoveryStepName(step));
    std::string detail = StepDetail(step, wait);
    auto recording = record(std::move(kind), std::move(detail));
    co_await std::move(recording);
    ++result.steps_taken;
    auto taking = TakeStep(client, serial, step, options.probe_timeout);
    const std::string refused = co_await std::move(taking);
    if (!refused.empty()) {
      // A rung adb refused (the phone gone from its list, say) may still have helped: the
      // phone is given its time to answer either way.
      std::string failed_kind(RecoveryStepName(step));
      std::string failed = "the step failed: " + refused;
      auto noting = record(std::move(failed_kind), std::move(failed));
      co_await std::move(noting);
    }
    // Each rung takes the transport down, adbd's `reconnect` a moment after it answers: a probe
    // sent at once could still reach the old connection and be taken for a recovery.
    const bool settled = co_await Sleep(std::chrono::milliseconds(1000));
    if (!settled) co_return result;
    auto waiting = AnswersWithin(client, serial, options, wait);
    const bool answers = co_await std::move(waiting);
    if (answers) {
      result.recovered = true;
      result.fixed_by = step;
      std::string recovered_kind = "recovered";
      std::string recovered =
          "answering again after " + std::string(RecoveryStepName(step));
      auto noting = record(std::move(recovered_kind), std::move(recovered));
      co_await std::move(noting);
      co_return result;
    }
  }
  co_return result;
}

}  // namespace droidlab::orchestrator
