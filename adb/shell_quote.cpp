#include "adb/shell_quote.h"

namespace droidlab::adb {
namespace {

// Bytes no POSIX shell gives a meaning to in any position of a word. '=' is left out on purpose
// (assignment in the first word), '~' (tilde expansion), and all of `$*?[]{}()<>|&;'"\# ` too.
bool IsBareSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '@' || c == '%' || c == '+' || c == ':' || c == ',' || c == '.' || c == '/' ||
         c == '-';
}

void AppendQuoted(std::string& out, std::string_view arg) {
  bool bare = !arg.empty();
  for (char c : arg) bare = bare && IsBareSafe(c);
  if (bare) {
    out.append(arg);
    return;
  }
  out += '\'';
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
}

}  // namespace

Result<ShellCommand> BuildShellCommand(std::span<const std::string_view> argv) {
  if (argv.empty()) return MakeError(AdbErrc::kInvalidArgument, "shell command has no arguments");
  std::string line;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].find('\0') != std::string_view::npos) {
      return MakeError(AdbErrc::kInvalidArgument,
                       "shell argument " + std::to_string(i) + " holds a NUL byte");
    }
    if (i > 0) line += ' ';
    AppendQuoted(line, argv[i]);
  }
  return ShellCommand(std::move(line));
}

Result<ShellCommand> BuildShellCommand(std::initializer_list<std::string_view> argv) {
  return BuildShellCommand(std::span<const std::string_view>(argv.begin(), argv.size()));
}

Result<ShellCommand> BuildShellCommand(const std::vector<std::string>& argv) {
  std::vector<std::string_view> views(argv.begin(), argv.end());
  return BuildShellCommand(std::span<const std::string_view>(views));
}

Result<ShellCommand> BuildJoinedShellCommand(std::span<const std::vector<std::string>> argvs,
                                             std::string_view mark) {
  if (argvs.empty()) return MakeError(AdbErrc::kInvalidArgument, "no commands to join");
  // A bare word means nothing to the shell inside "…" either ($, `, \ and " are not in it).
  bool mark_ok = !mark.empty();
  for (char c : mark) mark_ok = mark_ok && IsBareSafe(c);
  if (!mark_ok) {
    return MakeError(AdbErrc::kInvalidArgument, "a joined command's mark must be a bare word");
  }
  std::string line;
  for (const std::vector<std::string>& argv : argvs) {
    auto part = BuildShellCommand(argv);
    if (!part) return part.error();
    if (!line.empty()) line += "; ";
    line += part->str();
    line += " 2>&1; echo \"";
    line += mark;
    line += " $?\"";
  }
  return ShellCommand(std::move(line));
}

}  // namespace droidlab::adb
