// The one way a device shell command line is made: from argv, each argument quoted for POSIX sh
// (Android's mksh) so that it reaches the program as exactly one argument, whatever it holds.
// A ShellCommand can only come from BuildShellCommand() or from a compile-time literal, so no
// request text is ever pasted into a command line.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adb/error.h"

namespace droidlab::adb {

// A constant command text written in our own source: `ShellLiteral("dumpsys battery reset")`.
// The constructor is consteval, so only a compile-time constant can become one; use it for
// fixed commands that need shell syntax (pipes, redirections), never for anything from a request.
class ShellLiteral {
 public:
  consteval ShellLiteral(const char* text) : text_(text) {}  // NOLINT(google-explicit-constructor)
  constexpr std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};

// A command line for `sh -c`, ready to go after "shell:" or "shell,v2,raw:".
class ShellCommand {
 public:
  static ShellCommand FromLiteral(ShellLiteral literal) {
    return ShellCommand(std::string(literal.text()));
  }
  const std::string& str() const { return text_; }

 private:
  friend Result<ShellCommand> BuildShellCommand(std::span<const std::string_view> argv);
  friend Result<ShellCommand> BuildJoinedShellCommand(
      std::span<const std::vector<std::string>> argvs, std::string_view mark);
  explicit ShellCommand(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// Joins argv with single spaces, quoting each argument as adb's own escape_arg does
// (packages/modules/adb adb_utils.cpp: wrap in '...', and a ' inside becomes '\''), except that
// an argument made only of [A-Za-z0-9_@%+:,./-] stays bare, so plain commands read as typed:
//   {"pm", "path", "com.example.app"}      -> pm path com.example.app
//   {"echo", "com.x; reboot"}              -> echo 'com.x; reboot'
//   {"echo", "it's"}                       -> echo 'it'\''s'
//   {"echo", ""}                           -> echo ''
//   {"settings", "put", "global", "looper_stats", "enabled=true"}
//                                          -> settings put global looper_stats 'enabled=true'
// '=' is always quoted: a bare `A=B` as the first word would be a variable assignment.
// Newlines, `$(...)`, backticks and non-ASCII bytes are taken literally inside single quotes.
// Errors: kInvalidArgument for an empty argv, or an argument holding NUL (the service string is
// a C string on the device: NUL would cut the command and leave a quote open).
Result<ShellCommand> BuildShellCommand(std::span<const std::string_view> argv);
Result<ShellCommand> BuildShellCommand(std::initializer_list<std::string_view> argv);
Result<ShellCommand> BuildShellCommand(const std::vector<std::string>& argv);

// Several commands in one line, each quoted as above, each run whatever the one before exited
// with and followed by a line of ours that says where its output ends and how it exited:
//   {{"am", "force-stop", "com.x"}, {"pidof", "com.x"}}, "M"
//       -> am force-stop com.x 2>&1; echo "M $?"; pidof com.x 2>&1; echo "M $?"
// Each command's stderr joins its stdout (2>&1), as through shell v1, so that each part's
// words stay its own (orchestrator/run/device_shell.h splits them). `mark` is a word of ours,
// made only of the bytes left bare above. Errors: as above for any argv, and kInvalidArgument for
// no argv or a mark that is empty or holds anything else.
Result<ShellCommand> BuildJoinedShellCommand(std::span<const std::vector<std::string>> argvs,
                                             std::string_view mark);

}  // namespace droidlab::adb
