#include "tools/devsim/android/device_state.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace droidlab::devsim {

using std::chrono::milliseconds;

DeviceState::DeviceState(Scenario scenario_in, DeviceOptions options_in, WallClock clock_in)
    : scenario(std::move(scenario_in)),
      options(options_in),
      clock(std::move(clock_in)),
      created(clock()),
      booted(created - milliseconds(static_cast<long>(scenario.device.uptime_s * 1000))),
      rng(scenario.seed),
      battery(BatteryStateFromSpec(scenario.battery)),
      screen_on(scenario.screen.on),
      keyguard_showing(scenario.screen.locked),
      looper(scenario.device.sdk, scenario.looper_entries_cap, created),
      last_advance(created) {
  const DeviceSpec& d = scenario.device;
  properties = {
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
  if (d.sdk >= 31) properties["ro.build.version.release_or_codename"] = d.release;
  settings["global"] = {
      {"adb_enabled", "1"}, {"stay_on_while_plugged_in", "0"}, {"device_provisioned", "1"}};
  settings["system"] = {{"screen_off_timeout", "60000"}};
  settings["secure"] = {{"android_id", "6f1c0e2d4a3b5c7e"}};

  processes[1] = Process{1, "init", "", 0, 0, 0};
  zygote_pid = 712;
  // The zygote's comm is "main": app_process renames its main thread.
  processes[zygote_pid] = Process{zygote_pid, "main", "zygote64", 0, 1, 310};
  system_server_pid = 1501;
  processes[system_server_pid] =
      Process{system_server_pid, "system_server", "", 1000, zygote_pid, 690};

  for (const auto& spec : scenario.packages) {
    App app;
    app.spec = spec;
    app.apk_path = NewApkPath(spec.name);
    if (spec.bg_dexopt_after_s > 0) {
      app.bg_dexopt_at = created + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                       std::chrono::duration<double>(spec.bg_dexopt_after_s));
    }
    apps[spec.name] = std::move(app);
  }

  heat_c = scenario.heat.start_c;
  heat_at = created;
  LogBootLines(booted);
}

std::string DeviceState::NewApkPath(const std::string& package) {
  if (scenario.device.sdk >= 30) {
    return "/data/app/~~" + RandomApkToken() + "/" + package + "-" + RandomApkToken() +
           "/base.apk";
  }
  return "/data/app/" + package + "-" + RandomApkToken() + "/base.apk";
}

void DeviceState::LogBootLines(std::chrono::system_clock::time_point boot) {
  Log(boot + milliseconds(9120), system_server_pid, system_server_pid, 'I', "SystemServer",
      "Entered the Android system server!", LogBufferId::kSystem);
  Log(boot + milliseconds(14870), system_server_pid, system_server_pid + 29, 'I', "ActivityManager",
      "System now ready", LogBufferId::kSystem);
  Log(boot + milliseconds(15002), 640, 640, 'I', "init", "processing action (sys.boot_completed=1)",
      LogBufferId::kMain);
}

double DeviceState::HeatNow() {
  const auto now = clock();
  if (heat_c > 0 && now > heat_at) {
    const double seconds = std::chrono::duration<double>(now - heat_at).count();
    heat_c *= std::exp2(-seconds / scenario.heat.half_life_s);
    if (heat_c < 0.01) heat_c = 0;
  }
  heat_at = now;
  return heat_c;
}

void DeviceState::AddHeat(double c) { heat_c = HeatNow() + c; }

int DeviceState::HeatedBatteryTemperature() {
  return scenario.battery.temperature + static_cast<int>(std::lround(HeatNow() * 10));
}

int DeviceState::ThermalStatus() const {
  if (battery.temperature >= 460) return 3;
  if (battery.temperature >= 430) return 2;
  if (battery.temperature >= 400) return 1;
  return 0;
}

double DeviceState::UptimeSeconds() const {
  return std::chrono::duration<double>(clock() - booted).count();
}

void DeviceState::Reboot(std::chrono::milliseconds services_after) {
  const auto now = clock();
  ++boots;
  OnReboot(faults);
  booted = now;
  services_up_at = now + services_after;
  // init, zygote and system_server start again; every app process is gone and pids count
  // from where a fresh boot's do.
  const Process init = processes.at(1);
  const Process zygote = processes.at(zygote_pid);
  const Process system_server = processes.at(system_server_pid);
  processes = {{1, init}, {zygote_pid, zygote}, {system_server_pid, system_server}};
  next_pid = 4200;
  for (auto& [name, app] : apps) {
    app.pid = 0;
    app.activity = ActivityState::kNone;
  }
  // BatteryService starts from the HAL's values: an unplug or set override is gone.
  if (battery_updates_stopped) battery = battery_before_override;
  battery_updates_stopped = false;
  battery_sequence = 1;
  screen_on = scenario.screen.on;
  keyguard_showing = scenario.screen.locked;
  // sys.boot_completed is not persistent: unset until ActivityManagerService finishes booting.
  properties.erase("sys.boot_completed");
  properties.erase("dev.bootcomplete");
  logcat.Clear();  // logd's buffers are RAM
  // LooperStatsService starts empty and reads the setting, which survived (Settings.Global
  // lives in /data).
  looper = LooperStatsModel(scenario.device.sdk, scenario.looper_entries_cap, now);
  const auto& global = settings["global"];
  const auto setting = global.find("looper_stats");
  if (scenario.device.sdk >= kLooperStatsSinceSdk) {
    looper.ApplySetting(
        setting == global.end() ? std::nullopt : std::optional<std::string>(setting->second), now);
  }
  Log(now, system_server_pid, system_server_pid, 'I', "SystemServer",
      "Entered the Android system server!", LogBufferId::kSystem);
}

void DeviceState::FinishBootIfDue(std::chrono::system_clock::time_point now) {
  if (!services_up_at || now < *services_up_at) return;
  services_up_at.reset();
  properties["sys.boot_completed"] = "1";
  properties["dev.bootcomplete"] = "1";
  Log(now, system_server_pid, system_server_pid + 29, 'I', "ActivityManager", "System now ready",
      LogBufferId::kSystem);
  Log(now, 640, 640, 'I', "init", "processing action (sys.boot_completed=1)", LogBufferId::kMain);
}

std::string DeviceState::RandomApkToken() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string token;
  for (int i = 0; i < 22; ++i) token.push_back(kAlphabet[rng() % 64]);
  return token + "==";
}

long DeviceState::SampleMillis(const LaunchTimeDistribution& distribution) {
  std::normal_distribution<double> normal(distribution.mean_ms, distribution.stddev_ms);
  return std::max(1L, std::lround(distribution.stddev_ms > 0 ? normal(rng) : distribution.mean_ms));
}

void DeviceState::Log(std::chrono::system_clock::time_point time, int pid, int tid, char priority,
                      std::string tag, std::string message, LogBufferId buffer) {
  logcat.Add(LogEntry{time, pid, tid, priority, std::move(tag), std::move(message), buffer});
}

App* DeviceState::FindApp(const std::string& package) {
  const auto it = apps.find(package);
  return it == apps.end() ? nullptr : &it->second;
}

int DeviceState::StartProcess(const std::string& name, int uid, int ppid, long start_ticks) {
  const int pid = next_pid;
  next_pid += 1 + static_cast<int>(rng() % 40);  // other processes fork in between
  processes[pid] = Process{pid, name, "", uid, ppid, start_ticks};
  return pid;
}

std::int64_t DeviceState::MonotonicNs() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock() - booted).count();
}

App* DeviceState::ForegroundApp() {
  for (auto& [name, app] : apps) {
    if (app.pid != 0 && app.activity == ActivityState::kForeground) return &app;
  }
  return nullptr;
}

void DeviceState::DeliverInput(std::string description, bool to_app) {
  input_log.push_back(std::move(description));
  if (to_app) RenderInputFrames();
}

void DeviceState::RenderInputFrames() {
  if (App* app = ForegroundApp()) {
    RenderFrames(app->frames, app->spec.frames, app->spec.frames.per_input, MonotonicNs(), false);
  }
}

void DeviceState::ForceStop(App& app) {
  if (app.pid != 0) processes.erase(app.pid);
  app.pid = 0;
  app.activity = ActivityState::kNone;
}

void DeviceState::DispatchLooper(const LooperMessageKind& kind, long count,
                                 double mean_latency_us) {
  // A lab phone's screen is on while it runs tests.
  looper.Dispatch(kind, count, mean_latency_us, /*screen_interactive=*/true, rng);
}

}  // namespace droidlab::devsim
