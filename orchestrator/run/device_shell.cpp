#include "orchestrator/run/device_shell.h"

#include <utility>

namespace droidlab::orchestrator {

bool CommandError::device_lost() const {
  if (!adb) return false;
  switch (*adb) {
    case adb::AdbErrc::kServerUnreachable:
    case adb::AdbErrc::kDeviceNotFound:
    case adb::AdbErrc::kDeviceOffline:
    case adb::AdbErrc::kDeviceUnauthorized:
    case adb::AdbErrc::kConnectionLost:
      return true;
    default:
      return false;
  }
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::Run(
    std::vector<std::string> argv, adb::Deadline deadline, bool require_success) {
  std::string what;
  for (const std::string& a : argv) what += (what.empty() ? "" : " ") + a;
  auto command = adb::BuildShellCommand(argv);
  if (!command) {
    co_return CommandError{command.error().code, "`" + what + "`: " + command.error().message};
  }
  auto run_command =
      RunCommand(std::move(what), std::move(command).value(), deadline, require_success);
  co_return co_await std::move(run_command);
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::RunLiteral(
    adb::ShellLiteral literal, adb::Deadline deadline) {
  auto run_literal = RunCommand(std::string(literal.text()),
                                adb::ShellCommand::FromLiteral(literal), deadline, true);
  co_return co_await std::move(run_literal);
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::RunCommand(
    std::string what, adb::ShellCommand command, adb::Deadline deadline, bool require_success) {
  adb::Result<adb::ShellResult> r = co_await client_.Shell(serial_, command, deadline);
  if (!r) {
    co_return CommandError{
        r.error().code,
        "`" + what + "`: " + std::string(adb::ErrcName(r.error().code)) + ": " + r.error().message};
  }
  if (r->shell_v2 && !r->exit_code) {
    co_return CommandError{std::nullopt,
                           "`" + what + "`: output cut off (the device sent no exit status)"};
  }
  if (require_success && r->exit_code && *r->exit_code != 0) {
    std::string err = r->err.empty() ? r->out : r->err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    if (err.size() > 200) err.resize(200);
    co_return CommandError{std::nullopt, "`" + what + "` exited with " +
                                             std::to_string(*r->exit_code) + IfAny(": ", err)};
  }
  co_return std::move(r).value();
}

}  // namespace droidlab::orchestrator
