// The executor's way of running one command on its device: argv quoted by adb::BuildShellCommand
// (nothing reaches the shell unquoted), a deadline, and one error type that says whether the
// device is gone (the run cannot go on), the deadline passed, the run was cancelled, or the
// command itself failed (non-zero exit, output cut off).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/client.h"
#include "base/result.h"

namespace droidlab::orchestrator {

struct CommandError {
  std::optional<adb::AdbErrc> adb;  // nullopt: the command ran and failed
  std::string message;              // "`dumpsys battery`: device offline"

  // The device or the adb server went away: no later command will work either.
  bool device_lost() const;
  bool timed_out() const { return adb == adb::AdbErrc::kTimeout; }
  bool cancelled() const { return adb == adb::AdbErrc::kCancelled; }
};

template <class T>
using CommandResult = BasicResult<T, CommandError>;

// "SEP TEXT" or "" for an empty text. g++ 12 miscompiles a conditional expression whose arms
// are std::string temporaries inside a coroutine (double free): coroutines here call this instead.
inline std::string IfAny(std::string_view separator, const std::string& text) {
  return text.empty() ? std::string() : std::string(separator) + text;
}

class DeviceShell {
 public:
  DeviceShell(adb::Client& client, adb::Serial serial) : client_(client), serial_(serial) {}

  // Runs argv (one of device_commands.h, built in a statement of its own: the operation owns
  // it); an exit status other than 0 (shell v2) is an error when `require_success`, and a v2
  // stream that ended without any exit status (cut off) always is.
  boost::asio::awaitable<CommandResult<adb::ShellResult>> Run(std::vector<std::string> argv,
                                                              adb::Deadline deadline,
                                                              bool require_success = true);
  // A fixed command of our own that needs shell syntax (`;`).
  boost::asio::awaitable<CommandResult<adb::ShellResult>> RunLiteral(adb::ShellLiteral literal,
                                                                     adb::Deadline deadline);

  adb::Client& client() { return client_; }
  const adb::Serial& serial() const { return serial_; }

 private:
  boost::asio::awaitable<CommandResult<adb::ShellResult>> RunCommand(std::string what,
                                                                     adb::ShellCommand command,
                                                                     adb::Deadline deadline,
                                                                     bool require_success);
  adb::Client& client_;
  adb::Serial serial_;
};

}  // namespace droidlab::orchestrator
