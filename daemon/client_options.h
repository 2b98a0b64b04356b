// The command lines of the client commands — `droidlab devices | runs | run … | watch RUN_ID |
// schedules …` — parsed into values with no I/O, the daemon's address and token resolved from
// flags and the environment, and the exit codes the commands end with. Usage errors are one line
// naming the flag ("--iterations: expected a whole number, got 'ten'").
//
//   droidlab run --serial R58M123ABC --package com.example.app --mode cold --iterations 20
//       --wait --baseline previous --fail-on-regression --junit launch.xml
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "daemon/serve_config.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::daemon {

// What a client command ends with; documented in daemon/README.md and `droidlab --help`.
enum ClientExit : int {
  kExitOk = 0,
  kExitRunNotSucceeded = 1,  // the run failed, was cancelled or was interrupted
  kExitUsage = 2,            // bad flags or arguments (nothing was sent)
  kExitRegression = 3,       // --fail-on-regression and the comparison says "regression"
  kExitUnreachable = 4,      // no daemon answered (refused, timed out, not HTTP)
  kExitApiError = 5,         // the daemon answered 4xx/5xx (its message is printed)
};

// The exit code of a run that ended with `status` ("succeeded", "failed", …) and, when it was
// compared, the comparison's `verdict` ("regression", "no_significant_change", …).
int RunExitCode(std::string_view status, const std::optional<std::string>& verdict,
                bool fail_on_regression);

enum class ClientCommand {
  kDevices,
  kRuns,
  kRun,
  kWatch,
  kSchedulesList,
  kSchedulesAdd,
  kSchedulesDelete,
  kBuildAdd,
  kBuildList
};

struct ClientOptions {
  ClientCommand command = ClientCommand::kDevices;
  // Every command.
  std::optional<std::string> server;      // --server URL
  std::optional<std::string> token_file;  // --token-file FILE
  bool json = false;                      // --json: the API's JSON instead of tables
  // runs
  std::optional<std::string> serial, package, status, cursor;
  std::optional<int64_t> limit;
  // run, schedules add (checked with the daemon's own ValidateRunSpec)
  orchestrator::RunSpec spec;
  // Which extensions the user gave, so that the body carries only those (the daemon's defaults
  // stay the daemon's).
  bool launch_timeout_given = false, on_launch_failure_given = false, preflight_given = false;
  bool warmup_given = false, max_thermal_given = false, max_battery_temp_given = false,
       cooldown_given = false, cooldown_timeout_given = false, compilation_given = false;
  bool wait = false;                    // --wait (implied by the three below)
  std::optional<std::string> baseline;  // --baseline ID|previous
  bool fail_on_regression = false;
  bool allow_different_conditions = false;  // --allow-different-conditions: judge across them
  std::optional<std::string> junit;  // --junit FILE
  // watch, schedules delete
  int64_t id = 0;
  // build add FILE…
  std::vector<std::string> files;
  // run --build FILE: uploaded first, then named by the run (--build ID sets spec.build)
  std::optional<std::string> build_file;
  // run --baseline-build FILE: the same for a side-by-side run's baseline
  std::optional<std::string> baseline_build_file;
  std::optional<std::string> scenario_file;  // --scenario FILE: read by LoadScenarioFile
  // --baseline-build given (an id or a file): the run measures two builds side by side.
  bool side_by_side() const { return spec.baseline_build || baseline_build_file; }
  // schedules add
  std::string cron;
  std::optional<std::string> timezone;
};

// `command` is argv[1] ("devices", "runs", "run", "watch", "schedules", "build"); `args` what
// follows.
// Flags take their value as the next argument or after '=' (--limit=5).
BasicResult<ClientOptions, std::string> ParseClientArgs(std::string_view command,
                                                        const std::vector<std::string>& args);

// The body of POST /api/v1/runs (and a schedule's "run") for the parsed options: the fields the
// user gave, nothing more.
std::string RunBodyJson(const ClientOptions& options);

struct ServerAddress {
  std::string host;  // a name or an address; IPv6 without brackets
  uint16_t port = 8765;
  std::string base_path;  // "" or "/prefix" (a daemon behind a reverse proxy), no trailing '/'
  std::string url;        // as people read it: http://host:port/prefix
};

// --server, else DROIDLAB_SERVER (nullopt or empty: unset), else http://127.0.0.1:8765.
// Accepts http://HOST[:PORT][/PREFIX] and HOST:PORT; https is refused (the daemon speaks plain
// HTTP; a TLS proxy in front of it needs a client that speaks TLS).
BasicResult<ServerAddress, std::string> ResolveServer(const std::optional<std::string>& flag,
                                                      const std::optional<std::string>& env);

// --token-file (read as `serve` reads its own: the token alone, a trailing newline is not part
// of it) wins over DROIDLAB_TOKEN (nullopt or empty: unset); nullopt when neither is given.
// --scenario FILE: the file's JSON array of steps (orchestrator/spec/scenario.h) read and
// checked into o.spec.scenario; the error names the file and the step.
std::optional<std::string> LoadScenarioFile(ClientOptions& o, FileReader read_file);

BasicResult<std::optional<std::string>, std::string> ResolveToken(
    const std::optional<std::string>& token_file, const std::optional<std::string>& env,
    FileReader read_file);

// "com.example.app" → "com.example.app"; "a b/c" → "a%20b%2Fc": for query values and path
// segments.
std::string PercentEncode(std::string_view text);

const char* ClientCommandsUsage();

}  // namespace droidlab::daemon
