#include "tools/devsim/service_name.h"

namespace droidlab::devsim {

std::optional<ShellRequest> ParseShellService(std::string_view service) {
  // The host sends the string NUL-terminated.
  while (!service.empty() && service.back() == '\0') service.remove_suffix(1);
  if (!service.starts_with("shell")) return std::nullopt;
  std::string_view rest = service.substr(5);
  if (rest.empty() || (rest[0] != ':' && rest[0] != ',')) return std::nullopt;

  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view args = rest.substr(0, colon);
  ShellRequest request;
  request.command = std::string(rest.substr(colon + 1));

  std::optional<bool> pty;
  while (!args.empty()) {
    if (args[0] == ',') {
      args.remove_prefix(1);
      continue;
    }
    const std::size_t comma = args.find(',');
    const std::string_view arg = args.substr(0, comma);
    args = comma == std::string_view::npos ? std::string_view() : args.substr(comma);
    if (arg == "v2") {
      request.shell_protocol = true;
    } else if (arg == "raw") {
      pty = false;
    } else if (arg == "pty") {
      pty = true;
    } else if (arg.starts_with("TERM=")) {
      request.term = std::string(arg.substr(5));
    }
    // adbd ignores arguments it does not know, so newer hosts still work.
  }
  request.pty = pty.value_or(request.command.empty());
  return request;
}

}  // namespace droidlab::devsim
