#include "daemon/client_options.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "base/parse_int.h"
#include "orchestrator/spec/json_body.h"

namespace droidlab::daemon {

namespace {

// Below any value the daemon accepts, so that "--iterations 0" is judged as the daemon would.
constexpr int64_t kIterationsNotGiven = -1;

// The flags each command takes: those with a value, and the switches.
struct FlagSet {
  std::set<std::string> valued;
  std::set<std::string> switches;
};

const std::set<std::string> kRunFlags = {"--serial",
                                         "--package",
                                         "--activity",
                                         "--mode",
                                         "--iterations",
                                         "--looper-sampling-interval",
                                         "--proc-interval-ms",
                                         "--launch-timeout-ms",
                                         "--on-launch-failure",
                                         "--preflight",
                                         "--warmup",
                                         "--max-thermal",
                                         "--max-battery-temp-c",
                                         "--cooldown",
                                         "--cooldown-timeout-s",
                                         "--compilation",
                                         "--build",
                                         "--baseline-build",
                                         "--block",
                                         "--scenario"};

FlagSet FlagsOf(ClientCommand command) {
  FlagSet flags{{"--server", "--token-file"}, {"--json"}};
  switch (command) {
    case ClientCommand::kRuns:
      flags.valued.insert({"--serial", "--package", "--status", "--limit", "--cursor"});
      break;
    case ClientCommand::kRun:
      flags.valued.insert(kRunFlags.begin(), kRunFlags.end());
      flags.valued.insert({"--baseline", "--junit"});
      flags.switches.insert(
          {"--wait", "--fail-on-regression", "--allow-different-conditions", "--calibration"});
      break;
    case ClientCommand::kSchedulesAdd:
      flags.valued.insert(kRunFlags.begin(), kRunFlags.end());
      flags.valued.insert({"--cron", "--timezone"});
      flags.switches.insert({"--calibration"});
      break;
    case ClientCommand::kDevices:
    case ClientCommand::kWatch:
    case ClientCommand::kSchedulesList:
    case ClientCommand::kSchedulesDelete:
    case ClientCommand::kBuildAdd:
    case ClientCommand::kBuildList:
      break;
  }
  return flags;
}

// One flag's value into the options. An error names the flag.
// --build / --baseline-build: a build the daemon keeps (its id), or an APK file to upload first.
std::optional<std::string> BuildFlag(const std::string& flag, const std::string& value,
                                     std::optional<int64_t>& id, std::optional<std::string>& file) {
  if (value.empty()) return flag + ": expected a build id or an APK file";
  if (value.find_first_not_of("0123456789") == std::string::npos) {
    auto parsed = ParseInt<int64_t>(value);
    if (!parsed || *parsed < 1) return flag + ": expected a build id or an APK file, got '" + value + "'";
    id = *parsed;
  } else {
    file = value;
  }
  return std::nullopt;
}

std::optional<std::string> Apply(const std::string& flag, const std::string& value,
                                 ClientOptions& o) {
  auto integer = [&](int64_t& into) -> std::optional<std::string> {
    auto n = ParseInt<int64_t>(value);
    if (!n) return flag + ": expected a whole number, got '" + value + "'";
    into = *n;
    return std::nullopt;
  };
  auto optional_integer = [&](std::optional<int64_t>& into) -> std::optional<std::string> {
    int64_t n = 0;
    if (auto error = integer(n)) return error;
    into = n;
    return std::nullopt;
  };
  if (flag == "--server") {
    o.server = value;
  } else if (flag == "--token-file") {
    o.token_file = value;
  } else if (flag == "--serial") {
    o.serial = value;
    o.spec.serial = value;
  } else if (flag == "--package") {
    o.package = value;
    o.spec.package = value;
  } else if (flag == "--status") {
    o.status = value;
  } else if (flag == "--cursor") {
    o.cursor = value;
  } else if (flag == "--limit") {
    if (auto error = optional_integer(o.limit)) return error;
    if (*o.limit < 1 || *o.limit > 1000) return "--limit: expected 1 to 1000, got '" + value + "'";
  } else if (flag == "--activity") {
    o.spec.activity = value;
  } else if (flag == "--mode") {
    auto mode = orchestrator::LaunchModeFromName(value);
    if (!mode) return "--mode: expected cold, warm or hot, got '" + value + "'";
    o.spec.mode = *mode;
  } else if (flag == "--iterations") {
    return integer(o.spec.iterations);
  } else if (flag == "--looper-sampling-interval") {
    return optional_integer(o.spec.looper_sampling_interval);
  } else if (flag == "--proc-interval-ms") {
    return optional_integer(o.spec.proc_sample_interval_ms);
  } else if (flag == "--launch-timeout-ms") {
    o.launch_timeout_given = true;
    return integer(o.spec.launch_timeout_ms);
  } else if (flag == "--on-launch-failure") {
    if (value != "continue" && value != "fail") {
      return "--on-launch-failure: expected continue or fail, got '" + value + "'";
    }
    o.on_launch_failure_given = true;
    o.spec.on_launch_failure = value == "fail" ? orchestrator::OnLaunchFailure::kFail
                                               : orchestrator::OnLaunchFailure::kContinue;
  } else if (flag == "--preflight") {
    if (value != "warn" && value != "enforce") {
      return "--preflight: expected warn or enforce, got '" + value + "'";
    }
    o.preflight_given = true;
    o.spec.preflight_enforce = value == "enforce";
  } else if (flag == "--warmup") {
    o.warmup_given = true;
    return integer(o.spec.warmup);
  } else if (flag == "--max-thermal") {
    bool known = false;
    for (int status = 0; status <= 6 && !known; ++status) {
      if (orchestrator::ThermalStatusLowerName(status) == value) {
        o.spec.max_thermal_status = status;
        known = true;
      }
    }
    if (!known) {
      return "--max-thermal: expected none, light, moderate, severe, critical, emergency or "
             "shutdown, got '" +
             value + "'";
    }
    o.max_thermal_given = true;
  } else if (flag == "--max-battery-temp-c") {
    // Degrees Celsius, tenths allowed ("37.5"), kept in tenths as the spec does.
    char* end = nullptr;
    const double c = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !(c >= 0 && c <= 1000)) {
      return "--max-battery-temp-c: expected degrees Celsius, got '" + value + "'";
    }
    o.spec.max_battery_temp_tenths_c = std::llround(c * 10);
    o.max_battery_temp_given = true;
  } else if (flag == "--cooldown") {
    if (value != "wait" && value != "fail") {
      return "--cooldown: expected wait or fail, got '" + value + "'";
    }
    o.cooldown_given = true;
    o.spec.cooldown_fail = value == "fail";
  } else if (flag == "--cooldown-timeout-s") {
    o.cooldown_timeout_given = true;
    return integer(o.spec.cooldown_timeout_s);
  } else if (flag == "--compilation") {
    auto c = orchestrator::CompilationFromName(value);
    if (!c) {
      return "--compilation: expected as-is, speed-profile, speed, verify or none, got '" + value +
             "'";
    }
    o.spec.compilation = *c;
    o.compilation_given = true;
  } else if (flag == "--build") {
    return BuildFlag(flag, value, o.spec.build, o.build_file);
  } else if (flag == "--baseline-build") {
    return BuildFlag(flag, value, o.spec.baseline_build, o.baseline_build_file);
  } else if (flag == "--block") {
    return integer(o.spec.block);
  } else if (flag == "--scenario") {
    if (value.empty()) return std::string("--scenario: expected a file holding the steps' JSON array");
    o.scenario_file = value;
  } else if (flag == "--baseline") {
    if (value != "previous" && value != "history" &&
        (!ParseInt<int64_t>(value) || *ParseInt<int64_t>(value) < 1)) {
      return "--baseline: expected a run id, 'previous' or 'history', got '" + value + "'";
    }
    o.baseline = value;
  } else if (flag == "--junit") {
    if (value.empty()) return std::string("--junit: expected a file name");
    o.junit = value;
  } else if (flag == "--cron") {
    o.cron = value;
  } else if (flag == "--timezone") {
    o.timezone = value;
  }
  return std::nullopt;
}

// A run's flags as the daemon would judge them, so that a typo costs no round trip.
std::optional<std::string> CheckRunSpec(const ClientOptions& o) {
  if (o.spec.serial.empty()) return std::string("--serial is required");
  if (o.spec.package.empty()) return std::string("--package is required");
  if (o.spec.iterations == kIterationsNotGiven) return std::string("--iterations is required");
  // A build given as a file has its id once uploaded: any id stands for it here.
  orchestrator::RunSpec spec = o.spec;
  if (o.build_file) spec.build = 1;
  if (o.baseline_build_file) spec.baseline_build = 1;
  if (spec.calibration && !spec.baseline_build) spec.baseline_build = spec.build;  // as the daemon
  auto error = orchestrator::ValidateRunSpec(spec);
  if (!error) return std::nullopt;
  static const std::map<std::string, std::string> kFlagOfField = {
      {"serial", "--serial"},
      {"package", "--package"},
      {"activity", "--activity"},
      {"mode", "--mode"},
      {"iterations", "--iterations"},
      {"looper_stats.sampling_interval", "--looper-sampling-interval"},
      {"proc_sample_interval_ms", "--proc-interval-ms"},
      {"launch_timeout_ms", "--launch-timeout-ms"},
      {"baseline_build", "--baseline-build"},
      {"block", "--block"},
      {"kind", "--calibration"}};
  auto it = kFlagOfField.find(error->field);
  const std::string name = it != kFlagOfField.end() ? it->second : error->field;
  return name.empty() ? error->message : name + ": " + error->message;
}

BasicResult<int64_t, std::string> IdArgument(const std::vector<std::string>& positional,
                                             const char* what) {
  if (positional.size() != 1) return std::string("expected one ") + what;
  auto id = ParseInt<int64_t>(positional[0]);
  if (!id || *id < 1)
    return std::string(what) + ": expected a positive whole number, got '" + positional[0] + "'";
  return *id;
}

}  // namespace

int RunExitCode(std::string_view status, const std::optional<std::string>& verdict,
                bool fail_on_regression) {
  if (status != "succeeded") return kExitRunNotSucceeded;
  if (fail_on_regression && verdict == "regression") return kExitRegression;
  return kExitOk;
}

BasicResult<ClientOptions, std::string> ParseClientArgs(std::string_view command,
                                                        const std::vector<std::string>& args) {
  ClientOptions o;
  o.spec.iterations = kIterationsNotGiven;
  std::vector<std::string> rest = args;
  if (command == "devices") {
    o.command = ClientCommand::kDevices;
  } else if (command == "runs") {
    o.command = ClientCommand::kRuns;
  } else if (command == "run") {
    o.command = ClientCommand::kRun;
  } else if (command == "watch") {
    o.command = ClientCommand::kWatch;
  } else if (command == "schedules") {
    // `schedules` alone lists; a flag first (`schedules --json`) lists too.
    std::string verb = "list";
    if (!rest.empty() && rest[0].rfind("--", 0) != 0) {
      verb = rest[0];
      rest.erase(rest.begin());
    }
    if (verb == "list") {
      o.command = ClientCommand::kSchedulesList;
    } else if (verb == "add") {
      o.command = ClientCommand::kSchedulesAdd;
    } else if (verb == "delete") {
      o.command = ClientCommand::kSchedulesDelete;
    } else {
      return "schedules: expected list, add or delete, got '" + verb + "'";
    }
  } else if (command == "build") {
    std::string verb = "list";
    if (!rest.empty() && rest[0].rfind("--", 0) != 0) {
      verb = rest[0];
      rest.erase(rest.begin());
    }
    if (verb == "list") {
      o.command = ClientCommand::kBuildList;
    } else if (verb == "add") {
      o.command = ClientCommand::kBuildAdd;
    } else {
      return "build: expected add or list, got '" + verb + "'";
    }
  } else {
    return "unknown command '" + std::string(command) + "'";
  }

  const FlagSet flags = FlagsOf(o.command);
  std::vector<std::string> positional;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string& arg = rest[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      positional.push_back(arg);
      continue;
    }
    std::string flag = arg;
    std::optional<std::string> value;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (flags.switches.count(flag)) {
      if (value) return flag + " takes no value";
      if (flag == "--json") o.json = true;
      if (flag == "--wait") o.wait = true;
      if (flag == "--fail-on-regression") o.fail_on_regression = true;
      if (flag == "--allow-different-conditions") o.allow_different_conditions = true;
      if (flag == "--calibration") o.spec.calibration = true;
      continue;
    }
    if (!flags.valued.count(flag)) {
      return "unknown flag '" + flag + "' for " + std::string(command);
    }
    if (!value) {
      if (i + 1 >= rest.size()) return flag + " needs a value";
      value = rest[++i];
    }
    if (auto error = Apply(flag, *value, o)) return *error;
  }

  switch (o.command) {
    case ClientCommand::kDevices:
    case ClientCommand::kRuns:
    case ClientCommand::kSchedulesList:
    case ClientCommand::kBuildList:
      if (!positional.empty()) return "unexpected argument '" + positional[0] + "'";
      break;
    case ClientCommand::kBuildAdd:
      if (positional.empty()) return std::string("build add: expected one or more APK files");
      o.files = positional;
      break;
    case ClientCommand::kWatch: {
      auto id = IdArgument(positional, "RUN_ID");
      if (!id) return "watch: " + id.error();
      o.id = *id;
      break;
    }
    case ClientCommand::kSchedulesDelete: {
      auto id = IdArgument(positional, "schedule ID");
      if (!id) return "schedules delete: " + id.error();
      o.id = *id;
      break;
    }
    case ClientCommand::kRun:
    case ClientCommand::kSchedulesAdd:
      if (!positional.empty()) return "unexpected argument '" + positional[0] + "'";
      if (auto error = CheckRunSpec(o)) return *error;
      if (o.command == ClientCommand::kSchedulesAdd && (o.build_file || o.baseline_build_file)) {
        return std::string("--build: a schedule names a build by its id (droidlab build add FILE)");
      }
      if (o.command == ClientCommand::kSchedulesAdd && o.cron.empty()) {
        return std::string("--cron is required (five fields: \"0 2 * * *\")");
      }
      if (o.side_by_side() && o.baseline) {
        return std::string(
            "--baseline: a side-by-side run is judged against its --baseline-build");
      }
      if (o.fail_on_regression && !o.baseline && !o.side_by_side()) {
        return std::string("--fail-on-regression needs --baseline ID|previous|history or --baseline-build");
      }
      if (o.allow_different_conditions && o.baseline == "history") {
        return std::string(
            "--allow-different-conditions: a history verdict judges a run only against the runs "
            "at its own conditions (since the last OTA or compilation change)");
      }
      if (o.allow_different_conditions && !o.baseline && !o.side_by_side()) {
        return std::string(
            "--allow-different-conditions needs --baseline ID|previous or --baseline-build");
      }
      // Comparing or reporting needs the run's end.
      if (o.baseline || o.junit || (o.command == ClientCommand::kRun && o.side_by_side())) {
        o.wait = true;
      }
      break;
  }
  return o;
}

std::string RunBodyJson(const ClientOptions& o) {
  const orchestrator::RunSpec& s = o.spec;
  nlohmann::json body = {{"serial", s.serial},
                         {"package", s.package},
                         {"mode", orchestrator::LaunchModeName(s.mode)},
                         {"iterations", s.iterations}};
  if (s.activity) body["activity"] = *s.activity;
  if (s.looper_sampling_interval) {
    body["looper_stats"] = {{"sampling_interval", *s.looper_sampling_interval}};
  }
  if (s.proc_sample_interval_ms) body["proc_sample_interval_ms"] = *s.proc_sample_interval_ms;
  if (o.launch_timeout_given) body["launch_timeout_ms"] = s.launch_timeout_ms;
  if (o.on_launch_failure_given) {
    body["on_launch_failure"] =
        s.on_launch_failure == orchestrator::OnLaunchFailure::kFail ? "fail" : "continue";
  }
  if (o.preflight_given) body["preflight"] = s.preflight_enforce ? "enforce" : "warn";
  if (o.warmup_given) body["warmup"] = s.warmup;
  if (o.max_thermal_given)
    body["max_thermal"] = orchestrator::ThermalStatusLowerName(s.max_thermal_status);
  if (o.max_battery_temp_given) {
    body["max_battery_temp_c"] = static_cast<double>(s.max_battery_temp_tenths_c) / 10;
  }
  if (o.cooldown_given) body["cooldown"] = s.cooldown_fail ? "fail" : "wait";
  if (o.cooldown_timeout_given) body["cooldown_timeout_s"] = s.cooldown_timeout_s;
  if (o.compilation_given) body["compilation"] = orchestrator::CompilationName(s.compilation);
  if (s.build) body["build"] = *s.build;
  if (s.baseline_build) body["baseline_build"] = *s.baseline_build;
  if (s.block != orchestrator::kDefaultBlock) body["block"] = s.block;
  if (s.calibration) body["kind"] = "calibration";
  if (!s.scenario.empty()) body["scenario"] = orchestrator::ScenarioToJson(s.scenario);
  return body.dump();
}

BasicResult<ServerAddress, std::string> ResolveServer(const std::optional<std::string>& flag,
                                                      const std::optional<std::string>& env) {
  std::string text = "http://127.0.0.1:8765";
  std::string source = "--server";
  if (flag) {
    text = *flag;
  } else if (env && !env->empty()) {
    text = *env;
    source = "DROIDLAB_SERVER";
  }
  auto bad = [&](const std::string& why) {
    return source + ": " + why + " (expected http://HOST:PORT), got '" + text + "'";
  };
  std::string_view rest = text;
  if (rest.rfind("https://", 0) == 0) {
    return source + ": https is not supported: the daemon speaks plain HTTP, got '" + text + "'";
  }
  bool scheme = false;
  if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
    scheme = true;
  } else if (rest.find("://") != std::string_view::npos) {
    return bad("unknown scheme");
  }
  ServerAddress address;
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of("?#") != std::string_view::npos) return bad("a query has no place here");
  address.base_path = std::string(path);
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    address.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("junk after ']'");
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    address.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (address.host.empty()) return bad("no host");
  if (address.host.find('@') != std::string::npos) return bad("user info is not supported");
  if (!port_text.empty() || authority.find(':') != std::string_view::npos) {
    auto port = ParseInt<int64_t>(port_text);
    if (!port || *port < 1 || *port > 65535) return bad("bad port");
    address.port = static_cast<uint16_t>(*port);
  } else {
    // HOST alone is a host on droidlab's port; http://HOST is HTTP's own port.
    address.port = scheme ? 80 : 8765;
  }
  const bool v6 = address.host.find(':') != std::string::npos;
  address.url = "http://" + (v6 ? "[" + address.host + "]" : address.host) + ":" +
                std::to_string(address.port) + address.base_path;
  return address;
}

std::optional<std::string> LoadScenarioFile(ClientOptions& o, FileReader read_file) {
  if (!o.scenario_file) return std::nullopt;
  const std::string& path = *o.scenario_file;
  auto text = read_file(path);
  if (!text) return "--scenario " + path + ": " + text.error().message;
  auto value = orchestrator::ParseJsonBody(*text);
  if (!value) return "--scenario " + path + ": " + value.error().message;
  auto steps = orchestrator::ParseScenario(*value);
  if (!steps) {
    return "--scenario " + path + ": " + steps.error().field + ": " + steps.error().message;
  }
  o.spec.scenario = std::move(*steps);
  return std::nullopt;
}

BasicResult<std::optional<std::string>, std::string> ResolveToken(
    const std::optional<std::string>& token_file, const std::optional<std::string>& env,
    FileReader read_file) {
  if (token_file) {
    auto token = ClientTokenFromFile(*token_file, read_file);
    if (!token) return "--token-file: " + token.error().message;
    return std::optional<std::string>(*token);
  }
  if (env && !env->empty()) return std::optional<std::string>(*env);
  return std::optional<std::string>();
}

std::string PercentEncode(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    const bool unreserved = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') ||
                            (b >= '0' && b <= '9') || b == '-' || b == '.' || b == '_' || b == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out;
}

const char* ClientCommandsUsage() {
  return "  droidlab devices [--json]\n"
         "      the devices the daemon has seen, with their adb state\n"
         "  droidlab runs [--serial S] [--package P] [--status STATUS] [--limit N] [--cursor C]"
         " [--json]\n"
         "      recent runs, newest first\n"
         "  droidlab run --serial S --package P [--activity A] --mode cold|warm|hot "
         "--iterations N\n"
         "               [--looper-sampling-interval N] [--proc-interval-ms N] "
         "[--launch-timeout-ms N]\n"
         "               [--on-launch-failure continue|fail] [--preflight warn|enforce]\n"
         "               [--warmup N] [--max-thermal light] [--max-battery-temp-c 38]\n"
         "               [--cooldown wait|fail] [--cooldown-timeout-s 300]\n"
         "               [--compilation as-is|speed-profile|speed|verify|none] [--build ID|FILE]\n"
         "               [--baseline-build ID|FILE [--block N]] [--calibration]\n"
         "               [--scenario FILE]   (the steps after each launch, a JSON array)\n"
         "               [--wait] [--baseline ID|previous|history] [--fail-on-regression] "
         "[--junit FILE] [--json]\n"
         "               [--allow-different-conditions]\n"
         "      queue a run; with --wait follow it and print its summary\n"
         "  droidlab build add FILE... [--json]\n"
         "      upload APKs to the daemon's builds (read, hashed, kept once); prints each id.\n"
         "      APKs of one package and versionCode given together are one build (a base APK\n"
         "      and its splits), with APP.dm beside APP.apk (its baseline profile)\n"
         "  droidlab build [list] [--json]\n"
         "      the builds the daemon keeps, newest first\n"
         "  droidlab watch RUN_ID [--json]\n"
         "      follow a run until it ends, printing its progress and summary\n"
         "  droidlab schedules [list] [--json]\n"
         "  droidlab schedules add --cron \"0 2 * * *\" [--timezone ZONE] <run options>\n"
         "  droidlab schedules delete ID\n"
         "      runs the daemon queues on a cron schedule\n"
         "    every client command: [--server URL] (else $DROIDLAB_SERVER, else "
         "http://127.0.0.1:8765)\n"
         "      [--token-file FILE] (else $DROIDLAB_TOKEN); exit 0 ok, 1 run not succeeded, 2 "
         "usage,\n"
         "      3 regression (--fail-on-regression), 4 daemon unreachable, 5 daemon answered an "
         "error\n";
}

}  // namespace droidlab::daemon
