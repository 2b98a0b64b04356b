#include "orchestrator/run/slow_message_session.h"

#include <utility>

#include "orchestrator/run/device_commands.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

// getprop prints the value and a newline; an unset property prints an empty line.
std::string FirstLine(const std::string& text) {
  const size_t end = text.find_first_of("\r\n");
  return end == std::string::npos ? text : text.substr(0, end);
}

}  // namespace

std::string SlowMessageProperty(int64_t uid) {
  return "log.looper." + std::to_string(uid) + ".main.slow";
}

asio::awaitable<CommandResult<SlowMessageSession>> StartSlowMessageSession(
    DeviceShell& shell, std::string package, int64_t uid, int64_t threshold_ms,
    std::chrono::milliseconds command_timeout, RecordRestore record) {
  SlowMessageSession session;
  session.property = SlowMessageProperty(uid);
  auto reading = shell.Run(GetpropValue(session.property), adb::DeadlineAfter(command_timeout));
  auto read = co_await std::move(reading);
  if (!read) co_return read.error();
  const std::string previous = FirstLine(read->out);
  if (!previous.empty()) session.previous = previous;

  // On disk before the change: a crash from here on still leaves the device owed its value.
  auto recording = record(SystemPropertyRestore(session.property, session.previous));
  auto recorded = co_await std::move(recording);
  if (!recorded) co_return recorded.error();

  const std::string wanted = std::to_string(threshold_ms);
  auto setting = shell.Run(Setprop(session.property, wanted), adb::DeadlineAfter(command_timeout));
  auto set = co_await std::move(setting);
  if (!set) co_return set.error();
  auto checking = shell.Run(GetpropValue(session.property), adb::DeadlineAfter(command_timeout));
  auto check = co_await std::move(checking);
  if (!check) co_return check.error();
  const std::string now = FirstLine(check->out);
  if (now != wanted) {
    co_return CommandError{std::nullopt, "setprop " + session.property + " " + wanted +
                                             " did not hold: getprop says `" + now + "`"};
  }
  auto stopping = shell.Run(ForceStop(package), adb::DeadlineAfter(command_timeout));
  auto stopped = co_await std::move(stopping);
  if (!stopped) co_return stopped.error();
  co_return session;
}

}  // namespace droidlab::orchestrator
