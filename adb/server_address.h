// Where the adb server listens, chosen as adb's own client chooses it (packages/modules/adb
// client/main.cpp and adb_client.cpp): an explicit option (`--adb-server`), else
// ADB_SERVER_SOCKET=tcp:HOST:PORT, else ANDROID_ADB_SERVER_PORT=PORT on localhost, else
// 127.0.0.1:5037.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "adb/error.h"

namespace droidlab::adb {

inline constexpr uint16_t kDefaultAdbServerPort = 5037;

struct ServerAddress {
  std::string host = "127.0.0.1";  // an IP literal or a name ("localhost", "labhost.example")
  uint16_t port = kDefaultAdbServerPort;

  // True for a loopback literal or "localhost": only then may droidlab start a server there.
  bool IsLocal() const;
  // "127.0.0.1:5037", "[::1]:5037".
  std::string ToString() const;
  friend bool operator==(const ServerAddress&, const ServerAddress&) = default;
};

// Parses "tcp:HOST:PORT", "tcp:PORT" (localhost), "HOST:PORT", "[::1]:PORT" or a bare "PORT".
// Errors: kInvalidArgument, naming the text ("adb server address 'tcp:x:99999': port is not
// 1..65535").
Result<ServerAddress> ParseServerAddress(std::string_view text);

// The address from the option and the environment values (pass what getenv returned, nullopt
// when unset). The first one present wins; an empty value counts as unset, as in adb. A value
// that is present but malformed is an error rather than a silent fall-through, so a typo in
// ADB_SERVER_SOCKET does not quietly talk to another server.
Result<ServerAddress> ResolveServerAddress(std::optional<std::string_view> option,
                                           std::optional<std::string_view> adb_server_socket,
                                           std::optional<std::string_view> android_adb_server_port);

// ResolveServerAddress(option, getenv("ADB_SERVER_SOCKET"), getenv("ANDROID_ADB_SERVER_PORT")).
Result<ServerAddress> ServerAddressFromEnvironment(std::optional<std::string_view> option);

}  // namespace droidlab::adb
