#include "adb/server_address.h"

#include <cstdlib>

#include "base/parse_int.h"

namespace droidlab::adb {
namespace {

std::optional<uint16_t> ParsePort(std::string_view text) {
  const std::optional<uint16_t> value = ParseInt<uint16_t>(text);
  if (!value || *value == 0) return std::nullopt;
  return value;
}

AdbError Bad(std::string_view text, std::string_view why) {
  return MakeError(AdbErrc::kInvalidArgument,
                   "adb server address '" + std::string(text) + "': " + std::string(why));
}

bool Present(std::optional<std::string_view> value) { return value && !value->empty(); }

}  // namespace

bool ServerAddress::IsLocal() const {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

std::string ServerAddress::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<ServerAddress> ParseServerAddress(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("tcp:")) rest.remove_prefix(4);
  if (rest.empty()) return Bad(text, "empty");
  ServerAddress address;
  std::string_view port_text = rest;
  if (rest.front() == '[') {  // [v6]:port
    const size_t close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return Bad(text, "expected [HOST]:PORT");
    }
    address.host = std::string(rest.substr(1, close - 1));
    port_text = rest.substr(close + 2);
  } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    if (rest.find(':') != colon) return Bad(text, "an IPv6 host must be in brackets");
    address.host = std::string(rest.substr(0, colon));
    port_text = rest.substr(colon + 1);
  }
  if (address.host.empty()) return Bad(text, "empty host");
  for (char c : address.host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == ':' || c == '_';
    if (!ok) return Bad(text, "bad byte in host");
  }
  auto port = ParsePort(port_text);
  if (!port) return Bad(text, "port is not 1..65535");
  address.port = *port;
  return address;
}

Result<ServerAddress> ResolveServerAddress(std::optional<std::string_view> option,
                                           std::optional<std::string_view> adb_server_socket,
                                           std::optional<std::string_view> android_adb_server_port) {
  if (Present(option)) return ParseServerAddress(*option);
  if (Present(adb_server_socket)) {
    // adb accepts only the tcp: form here (and "localfilesystem:"/"vsock:", which we cannot use).
    if (!adb_server_socket->starts_with("tcp:")) {
      return Bad(*adb_server_socket, "ADB_SERVER_SOCKET must be tcp:HOST:PORT or tcp:PORT");
    }
    return ParseServerAddress(*adb_server_socket);
  }
  if (Present(android_adb_server_port)) {
    auto port = ParsePort(*android_adb_server_port);
    if (!port) return Bad(*android_adb_server_port, "ANDROID_ADB_SERVER_PORT is not 1..65535");
    ServerAddress address;
    address.port = *port;
    return address;
  }
  return ServerAddress{};
}

Result<ServerAddress> ServerAddressFromEnvironment(std::optional<std::string_view> option) {
  auto env = [](const char* name) -> std::optional<std::string_view> {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start-up
    if (value == nullptr) return std::nullopt;
    return std::string_view(value);
  };
  return ResolveServerAddress(option, env("ADB_SERVER_SOCKET"), env("ANDROID_ADB_SERVER_PORT"));
}

}  // namespace droidlab::adb
