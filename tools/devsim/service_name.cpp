#include "tools/devsim/service_name.h"

#include <charconv>

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

namespace {

std::string_view WithoutTrailingNuls(std::string_view service) {
  while (!service.empty() && service.back() == '\0') service.remove_suffix(1);
  return service;
}

// exec: runs its command line through sh -c, and adb quotes each argument it adds with
// escape_arg ('install', 'it'\''s'): words split on spaces, quotes and backslashes removed.
std::vector<std::string> ShellWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      in_word = true;
      const std::size_t close = text.find('\'', i + 1);
      const std::size_t end = close == std::string_view::npos ? text.size() : close;
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '\\' && i + 1 < text.size()) {
      in_word = true;
      word.push_back(text[++i]);
    } else {
      in_word = true;
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

// abb's arguments: NUL-separated.
std::vector<std::string> SplitAtNuls(std::string_view text) {
  std::vector<std::string> words;
  while (!text.empty()) {
    const std::size_t at = text.find('\0');
    const std::string_view word = text.substr(0, at);
    words.emplace_back(word);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return words;
}

}  // namespace

std::optional<InstallServiceRequest> ParseInstallService(std::string_view service) {
  service = WithoutTrailingNuls(service);
  InstallServiceRequest request;
  if (service.starts_with("exec:")) {
    request.argv = ShellWords(service.substr(5));
  } else if (service.starts_with("abb_exec:")) {
    request.abb = true;
    request.argv = SplitAtNuls(service.substr(9));
    request.argv.insert(request.argv.begin(), "cmd");  // abb runs the service as cmd would
  } else {
    return std::nullopt;
  }
  const auto& argv = request.argv;
  if (argv.size() < 3 || argv[0] != "cmd" || argv[1] != "package") return std::nullopt;
  const std::string& verb = argv[2];
  if (verb == "install-create" || verb == "install-commit" || verb == "install-abandon") {
    return request;  // no bytes follow: the answer comes at once
  }
  if (verb == "install-write" && argv.back() != "-") return request;  // from a path on the phone
  if (argv.size() < 5 || (verb != "install" && verb != "install-write")) return std::nullopt;
  std::optional<std::uint64_t> size;
  for (std::size_t i = 3; i + 1 < argv.size(); ++i) {
    if (argv[i] != "-S") continue;
    std::uint64_t value = 0;
    const std::string& digits = argv[i + 1];
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    size = value;
  }
  if (!size) return std::nullopt;
  request.size = *size;
  return request;
}

bool IsSyncService(std::string_view service) {
  return WithoutTrailingNuls(service) == "sync:";
}

AdbdService ParseAdbdService(std::string_view service) {
  while (!service.empty() && service.back() == '\0') service.remove_suffix(1);
  if (service == "reconnect") return AdbdService::kReconnect;
  if (service.starts_with("reboot:")) return AdbdService::kReboot;
  return AdbdService::kNone;
}

}  // namespace droidlab::devsim
