#include "tools/devsim/android/simulated_android.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <string_view>
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
      rng_(scenario_.seed),
      battery_(BatteryStateFromSpec(scenario_.battery)),
      screen_on_(scenario_.screen.on),
      keyguard_showing_(scenario_.screen.locked),
      looper_(scenario_.device.sdk, scenario_.looper_entries_cap, created_),
      last_advance_(created_) {
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

  processes_[1] = Process{1, "init", "", 0, 0, 0};
  zygote_pid_ = 712;
  // The zygote's comm is "main": app_process renames its main thread.
  processes_[zygote_pid_] = Process{zygote_pid_, "main", "zygote64", 0, 1, 310};
  system_server_pid_ = 1501;
  processes_[system_server_pid_] =
      Process{system_server_pid_, "system_server", "", 1000, zygote_pid_, 690};

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
  Advance(clock_());
  CommandOutput output = RunUnfaulted(argv);
  ApplyFaults(argv, output);
  return output;
}

CommandOutput SimulatedAndroid::RunUnfaulted(const Argv& argv) {
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
  if (name == "wm") return Wm(argv);
  if (name == "dumpsys") return Dumpsys(argv);
  if (name == "cmd") return Cmd(argv);
  if (name == "ps") return Ps(argv);
  if (name == "date") return Date(argv);
  if (name == "getconf") return Getconf(argv);
  if (name == "devsim-fault") return Fault(argv);
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
    SettingChanged(ns, args[2]);
  } else if (verb == "delete" && args.size() >= 3) {
    output.Out(table.erase(args[2]) ? "Deleted 1 rows\n" : "Deleted 0 rows\n");
    SettingChanged(ns, args[2]);
  } else if (verb == "list") {
    for (const auto& [key, value] : table) output.Out(key + "=" + value + "\n");
  } else {
    return Error("Invalid command: " + verb + "\n", 1);
  }
  return output;
}

// toybox date: "+FORMAT" with the strftime conversions a host script needs (%s, %N, %Y-%m-%d
// %H:%M:%S, %%); without one, date(1)'s default "Sat Mar 14 00:00:00 UTC 2026". The device's
// realtime clock is the clock its log lines are dated by, so `cat /proc/uptime; date +%s.%N`
// gives the offset between the log clock and the boot clock, as on a phone.
CommandOutput SimulatedAndroid::Date(const Argv& argv) {
  using namespace std::chrono;
  const auto now = clock_();
  const auto since_epoch = duration_cast<nanoseconds>(now.time_since_epoch());
  const long long secs = duration_cast<seconds>(since_epoch).count();
  const long long nanos = since_epoch.count() - secs * 1'000'000'000LL;
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::string format = "%a %b %e %H:%M:%S %Z %Y";
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].starts_with("+")) {
      format = argv[i].substr(1);
    } else if (argv[i] != "-u") {
      return Error("date: bad date '" + argv[i] + "'\n", 1);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out.push_back(format[i]);
      continue;
    }
    const char c = format[++i];
    char piece[64];
    if (c == 's') {
      std::snprintf(piece, sizeof piece, "%lld", secs);
      out += piece;
    } else if (c == 'N') {
      std::snprintf(piece, sizeof piece, "%09lld", nanos);
      out += piece;
    } else if (c == '%') {
      out.push_back('%');
    } else if (c == 'Z') {
      out += "UTC";  // -u: toybox prints the zone's name, not glibc's "GMT"
    } else if (std::string_view("YmdeHMSab").find(c) != std::string_view::npos) {
      // put_time in the classic locale: English day and month names, as toybox prints.
      const char spec[] = {'%', c, '\0'};
      std::ostringstream field;
      field << std::put_time(&tm, spec);
      out += field.str();
    } else {
      return Error(std::string("date: bad format '%") + c + "'\n", 1);
    }
  }
  CommandOutput output;
  output.Out(out + "\n");
  return output;
}

// toybox getconf: CLK_TCK is USER_HZ (100), PAGESIZE the kernel's 4 KiB pages.
CommandOutput SimulatedAndroid::Getconf(const Argv& argv) {
  if (argv.size() != 2) return Error("getconf: needs 1 argument\n", 1);
  CommandOutput output;
  if (argv[1] == "CLK_TCK") {
    output.Out(std::to_string(kTicksPerSecond) + "\n");
  } else if (argv[1] == "PAGESIZE" || argv[1] == "PAGE_SIZE") {
    output.Out("4096\n");
  } else {
    return Error("getconf: bad '" + argv[1] + "'\n", 1);
  }
  return output;
}

CommandOutput SimulatedAndroid::Pidof(const Argv& argv) {
  std::string pids;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    for (const auto& [pid, process] : processes_) {
      const std::string& shown = process.cmdline.empty() ? process.name : process.cmdline;
      if (shown == argv[i]) pids += (pids.empty() ? "" : " ") + std::to_string(pid);
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
  processes_[pid] = Process{pid, name, "", uid, ppid, start_ticks};
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
    if (app->spec.reports_fully_drawn) {
      // reportFullyDrawn comes after the first frame; ActivityMetricsLogger.logAppFullyDrawn.
      const long fully_ms = std::max(result.total_ms + 1, SampleMillis(app->spec.fully_drawn));
      Log(t0 + milliseconds(1 + fully_ms), system_server_pid_, system_server_pid_ + 31, 'I', tag,
          FullyDrawnLogMessage(sdk, component, fully_ms), LogBufferId::kSystem);
    }
    LooperForLaunch(*app, result.state, result.total_ms);
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
  if (argv.size() >= 2 && argv[1] == "resolve-activity") {
    return ResolveActivity(Argv(argv.begin() + 2, argv.end()));
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
    // PhoneWindowManager: WAKEUP wakes, SLEEP sleeps, POWER toggles; going to sleep shows the
    // keyguard, and MENU dismisses an insecure one (the old "unlock by menu" of lab scripts).
    const bool wakeup = key == "224" || key == "KEYCODE_WAKEUP";
    const bool sleep = key == "223" || key == "KEYCODE_SLEEP";
    const bool power = key == "26" || key == "KEYCODE_POWER";
    if (wakeup || (power && !screen_on_)) {
      screen_on_ = true;
    } else if (sleep || power) {
      screen_on_ = false;
      keyguard_showing_ = true;
    } else if ((key == "82" || key == "KEYCODE_MENU") && screen_on_) {
      keyguard_showing_ = false;
    }
    for (auto& [name, app] : apps_) {
      if (app.activity != ActivityState::kForeground) continue;
      if (key == "3" || key == "KEYCODE_HOME") app.activity = ActivityState::kBackground;
      if (key == "4" || key == "KEYCODE_BACK") app.activity = ActivityState::kDestroyed;
    }
    return {};
  }
  return Error("Error: Unknown command: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n", 1);
}

// `wm dismiss-keyguard` (WindowManagerShellCommand): dismisses an insecure keyguard.
CommandOutput SimulatedAndroid::Wm(const Argv& argv) {
  if (argv.size() >= 2 && argv[1] == "dismiss-keyguard") {
    if (screen_on_) keyguard_showing_ = false;
    return {};
  }
  return Error("Error: unknown command '" + (argv.size() > 1 ? argv[1] : std::string()) + "'\n",
               255);
}

namespace {

// logcat -t/-T TIME: "MM-DD HH:MM:SS.mmm" (this year), "YYYY-MM-DD HH:MM:SS.mmm" or
// "SECONDS.mmm" since the epoch.
std::optional<std::chrono::system_clock::time_point> ParseLogTime(
    const std::string& text, std::chrono::system_clock::time_point now) {
  using namespace std::chrono;
  if (text.find_first_not_of("0123456789.") == std::string::npos) {
    const std::size_t dot = text.find('.');
    const auto whole = ParseLong(text.substr(0, dot));
    if (!whole) return std::nullopt;
    long ms = 0;
    if (dot != std::string::npos) {
      std::string fraction = (text.substr(dot + 1) + "000").substr(0, 3);
      ms = ParseLong(fraction).value_or(0);
    }
    return system_clock::time_point(seconds(*whole) + milliseconds(ms));
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, ms = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%d.%d", &year, &month, &day, &hour, &minute,
                  &second, &ms) >= 6 &&
      year > 31) {
  } else if (std::sscanf(text.c_str(), "%d-%d %d:%d:%d.%d", &month, &day, &hour, &minute, &second,
                         &ms) >= 5) {
    const std::time_t t = system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    year = tm.tm_year + 1900;
  } else {
    return std::nullopt;
  }
  const auto date = sys_days{std::chrono::year{year} / month / day};
  return date + hours(hour) + minutes(minute) + seconds(second) + milliseconds(ms);
}

}  // namespace

CommandOutput SimulatedAndroid::Logcat(const Argv& argv) {
  bool dump = false;
  std::size_t tail = 0;
  LogFilter filter;
  LogFormat format = LogFormat::kThreadtime;
  bool buffers_given = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (arg.size() > 2 && !arg.starts_with("--")) return arg.substr(2);  // -vthreadtime
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
    } else if (arg.starts_with("-v")) {
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument -- 'v'\n", 1);
      if (*v == "epoch") {
        format = LogFormat::kEpoch;
      } else if (*v == "threadtime" || *v == "UTC" || *v == "printable") {
        // threadtime is the default; devsim's clock is UTC already
      } else {
        return Error("devsim: logcat -v " + *v + " is not simulated yet\n", 1);
      }
    } else if (arg.starts_with("-b")) {
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument -- 'b'\n", 1);
      if (!buffers_given) filter.buffers = 0;
      buffers_given = true;
      // -b main,system or repeated -b options; "all" and "default" as logcat takes them.
      std::size_t at = 0;
      while (at <= v->size()) {
        std::size_t comma = v->find(',', at);
        if (comma == std::string::npos) comma = v->size();
        const std::string name = v->substr(at, comma - at);
        if (name == "main") {
          filter.buffers |= LogBufferBit(LogBufferId::kMain);
        } else if (name == "system") {
          filter.buffers |= LogBufferBit(LogBufferId::kSystem);
        } else if (name == "crash") {
          filter.buffers |= LogBufferBit(LogBufferId::kCrash);
        } else if (name == "events") {
          filter.buffers |= LogBufferBit(LogBufferId::kEvents);
        } else if (name == "all") {
          filter.buffers |= kAllLogBuffers;
        } else if (name == "default") {
          filter.buffers |= kDefaultLogBuffers;
        } else if (name == "radio" || name == "kernel" || name == "stats" || name == "security") {
          // exist on a phone; nothing is logged to them here
        } else {
          return Error("logcat: unknown buffer " + name + "\n", 1);
        }
        at = comma + 1;
      }
    } else if (arg.starts_with("-t") || arg.starts_with("-T")) {
      const bool follow_tail = arg.starts_with("-T");
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument\n", 1);
      if (v->find_first_not_of("0123456789") == std::string::npos) {
        const auto count = ParseLong(*v);
        if (!count || *count <= 0) return Error("logcat: -t/-T count must be positive\n", 1);
        tail = static_cast<std::size_t>(*count);
      } else {
        const auto since = ParseLogTime(*v, clock_());
        if (!since) return Error("logcat: bad time '" + *v + "'\n", 1);
        filter.since = *since;
      }
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
  output.Out(logcat_.Dump(filter, tail, format));
  if (!dump) {
    output.follow_logcat = true;
    output.follow_filter = filter.tag_min;
    output.follow_buffers = filter.buffers;
    output.follow_format = format == LogFormat::kEpoch ? 1 : 0;
  }
  return output;
}

// ---- Time passing: noise, looper messages, scheduled faults ----

void SimulatedAndroid::Tick() { Advance(clock_()); }

void SimulatedAndroid::Advance(std::chrono::system_clock::time_point now) {
  if (now <= last_advance_) return;
  const auto from = last_advance_;
  last_advance_ = now;
  const auto elapsed = std::chrono::duration_cast<milliseconds>(now - from);
  const double seconds = std::chrono::duration<double>(now - from).count();
  looper_.AdvanceTime(elapsed, Charging());
  if (looper_.Collecting(Charging())) {
    const int sdk = scenario_.device.sdk;
    const std::string lambda = sdk >= 31 ? "$$ExternalSyntheticLambda0" : "$$Lambda$1";
    struct Background {
      LooperMessageKind kind;
      double per_second;
      double mean_latency_us;
    };
    const std::vector<Background> background = {
        {{-1, "ActivityManager", "com.android.server.am.ActivityManagerService$MainHandler", "0x21"},
         0.4, 850},
        {{-1, "PowerManagerService", "android.os.Handler", "0x2"}, 0.6, 190},
        {{-1, "android.anim", "android.view.Choreographer$FrameHandler",
          "android.view.Choreographer$FrameDisplayEventReceiver"},
         6, 1400},
        {{-1, "android.bg", "com.android.server.job.JobSchedulerService$JobHandler", "0x1"}, 0.2,
         2100},
        {{-1, "android.display",
          sdk >= 34 ? "com.android.server.display.DisplayPowerController2$DisplayControllerHandler"
                    : "com.android.server.display.DisplayPowerController$DisplayControllerHandler",
          "0x1"},
         1.0, 390},
        {{-1, "android.fg", "android.os.Handler",
          "com.android.server.am.ActivityManagerService$LocalService" + lambda},
         0.3, 310},
        {{1000, "PowerManagerService", "android.os.Handler",
          "com.android.server.power.Notifier" + lambda},
         0.2, 400},
        {{1041, "android.ui", "com.android.server.policy.PhoneWindowManager$PolicyHandler", "0x3"},
         0.1, 120},
    };
    for (const auto& b : background) {
      std::poisson_distribution<long> count(b.per_second * seconds);
      DispatchLooper(b.kind, count(rng_), b.mean_latency_us);
    }
    // Binder calls posting lambdas of many kinds: each a new entry, towards the cap.
    new_entries_carry_ += scenario_.looper_new_entries_per_s * seconds;
    for (; new_entries_carry_ >= 1; new_entries_carry_ -= 1) {
      const long n = next_binder_lambda_++;
      DispatchLooper({-1, "binder:" + std::to_string(system_server_pid_) + "_" +
                              std::to_string(2 + n % 14),
                      "android.os.Handler",
                      "com.android.server.Binder" + std::to_string(n) + lambda},
                     1, 95);
    }
  }
  AddNoise(from, now);
  // Scheduled faults whose time has come.
  while (next_scheduled_fault_ < scenario_.faults.size()) {
    const ScheduledFault& fault = scenario_.faults[next_scheduled_fault_];
    const auto at = created_ + milliseconds(static_cast<long>(fault.at_s * 1000));
    if (at > now) break;
    ++next_scheduled_fault_;
    Argv argv{"devsim-fault"};
    argv.insert(argv.end(), fault.args.begin(), fault.args.end());
    Fault(argv);
  }
}

void SimulatedAndroid::DispatchLooper(const LooperMessageKind& kind, long count,
                                      double mean_latency_us) {
  // A lab phone's screen is on while it runs tests.
  looper_.Dispatch(kind, count, mean_latency_us, /*screen_interactive=*/true, rng_);
}

void SimulatedAndroid::LooperForLaunch(const App& app, LaunchState state, long total_ms) {
  if (!looper_.Collecting(Charging())) return;
  const int uid = app.spec.uid;
  const long frames = std::max(1L, total_ms / 16);
  DispatchLooper({uid, "android.display", "com.android.server.wm.WindowManagerService$H", "0x29"},
                 3, 2300);
  DispatchLooper({uid, "android.anim", "android.view.Choreographer$FrameHandler",
                  "android.view.Choreographer$FrameDisplayEventReceiver"},
                 frames, 1500);
  DispatchLooper(
      {uid, "ActivityManager", "com.android.server.am.ActivityManagerService$MainHandler", "0x3e"},
      state == LaunchState::kCold ? 4 : 1, 900);
  if (state == LaunchState::kCold) {
    DispatchLooper({uid, "ActivityManager", "com.android.server.am.ActivityManagerService$MainHandler",
                    "0x14"},
                   1, 3200);
  }
}

std::string SimulatedAndroid::MapUid(int uid) const {
  // AppIdToPackageMap.mapUid: "pkg/u0a123" for an installed app id, "shared:…" where several
  // packages share it (uid 1000 always does), else the bare UserHandle.formatUid text.
  if (uid < 0) return std::to_string(uid);
  const int app_id = uid % 100000;
  if (app_id == 1000) return "shared:android.uid.system/" + FormatUid(uid);
  for (const auto& [name, app] : apps_) {
    if (app.spec.uid % 100000 == app_id) return name + "/" + FormatUid(uid);
  }
  return FormatUid(uid);
}

void SimulatedAndroid::SettingChanged(const std::string& ns, const std::string& key) {
  if (ns != "global" || key != "looper_stats") return;
  if (scenario_.device.sdk < kLooperStatsSinceSdk) return;
  // LooperStatsService's ContentObserver calls initFromSettings.
  const auto& table = settings_["global"];
  const auto it = table.find("looper_stats");
  looper_.ApplySetting(it == table.end() ? std::nullopt : std::optional<std::string>(it->second),
                       clock_());
}

void SimulatedAndroid::AddNoise(std::chrono::system_clock::time_point from,
                                std::chrono::system_clock::time_point to) {
  struct NoiseSource {
    int pid;
    char priority;
    const char* tag;
    const char* message;
    LogBufferId buffer;
  };
  // Lines of the kinds a resting phone logs, ~120 bytes each as threadtime.
  static const NoiseSource kSources[] = {
      {0, 'D', "WifiHAL", "getWifiLinkLayerStats: iface wlan0 rssi=-52 tx_mpdu=18423 rx_mpdu=21790 retries=12", LogBufferId::kMain},
      {0, 'I', "chatty", "uid=10141(com.google.android.gms) GoogleApiHandle identical 3 lines", LogBufferId::kMain},
      {1, 'D', "BatteryService", "Processing new values: info=HealthInfo{chargerUsbOnline=true, batteryLevel=85}", LogBufferId::kSystem},
      {1, 'I', "PowerManagerService", "Waking up from Dozing (uid=1000, reason=WAKE_REASON_APPLICATION)...", LogBufferId::kSystem},
      {2, 'D', "NetworkMonitor/102", "PROBE_DNS connectivitycheck.gstatic.com 21ms OK 142.250.74.99", LogBufferId::kMain},
      {0, 'W', "ThermalHAL", "sensor VIRTUAL-SKIN: 33.2C below threshold 39.0C, status NONE, polling 5000ms", LogBufferId::kMain},
      {1, 'I', "ActivityManager", "Changes in 10141 11 to 9, 0 to 0", LogBufferId::kSystem},
      {2, 'V', "GCoreUlr", "Location batch uploaded: 4 samples, accuracy 12.0m, elapsed 30012ms, next in 300s", LogBufferId::kMain},
  };
  noise_carry_ += scenario_.noise_lines_per_s * std::chrono::duration<double>(to - from).count();
  const long lines = static_cast<long>(noise_carry_);
  noise_carry_ -= static_cast<double>(lines);
  if (lines <= 0) return;
  const auto span = to - from;
  const int pids[] = {892, system_server_pid_, 2711};
  for (long i = 0; i < lines; ++i) {
    const NoiseSource& source = kSources[rng_() % std::size(kSources)];
    const auto when = from + span * (i + 1) / (lines + 1);
    const int pid = pids[source.pid];
    Log(std::chrono::time_point_cast<milliseconds>(when), pid,
        pid + static_cast<int>(rng_() % 60), source.priority, source.tag, source.message,
        source.buffer);
  }
}

// ---- dumpsys and cmd ----

CommandOutput SimulatedAndroid::Dumpsys(const Argv& argv) {
  const int sdk = scenario_.device.sdk;
  if (argv.size() < 2) return Error("devsim: dumpsys of every service is not simulated\n", 1);
  const std::string& service = argv[1];
  const Argv args(argv.begin() + 2, argv.end());
  CommandOutput output;
  if (service == "looper_stats" && sdk >= kLooperStatsSinceSdk) {
    output.Out(looper_.Dump([this](int uid) { return MapUid(uid); }));
    return output;
  }
  if (service == "battery") return BatteryCommand(args, true);
  if (service == "thermalservice") {
    const double battery_c = battery_.temperature / 10.0;
    output.Out(FormatThermalDump(sdk, 0, false,
                                 {{battery_c, 2, "battery", 0},
                                  {battery_c + 4.7, 3, "VIRTUAL-SKIN", 0},
                                  {battery_c + 11.3, 0, "cpu-0-0-usr", 0}}));
    return output;
  }
  if (service == "package" && !args.empty()) return PackageDump(args.back());
  if (service == "power") {
    output.Out(FormatPowerDump(sdk, screen_on_, battery_));
    return output;
  }
  if (service == "activity" && args.size() == 1 && (args[0] == "activities" || args[0] == "a")) {
    output.Out(FormatActivitiesDump(sdk, keyguard_showing_));
    return output;
  }
  // dumpsys.cpp startDumpThread: "Can't find service: NAME" on stderr, exit status 0.
  output.Err("Can't find service: " + service + "\n");
  return output;
}

CommandOutput SimulatedAndroid::Cmd(const Argv& argv) {
  const int sdk = scenario_.device.sdk;
  if (argv.size() < 2) return Error("cmd: No service specified; use -l to list all services\n", 20);
  Argv rest(argv.begin() + 1, argv.end());
  const std::string& service = rest[0];
  // `cmd activity …` is what `am` runs; likewise package and settings.
  if (service == "activity") return Am(rest);
  if (service == "package") return Pm(rest);
  if (service == "settings") return Settings(rest);
  if (service == "battery") return BatteryCommand(Argv(rest.begin() + 1, rest.end()), false);
  if (service == "looper_stats" && sdk >= kLooperStatsSinceSdk) {
    return LooperStatsCommand(Argv(rest.begin() + 1, rest.end()));
  }
  // cmd.cpp: checkService failed.
  return Error("cmd: Can't find service: " + service + "\n", 20);
}

namespace {

// ShellCommand.exec catching an exception from onCommand: the message and a stack on stderr,
// result -1 (exit status 255).
CommandOutput ShellCommandException(const std::string& command, const std::string& exception) {
  CommandOutput output;
  output.Err("Exception occurred while executing '" + command + "':\n" + exception +
             "\n\tat android.os.ShellCommand.getNextArgRequired(ShellCommand.java:297)\n");
  output.exit_code = 255;
  return output;
}

}  // namespace

CommandOutput SimulatedAndroid::LooperStatsCommand(const Argv& args) {
  CommandOutput output;
  const std::string cmd = args.empty() ? "" : args[0];
  const auto now = clock_();
  if (cmd == "enable") {
    looper_.SetEnabled(true, now);
  } else if (cmd == "disable") {
    looper_.SetEnabled(false, now);
  } else if (cmd == "reset") {
    looper_.Reset(now);
  } else if (cmd == "sampling_interval") {
    if (args.size() < 2) {
      return ShellCommandException(
          cmd, "java.lang.IllegalArgumentException: Argument expected after \"" + cmd + "\"");
    }
    // Integer.parseUnsignedInt
    const auto value = ParseLong(args[1]);
    if (!value || *value < 0 || *value > 4294967295L || args[1].starts_with("-")) {
      return ShellCommandException(cmd, "java.lang.NumberFormatException: For input string: \"" +
                                            args[1] + "\"");
    }
    looper_.SetSamplingInterval(static_cast<int>(static_cast<std::uint32_t>(*value)));
  } else if (cmd.empty() || cmd == "help" || cmd == "-h") {
    output.Out(
        "looper_stats commands:\n  enable: Enable collecting stats.\n  disable: Disable "
        "collecting stats.\n  sampling_interval: Change the sampling interval.\n  reset: Reset "
        "stats.\n");
    output.exit_code = 255;  // handleDefaultCommands returns -1
  } else {
    output.Out("Unknown command: " + cmd + "\n");
    output.exit_code = 255;
  }
  return output;
}

CommandOutput SimulatedAndroid::BatteryCommand(const Argv& args, bool from_dumpsys) {
  const int sdk = scenario_.device.sdk;
  CommandOutput output;
  if (args.empty() || (from_dumpsys && args[0] == "-a")) {
    if (from_dumpsys) {
      output.Out(FormatBatteryDump(sdk, battery_, battery_updates_stopped_));
    } else {
      output.exit_code = 255;  // handleDefaultCommands(null): help, -1
    }
    return output;
  }
  std::size_t at = 0;
  const std::string cmd = args[at++];
  bool force = false;
  while (at < args.size() && args[at] == "-f") {
    force = true;
    ++at;
  }
  auto next = [&]() -> std::optional<std::string> {
    if (at < args.size()) return args[at++];
    return std::nullopt;
  };
  const bool was_charging = Charging();
  auto freeze = [&] {
    if (!battery_updates_stopped_) battery_before_override_ = battery_;
    battery_updates_stopped_ = true;
  };
  if (cmd == "unplug") {
    freeze();
    battery_.ac = battery_.usb = battery_.wireless = battery_.dock = false;
  } else if (cmd == "reset") {
    if (battery_updates_stopped_) {
      battery_updates_stopped_ = false;
      battery_ = battery_before_override_;
    }
  } else if (cmd == "set") {
    const auto key = next();
    if (!key) {
      output.Out("No property specified\n");
      output.exit_code = 255;
      return output;
    }
    const auto value = next();
    if (!value) {
      output.Out("No value specified\n");
      output.exit_code = 255;
      return output;
    }
    const auto number = ParseLong(*value);
    if (!number) {
      output.Out("Bad value: " + *value + "\n");
      output.exit_code = 255;
      return output;
    }
    BatteryState changed = battery_updates_stopped_ ? battery_ : battery_;
    const int v = static_cast<int>(*number);
    if (*key == "present") {
      changed.present = v != 0;
    } else if (*key == "ac") {
      changed.ac = v != 0;
    } else if (*key == "usb") {
      changed.usb = v != 0;
    } else if (*key == "wireless") {
      changed.wireless = v != 0;
    } else if (*key == "dock" && sdk >= 34) {
      changed.dock = v != 0;
    } else if (*key == "status") {
      changed.status = v;
    } else if (*key == "level") {
      changed.level = v;
    } else if (*key == "counter") {
      changed.charge_counter = v;
    } else if (*key == "temp") {
      changed.temperature = v;
    } else if (*key == "invalid") {
      changed.invalid_charger = v;
    } else {
      output.Out("Unknown set option: " + *key + "\n");
      return output;
    }
    freeze();
    battery_ = changed;
  } else if (cmd == "get") {
    const auto key = next();
    if (!key) {
      output.Out("No property specified\n");
      output.exit_code = 255;
      return output;
    }
    const std::map<std::string, std::string> values = {
        {"present", battery_.present ? "true" : "false"},
        {"ac", battery_.ac ? "true" : "false"},
        {"usb", battery_.usb ? "true" : "false"},
        {"wireless", battery_.wireless ? "true" : "false"},
        {"status", std::to_string(battery_.status)},
        {"level", std::to_string(battery_.level)},
        {"counter", std::to_string(battery_.charge_counter)},
        {"temp", std::to_string(battery_.temperature)},
        {"invalid", std::to_string(battery_.invalid_charger)}};
    const auto it = values.find(*key);
    output.Out(it == values.end() ? "Unknown get option: " + *key + "\n" : it->second + "\n");
    return output;
  } else if (cmd == "help" || cmd == "-h") {
    output.Out("Battery service (battery) commands:\n");
    output.exit_code = from_dumpsys ? 0 : 255;
    return output;
  } else {
    output.Out("Unknown command: " + cmd + "\n");
    if (!from_dumpsys) output.exit_code = 255;
    return output;
  }
  ++battery_sequence_;
  if (force) output.Out(std::to_string(battery_sequence_) + "\n");  // processValuesLocked(force, pw)
  if (was_charging != Charging()) {
    Log(clock_(), system_server_pid_, system_server_pid_ + 9, 'I', "BatteryService",
        std::string("Processing new values: plugged=") + (Charging() ? "true" : "false"),
        LogBufferId::kSystem);
  }
  return output;  // dumpsys exits 0 whatever the service wrote
}

CommandOutput SimulatedAndroid::PackageDump(const std::string& package) {
  CommandOutput output;
  const App* app = FindApp(package);
  if (app == nullptr) {
    // dumpPackagesLPr prints nothing for a package it does not know; dumpsys exits 0.
    return output;
  }
  PackageDumpInfo info;
  info.spec = &app->spec;
  info.code_path = app->apk_path.substr(0, app->apk_path.rfind('/'));
  char hash[16];
  std::snprintf(hash, sizeof hash, "%07x", static_cast<unsigned>(std::hash<std::string>{}(package) & 0xfffffff));
  info.hash = hash;
  info.abi = scenario_.device.abi;
  {
    const auto installed = created_ - std::chrono::hours(24 * 3);
    const std::time_t seconds = std::chrono::system_clock::to_time_t(installed);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    info.first_install = stamp;
  }
  output.Out(FormatPackageDump(scenario_.device.sdk, info));
  return output;
}

CommandOutput SimulatedAndroid::ResolveActivity(const Argv& args) {
  // Intent.parseCommandArgs: options with values, then a bare word is the package (no ':' or
  // '/'), a component (with '/'), or data (with ':').
  std::string package;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--brief" || arg == "--components") continue;
    if ((arg == "-a" || arg == "-c" || arg == "-d" || arg == "-t" || arg == "--user" ||
         arg == "-f") &&
        i + 1 < args.size()) {
      ++i;
      continue;
    }
    if (arg == "-n" && i + 1 < args.size()) {
      ++i;
      package = args[i].substr(0, args[i].find('/'));
      continue;
    }
    if (!arg.starts_with("-")) package = arg.substr(0, arg.find('/'));
  }
  CommandOutput output;
  const App* app = FindApp(package);
  if (app == nullptr) {
    output.Out("No activity found\n");
    return output;
  }
  Component component;
  ParseComponent(app->spec.name + "/" + app->spec.activity, component);
  output.Out(FormatResolveActivityBrief(component.FlattenToShortString()));
  return output;
}

// ---- Faults ----

CommandOutput SimulatedAndroid::Fault(const Argv& argv) {
  static constexpr char kUsage[] =
      "usage: devsim-fault unplug MS | hang PREFIX [N] | truncate PREFIX BYTES [N] |\n"
      "                    slow PREFIX MS_PER_KIB [N] | garbage N | list | clear\n";
  if (argv.size() < 2) return Error(kUsage, 2);
  const std::string& kind = argv[1];
  CommandOutput output;
  auto number = [&](std::size_t at, long fallback) -> std::optional<long> {
    if (at >= argv.size()) return fallback;
    return ParseLong(argv[at]);
  };
  if (kind == "unplug") {
    const auto ms = number(2, 5000);
    if (!ms || *ms < 0) return Error(kUsage, 2);
    if (!unplug_handler_) return Error("devsim-fault: this device has no transport to unplug\n", 1);
    unplug_handler_(milliseconds(*ms));
    output.Out("unplugging for " + std::to_string(*ms) + " ms\n");
  } else if (kind == "hang" || kind == "truncate" || kind == "slow") {
    if (argv.size() < 3) return Error(kUsage, 2);
    ActiveFault fault;
    fault.kind = kind;
    fault.prefix = argv[2];
    std::size_t count_at = 3;
    if (kind != "hang") {
      const auto value = number(3, -1);
      if (!value || *value < 0) return Error(kUsage, 2);
      fault.value = *value;
      count_at = 4;
    }
    const auto count = number(count_at, 1);
    if (!count || *count < 1) return Error(kUsage, 2);
    fault.remaining = *count;
    faults_.push_back(std::move(fault));
  } else if (kind == "garbage") {
    const auto count = number(2, 1);
    if (!count || *count < 1) return Error(kUsage, 2);
    for (long i = 0; i < *count; ++i) {
      std::string bytes;
      const std::size_t size = 20 + rng_() % 100;
      for (std::size_t b = 0; b < size; ++b) {
        char c = static_cast<char>(rng_() % 256);
        if (c == '\n') c = '\x01';
        bytes.push_back(c);
      }
      LogEntry entry{clock_(), 0, 0, 'I', "", std::move(bytes), LogBufferId::kMain};
      entry.raw = true;
      logcat_.Add(std::move(entry));
    }
  } else if (kind == "list") {
    for (const auto& f : faults_) {
      output.Out(f.kind + " '" + f.prefix + "' " + std::to_string(f.value) + " x" +
                 std::to_string(f.remaining) + "\n");
    }
  } else if (kind == "clear") {
    faults_.clear();
  } else {
    return Error(kUsage, 2);
  }
  return output;
}

void SimulatedAndroid::ApplyFaults(const Argv& argv, CommandOutput& output) {
  if (faults_.empty() || argv.empty() || argv[0] == "devsim-fault") return;
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + word;
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!line.starts_with(it->prefix)) continue;
    if (it->kind == "hang") {
      // Prints nothing and never ends, like a dumpsys stuck behind a system_server lock.
      output = CommandOutput{};
      output.hang = true;
    } else if (it->kind == "truncate") {
      std::size_t keep = static_cast<std::size_t>(it->value);
      CommandOutput cut;
      for (const auto& chunk : output.chunks) {
        if (keep == 0) break;
        OutputChunk part = chunk;
        if (part.data.size() > keep) part.data.resize(keep);
        keep -= part.data.size();
        cut.chunks.push_back(std::move(part));
      }
      cut.drop_stream = true;
      cut.exit_code = output.exit_code;
      output = std::move(cut);
    } else if (it->kind == "slow") {
      // The same bytes, 1 KiB at a time with a pause before each.
      CommandOutput slow;
      slow.exit_code = output.exit_code;
      slow.follow_logcat = output.follow_logcat;
      slow.follow_filter = output.follow_filter;
      slow.follow_buffers = output.follow_buffers;
      slow.follow_format = output.follow_format;
      for (const auto& chunk : output.chunks) {
        for (std::size_t at = 0; at < chunk.data.size(); at += 1024) {
          slow.chunks.push_back({milliseconds(it->value), chunk.to_stderr,
                                 chunk.data.substr(at, 1024)});
        }
      }
      output = std::move(slow);
    }
    if (--it->remaining <= 0) faults_.erase(it);
    return;
  }
}

// ---- ps ----

CommandOutput SimulatedAndroid::Ps(const Argv& argv) {
  const int sdk = scenario_.device.sdk;
  (void)argv;  // -A, -e: every process; devsim's table is small enough to always show all
  // toybox ps: USER %-12s PID %5s PPID %5s VSZ %7s RSS %6s WCHAN %-10s ADDR %10s S NAME, a
  // value wider than its column borrows from the next column's padding.
  static const int kWidths[] = {-12, 5, 5, 7, 6, -10, 10};
  auto row = [](const std::vector<std::string>& cells, char state, const std::string& name) {
    std::string line;
    int owed = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const int width = std::abs(kWidths[i]);
      const int room = width - static_cast<int>(cells[i].size());
      const int pad = std::max(0, room - owed);
      owed = std::max(0, owed - room);
      if (i > 0) line += ' ';
      const std::string padding(static_cast<std::size_t>(pad), ' ');
      line += kWidths[i] < 0 ? cells[i] + padding : padding + cells[i];
    }
    line += ' ';
    line += state;
    line += ' ' + name + "\n";
    return line;
  };
  CommandOutput output;
  output.Out(row({"USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR"}, 'S', "NAME"));
  const long now_ticks = std::lround(UptimeSeconds() * kTicksPerSecond);
  for (const auto& [pid, process] : processes_) {
    std::string user = process.uid == 0      ? "root"
                       : process.uid == 1000 ? "system"
                       : process.uid >= 10000
                           ? "u" + std::to_string(process.uid / 100000) + "_a" +
                                 std::to_string(process.uid % 100000 - 10000)
                           : std::to_string(process.uid);
    const long alive = std::max(0L, now_ticks - process.start_ticks);
    const long vsz = process.pid == 1 ? 10782796 / 1000 * 1000 : 14680064 + alive % 4096 * 4;
    const long rss = process.pid == 1 ? 9448 : (38000 + (alive / kTicksPerSecond) % 4000) * 4;
    const std::string wchan = sdk >= 29 ? "do_epoll_wait" : "SyS_epoll_wait";
    output.Out(row({user, std::to_string(pid), std::to_string(process.ppid), std::to_string(vsz),
                    std::to_string(rss), wchan, "0"},
                   'S', process.cmdline.empty() ? process.name : process.cmdline));
  }
  return output;
}

}  // namespace droidlab::devsim
