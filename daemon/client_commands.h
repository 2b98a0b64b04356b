// The client commands: `droidlab devices | runs | run … | watch RUN_ID | schedules …`, each a
// few calls to a running daemon's REST API (client_http.h) printed as tables, or as the API's own
// JSON with --json. Exit codes: ClientExit (client_options.h).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::daemon {

// What the commands read from the environment, passed in so that tests choose it.
struct ClientEnvironment {
  std::optional<std::string> server;  // DROIDLAB_SERVER
  std::optional<std::string> token;   // DROIDLAB_TOKEN
  bool stderr_is_terminal = false;    // progress as a bar rather than lines
  int terminal_columns = 80;          // the bar's room
};

ClientEnvironment ClientEnvironmentFromProcess();

bool IsClientCommand(std::string_view command);

// `command` is argv[1], `args` what follows it. Results on `out`; progress, warnings and the
// one-line errors on `err`. --help (or -h) anywhere prints the client commands' usage, exit 0.
int RunClientCommand(std::string_view command, const std::vector<std::string>& args,
                     const ClientEnvironment& env, std::FILE* out, std::FILE* err);

}  // namespace droidlab::daemon
