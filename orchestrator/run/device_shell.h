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

// One command of a joined run (DeviceShell::RunJoined).
struct ShellPart {
  std::vector<std::string> argv;  // one of device_commands.h
  bool require_success = true;    // as Run's
};

// Pure: the output of adb::BuildJoinedShellCommand(…, mark) split back into each part's output
// and exit status, at the `MARK STATUS` line each part ends with (a CR before its newline, as a
// shell v1 pty prints it, is taken as part of the line). The text before a part's mark is
// exactly that part's output (stdout and stderr). nullopt unless there are exactly `parts`
// marks, each with a status 0–255 ending its line: a shell that did not run the line as written.
std::optional<std::vector<adb::ShellResult>> SplitJoinedOutput(std::string_view out,
                                                               std::string_view mark, size_t parts);

class DeviceShell {
 public:
  DeviceShell(adb::Client& client, adb::Serial serial) : client_(client), serial_(serial) {}

  // Runs argv (one of device_commands.h, built in a statement of its own: the operation owns
  // it); an exit status other than 0 (shell v2) is an error when `require_success`, and a v2
  // stream that ended without any exit status (cut off) always is.
  boost::asio::awaitable<CommandResult<adb::ShellResult>> Run(std::vector<std::string> argv,
                                                              adb::Deadline deadline,
                                                              bool require_success = true);
  // Several commands in one `adb shell` — one command's cost at the adb server and adbd
  // instead of one each (issue 17 §4: a lab of 200 phones is bound by the commands a launch
  // sends) — and each part's result as Run would have returned it: its own output (stdout with
  // its stderr, as through shell v1) and its own exit status, read from a line of ours after it
  // (SplitJoinedOutput). The parts run in order whatever the one before exited with. A failure
  // of the whole (device gone, deadline, cancelled) is every part's. Only for commands that may
  // run twice: a shell that does not answer with the marks has them run again one by one, and
  // from then on this shell runs every joined list that way.
  boost::asio::awaitable<std::vector<CommandResult<adb::ShellResult>>> RunJoined(
      std::vector<ShellPart> parts, adb::Deadline deadline);
  bool runs_joined() const { return !joined_refused_; }

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
  std::string mark_;             // a word no output holds by chance: random, made at first use
  bool joined_refused_ = false;  // the device's shell did not answer a joined list with its marks
};

}  // namespace droidlab::orchestrator
