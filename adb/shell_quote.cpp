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

}  // namespace droidlab::adb
