#include "tools/devsim/android/simulated_android.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;
using Argv = std::vector<std::string>;

constexpr int kTicksPerSecond = 100;  // USER_HZ on every Android kernel

// What adbd of that release advertises in its banner. Never delayed_ack: with it the host
// expects a different flow-control scheme (see the measured facts).
std::string FeaturesForSdk(int sdk) {
  std::string features = "shell_v2,cmd,stat_v2";
  if (sdk >= 29) {
    features +=
        ",ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec,"
        "remount_shell";
  }
  if (sdk >= 30) features += ",track_app";
  if (sdk >= 31) {
    features +=
        ",sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd,"
        "sendrecv_v2_dry_run_send";
  }
  if (sdk >= 33) features += ",openscreen_mdns";
  return features;
}

std::optional<long> ParseLong(std::string_view text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// AndroidRuntime's SetThreadName: a long dotted name keeps its last 15 characters.
std::string CommForProcessName(const std::string& name) {
  const bool dotted = name.find('.') != std::string::npos;
  const bool has_at = name.find('@') != std::string::npos;
  if (name.size() < 15 || has_at || !dotted) return name.substr(0, 15);
  return name.substr(name.size() - 15);
}

CommandOutput Error(std::string text, int exit_code) {
  CommandOutput output;
  output.Err(text);
  output.exit_code = exit_code;
  return output;
}

}  // namespace

SimulatedAndroid::SimulatedAndroid(Scenario scenario, Options options, WallClock clock)
    : scenario_(std::move(scenario)),
      options_(options),
      clock_(std::move(clock)),
      created_(clock_()),
      rng_(scenario_.seed) {
  const DeviceSpec& d = scenario_.device;
  properties_ = {
      {"ro.product.model", d.model},
      {"ro.product.manufacturer", d.manufacturer},
      {"ro.product.brand", d.manufacturer},
      {"ro.product.name", d.product},
      {"ro.product.device", d.device},
      {"ro.product.cpu.abi", d.abi},
      {"ro.build.version.sdk", std::to_string(d.sdk)},
      {"ro.build.version.release", d.release},
      {"ro.build.fingerprint", d.fingerprint},
      {"ro.build.type", "user"},
      {"ro.build.tags", "release-keys"},
      {"ro.debuggable", "0"},
      {"ro.serialno", d.serial},
      {"ro.boot.serialno", d.serial},
      {"sys.boot_completed", "1"},
      {"dev.bootcomplete", "1"},
      {"persist.sys.timezone", "UTC"},
      {"ro.hardware", d.device},
  };
  if (d.sdk >= 31) properties_["ro.build.version.release_or_codename"] = d.release;
  settings_["global"] = {
      {"adb_enabled", "1"}, {"stay_on_while_plugged_in", "0"}, {"device_provisioned", "1"}};
  settings_["system"] = {{"screen_off_timeout", "60000"}};
  settings_["secure"] = {{"android_id", "6f1c0e2d4a3b5c7e"}};

  processes_[1] = Process{1, "init", 0, 0, 0};
  zygote_pid_ = 712;
  // The zygote's comm is "main": app_process renames its main thread.
  processes_[zygote_pid_] = Process{zygote_pid_, "main", 0, 1, 310};
  system_server_pid_ = 1501;
  processes_[system_server_pid_] =
      Process{system_server_pid_, "system_server", 1000, zygote_pid_, 690};

  for (const auto& spec : scenario_.packages) {
    App app;
    app.spec = spec;
    if (d.sdk >= 30) {
      app.apk_path = "/data/app/~~" + RandomApkToken() + "/" + spec.name + "-" + RandomApkToken() +
                     "/base.apk";
    } else {
      app.apk_path = "/data/app/" + spec.name + "-" + RandomApkToken() + "/base.apk";
    }
    apps_[spec.name] = std::move(app);
  }

  const auto boot = created_ - milliseconds(static_cast<long>(scenario_.device.uptime_s * 1000));
  Log(boot + milliseconds(9120), system_server_pid_, system_server_pid_, 'I', "SystemServer",
      "Entered the Android system server!", LogBufferId::kSystem);
  Log(boot + milliseconds(14870), system_server_pid_, system_server_pid_ + 29, 'I',
      "ActivityManager", "System now ready", LogBufferId::kSystem);
  Log(boot + milliseconds(15002), 640, 640, 'I', "init", "processing action (sys.boot_completed=1)",
      LogBufferId::kMain);
}

std::string SimulatedAndroid::ConnectBanner() const {
  const DeviceSpec& d = scenario_.device;
  return "device::ro.product.name=" + d.product + ";ro.product.model=" + d.model +
         ";ro.product.device=" + d.device + ";features=" + FeaturesForSdk(d.sdk);
}

double SimulatedAndroid::UptimeSeconds() const {
  const auto elapsed = std::chrono::duration<double>(clock_() - created_).count();
  return scenario_.device.uptime_s + elapsed;
}

std::string SimulatedAndroid::RandomApkToken() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string token;
  for (int i = 0; i < 22; ++i) token.push_back(kAlphabet[rng_() % 64]);
  return token + "==";
}

long SimulatedAndroid::SampleMillis(const LaunchTimeDistribution& distribution) {
  std::normal_distribution<double> normal(distribution.mean_ms, distribution.stddev_ms);
  return std::max(1L,
                  std::lround(distribution.stddev_ms > 0 ? normal(rng_) : distribution.mean_ms));
}

void SimulatedAndroid::Log(std::chrono::system_clock::time_point time, int pid, int tid,
                           char priority, std::string tag, std::string message,
                           LogBufferId buffer) {
  logcat_.Add(LogEntry{time, pid, tid, priority, std::move(tag), std::move(message), buffer});
}

CommandOutput SimulatedAndroid::Run(const Argv& argv) {
  std::string name = argv.at(0);
  for (const char* prefix : {"/system/bin/", "/system/xbin/"}) {
    if (name.starts_with(prefix)) name = name.substr(std::string_view(prefix).size());
  }
  if (name == "getprop") return Getprop(argv);
  if (name == "settings") return Settings(argv);
  if (name == "pidof") return Pidof(argv);
  if (name == "cat") return Cat(argv);
  if (name == "am") return Am(argv);
  if (name == "pm") return Pm(argv);
  if (name == "logcat") return Logcat(argv);
  if (name == "input") return Input(argv);
  if (name == "cmd" && argv.size() >= 2) {
    // `cmd activity …` is what `am` runs; likewise package and settings.
    Argv rest(argv.begin() + 1, argv.end());
    if (rest[0] == "activity") return Am(rest);
    if (rest[0] == "package") return Pm(rest);
    if (rest[0] == "settings") return Settings(rest);
    return Error("cmd: Can't find service: " + rest[0] + "\n", 20);
  }
  return Error("/system/bin/sh: " + argv[0] + ": inaccessible or not found\n", 127);
}

CommandOutput SimulatedAndroid::Getprop(const Argv& argv) {
  CommandOutput output;
  if (argv.size() == 1) {
    // toolbox getprop: every property, sorted by name.
    for (const auto& [key, value] : properties_) output.Out("[" + key + "]: [" + value + "]\n");
    return output;
  }
  const auto it = properties_.find(argv[1]);
  if (it != properties_.end()) {
    output.Out(it->second + "\n");
  } else {
    output.Out((argv.size() > 2 ? argv[2] : std::string()) + "\n");
  }
  return output;
}

CommandOutput SimulatedAndroid::Settings(const Argv& argv) {
  // settings [--user N] get|put|delete|list NAMESPACE [KEY [VALUE]]
  Argv args(argv.begin() + 1, argv.end());
  if (args.size() >= 2 && args[0] == "--user") args.erase(args.begin(), args.begin() + 2);
  if (args.size() < 2) return Error("Invalid command: settings needs a verb and a namespace\n", 1);
  const std::string& verb = args[0];
  const std::string& ns = args[1];
  if (ns != "global" && ns != "system" && ns != "secure") {
    return Error("Invalid namespace '" + ns + "'\n", 1);
  }
  auto& table = settings_[ns];
  CommandOutput output;
  if (verb == "get" && args.size() >= 3) {
    const auto it = table.find(args[2]);
    output.Out((it == table.end() ? std::string("null") : it->second) + "\n");
  } else if (verb == "put" && args.size() >= 4) {
    table[args[2]] = args[3];
  } else if (verb == "delete" && args.size() >= 3) {
    output.Out(table.erase(args[2]) ? "Deleted 1 rows\n" : "Deleted 0 rows\n");
  } else if (verb == "list") {
    for (const auto& [key, value] : table) output.Out(key + "=" + value + "\n");
  } else {
    return Error("Invalid command: " + verb + "\n", 1);
  }
  return output;
}

CommandOutput SimulatedAndroid::Pidof(const Argv& argv) {
  std::string pids;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    for (const auto& [pid, process] : processes_) {
      if (process.name == argv[i]) pids += (pids.empty() ? "" : " ") + std::to_string(pid);
    }
  }
  CommandOutput output;
  if (pids.empty()) {
    output.exit_code = 1;
  } else {
    output.Out(pids + "\n");
  }
  return output;
}

std::string SimulatedAndroid::ProcStat(const Process& process) const {
  const long now_ticks = std::lround(UptimeSeconds() * kTicksPerSecond);
  const long alive = std::max(0L, now_ticks - process.start_ticks);
  // CPU time grows with the time alive: an app uses ~4% of a core in user space, 1% in kernel.
  const long utime = 150 + alive / 25;
  const long stime = 40 + alive / 100;
  const long rss_pages = 38000 + (alive / kTicksPerSecond) % 4000;
  const std::string comm = CommForProcessName(process.name);
  char line[512];
  std::snprintf(line, sizeof line,
                "%d (%s) S %d %d 0 0 -1 1077952832 %ld 0 %ld 0 %ld %ld 0 0 10 -10 %d 0 %ld "
                "%ld %ld 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 %d 0 0 0 0 0 "
                "0 0 0 0 0 0 0 0\n",
                process.pid, comm.c_str(), process.ppid, process.pid, 20000 + alive * 3,
                120 + alive / 500, utime, stime, process.pid == 1 ? 1 : 31, process.start_ticks,
                15032385536L + alive * 4096, rss_pages, process.pid % 8);
  return line;
}

CommandOutput SimulatedAndroid::Cat(const Argv& argv) {
  CommandOutput output;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& path = argv[i];
    if (path == "/proc/uptime") {
      const double uptime = UptimeSeconds();
      char line[64];
      // The second field is idle time summed over all CPUs, so it runs ahead of the first.
      std::snprintf(line, sizeof line, "%.2f %.2f\n", uptime, uptime * 6.3);
      output.Out(line);
      continue;
    }
    if (path.starts_with("/proc/") && path.ends_with("/stat")) {
      const std::string middle = path.substr(6, path.size() - 11);
      const auto pid = ParseLong(middle);
      if (pid) {
        const auto it = processes_.find(static_cast<int>(*pid));
        if (it != processes_.end()) {
          output.Out(ProcStat(it->second));
          continue;
        }
      }
    }
    output.Err("cat: " + path + ": No such file or directory\n");
    output.exit_code = 1;
  }
  return output;
}

SimulatedAndroid::App* SimulatedAndroid::FindApp(const std::string& package) {
  const auto it = apps_.find(package);
  return it == apps_.end() ? nullptr : &it->second;
}

int SimulatedAndroid::StartProcess(const std::string& name, int uid, int ppid, long start_ticks) {
  const int pid = next_pid_;
  next_pid_ += 1 + static_cast<int>(rng_() % 40);  // other processes fork in between
  processes_[pid] = Process{pid, name, uid, ppid, start_ticks};
  return pid;
}

void SimulatedAndroid::ForceStop(App& app) {
  if (app.pid != 0) processes_.erase(app.pid);
  app.pid = 0;
  app.activity = ActivityState::kNone;
}

CommandOutput SimulatedAndroid::Am(const Argv& argv) {
  if (argv.size() < 2) return Error("Activity manager (activity) commands: …\n", 255);
  const std::string& verb = argv[1];
  if (verb == "start" || verb == "start-activity") return AmStart(argv);
  if (verb == "force-stop") {
    if (argv.size() < 3) return Error("Error: no package specified\n", 255);
    if (App* app = FindApp(argv.back())) {
      if (app->pid != 0) {
        Log(clock_(), system_server_pid_, system_server_pid_ + 12, 'I', "ActivityManager",
            "Force stopping " + app->spec.name +
                " appid=" + std::to_string(app->spec.uid % 100000) + " user=0: from pid " +
                std::to_string(next_pid_ - 1),
            LogBufferId::kSystem);
      }
      ForceStop(*app);
    }
    return {};
  }
  return Error("Unknown command: " + verb + "\n", 255);
}

CommandOutput SimulatedAndroid::AmStart(const Argv& argv) {
  bool wait = false;
  bool stop_first = false;
  std::string component_text;
  for (std::size_t i = 2; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-W") {
      wait = true;
    } else if (arg == "-S") {
      stop_first = true;
    } else if (arg == "-n" && i + 1 < argv.size()) {
      component_text = argv[++i];
    } else if ((arg == "--user" || arg == "-a" || arg == "-c" || arg == "-d" || arg == "-f" ||
                arg == "--display") &&
               i + 1 < argv.size()) {
      ++i;  // accepted, not simulated
    }
  }
  Component component;
  if (!ParseComponent(component_text, component)) {
    return Error("Error: Activity not started, unable to resolve Intent\n", 255);
  }
  CommandOutput output;
  output.Out("Starting: Intent { cmp=" + component.FlattenToShortString() + " }\n");
  App* app = FindApp(component.package);
  Component declared;
  if (app != nullptr) ParseComponent(app->spec.name + "/" + app->spec.activity, declared);
  if (app == nullptr || declared.class_name != component.class_name) {
    output.Out("Error type 3\n");
    output.Err("Error: Activity class " + component.ToShortString() + " does not exist.\n");
    return output;
  }
  if (stop_first) ForceStop(*app);

  const int sdk = scenario_.device.sdk;
  const auto t0 = clock_();
  const int binder_tid = system_server_pid_ + 40 + static_cast<int>(rng_() % 60);
  const char* tag = ActivityStartTag(sdk);
  Log(t0 + milliseconds(1), system_server_pid_, binder_tid, 'I', tag,
      StartLogMessage(sdk, component), LogBufferId::kSystem);

  AmStartResult result;
  if (app->pid == 0) {
    result.state = LaunchState::kCold;
    result.total_ms = SampleMillis(app->spec.cold);
    const auto fork_time = t0 + milliseconds(12 + static_cast<long>(rng_() % 10));
    const long fork_ticks =
        std::lround((UptimeSeconds() + std::chrono::duration<double>(fork_time - t0).count()) *
                    kTicksPerSecond);
    app->pid = StartProcess(app->spec.name, app->spec.uid, zygote_pid_, fork_ticks);
    Log(fork_time, system_server_pid_, system_server_pid_ + 27, 'I', "ActivityManager",
        StartProcLogMessage(sdk, app->pid, app->spec.name, app->spec.uid, component),
        LogBufferId::kSystem);
  } else if (app->activity == ActivityState::kForeground) {
    result.state = LaunchState::kUnknown;
    result.delivered_to_top = true;
  } else if (app->activity == ActivityState::kBackground) {
    result.state = LaunchState::kHot;
    result.brought_to_front = true;
    result.total_ms = SampleMillis(app->spec.hot);
  } else {
    result.state = LaunchState::kWarm;
    result.total_ms = SampleMillis(app->spec.warm);
  }
  result.wait_ms = result.total_ms + 3 + static_cast<long>(rng_() % 12);
  if (!result.delivered_to_top) {
    // ActivityMetricsLogger counts from the intent's arrival, which the START line marks.
    Log(t0 + milliseconds(1 + result.total_ms), system_server_pid_, system_server_pid_ + 31, 'I',
        tag, DisplayedLogMessage(sdk, component, result.total_ms), LogBufferId::kSystem);
  }
  for (auto& [name, other] : apps_) {
    if (other.activity == ActivityState::kForeground) other.activity = ActivityState::kBackground;
  }
  app->activity = ActivityState::kForeground;

  if (!wait) {
    if (result.brought_to_front) {
      output.Out("Warning: Activity not started, its current task has been brought to the front\n");
    }
    return output;
  }
  if (options_.realtime_launches) output.Wait(milliseconds(result.wait_ms));
  output.Out(AmStartWaitOutput(sdk, component, result));
  return output;
}

CommandOutput SimulatedAndroid::Pm(const Argv& argv) {
  if (argv.size() >= 3 && argv[1] == "path") {
    const App* app = FindApp(argv[2]);
    if (app == nullptr) {
      CommandOutput output;
      output.exit_code = 1;
      return output;
    }
    CommandOutput output;
    output.Out("package:" + app->apk_path + "\n");
    return output;
  }
  if (argv.size() >= 3 && argv[1] == "list" && argv[2] == "packages") {
    CommandOutput output;
    for (const auto& [name, app] : apps_) output.Out("package:" + name + "\n");
    return output;
  }
  return Error("Unknown command: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n", 255);
}

CommandOutput SimulatedAndroid::Input(const Argv& argv) {
  if (argv.size() >= 3 && argv[1] == "keyevent") {
    const std::string& key = argv[2];
    for (auto& [name, app] : apps_) {
      if (app.activity != ActivityState::kForeground) continue;
      if (key == "3" || key == "KEYCODE_HOME") app.activity = ActivityState::kBackground;
      if (key == "4" || key == "KEYCODE_BACK") app.activity = ActivityState::kDestroyed;
    }
    return {};
  }
  return Error("Error: Unknown command: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n", 1);
}

CommandOutput SimulatedAndroid::Logcat(const Argv& argv) {
  bool dump = false;
  std::size_t tail = 0;
  bool follow_tail = false;
  LogFilter filter;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (arg.size() > 2) return arg.substr(2);  // -vthreadtime
      if (i + 1 < argv.size()) return argv[++i];
      return std::nullopt;
    };
    if (arg == "-d") {
      dump = true;
    } else if (arg == "-c") {
      logcat_.Clear();
      return {};
    } else if (arg == "-s") {
      filter.tag_min["*"] = 'S';
    } else if (arg.starts_with("-v") || arg.starts_with("-b")) {
      const auto v = value();
      if (!v)
        return Error("logcat: option requires an argument -- '" + arg.substr(1, 1) + "'\n", 1);
      if (arg.starts_with("-v") && *v != "threadtime" && *v != "brief" /* not simulated */) {
        return Error("devsim: logcat -v " + *v + " is not simulated yet\n", 1);
      }
    } else if (arg.starts_with("-t") || arg.starts_with("-T")) {
      const auto v = value();
      const auto count = v ? ParseLong(*v) : std::nullopt;
      if (!count || *count <= 0) return Error("logcat: -t/-T takes a line count here\n", 1);
      tail = static_cast<std::size_t>(*count);
      follow_tail = arg.starts_with("-T");
      dump = dump || !follow_tail;
    } else if (!arg.starts_with("-")) {
      const std::size_t colon = arg.rfind(':');
      if (colon == std::string::npos || colon + 2 != arg.size()) {
        return Error("Invalid filter expression '" + arg + "'\n", 1);
      }
      filter.tag_min[arg.substr(0, colon)] = arg[colon + 1];
    } else {
      return Error("logcat: unknown option " + arg + "\n", 1);
    }
  }
  CommandOutput output;
  output.Out(logcat_.Dump(filter, tail));
  if (!dump) {
    output.follow_logcat = true;
    output.follow_filter = filter.tag_min;
  }
  return output;
}

}  // namespace droidlab::devsim
