// Everything one simulated Android device knows: properties, settings, processes, apps, log,
// battery, screen, looper stats and faults, with the few operations several command families
// share (logging, starting and killing processes, drawing launch times).
//
// A plain struct on purpose: each command family (command_handlers.h) is a set of free
// functions over it, so a file reads like the tool it simulates. SimulatedAndroid owns one and
// is the only way in from outside. Not thread-safe: one device lives on one io_context thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tools/devsim/android/fault_injection.h"
#include "tools/devsim/android/gfxinfo_dump.h"
#include "tools/devsim/android/launch_formats.h"
#include "tools/devsim/android/logcat_buffer.h"
#include "tools/devsim/android/looper_stats.h"
#include "tools/devsim/android/scenario.h"
#include "tools/devsim/android/service_dumps.h"

namespace droidlab::devsim {

inline constexpr int kTicksPerSecond = 100;  // USER_HZ on every Android kernel

using WallClock = std::function<std::chrono::system_clock::time_point()>;

struct DeviceOptions {
  // am start -W blocks for its WaitTime, as on a phone. Off: it answers at once (the log
  // and the printed times are the same either way).
  bool realtime_launches = true;
};

struct Process {
  int pid = 0;
  std::string name;     // process name (package name for apps): /proc/PID/stat comm source
  std::string cmdline;  // argv[0] when it differs from name (zygote64 for comm "main")
  int uid = 0;
  int ppid = 0;
  long start_ticks = 0;  // clock ticks (100 Hz) after boot: /proc/PID/stat field 22
};

enum class ActivityState { kNone, kForeground, kBackground, kDestroyed };

struct App {
  PackageSpec spec;
  std::string apk_path;
  // Its split APKs' names, sorted as the package manager sorts them (PackageParser /
  // ApkLiteParseUtils parseClusterPackageLite): what `dumpsys package` prints after "base".
  std::vector<std::string> splits;
  int pid = 0;  // 0: not running
  ActivityState activity = ActivityState::kNone;
  // When background dexopt comes for it (compilation.h); none scheduled: nullopt.
  std::optional<std::chrono::system_clock::time_point> bg_dexopt_at;
  // hwui's statistics in the running process (gfxinfo_dump.h); new with each process.
  FrameStats frames;
  // Launches into the running process (the cold one included): the activity leak counts these.
  int launches_in_process = 0;
  // `am start`s of the package since devsim started (crash_on_launch / anr_on_launch count these).
  int launches = 0;
  // The main Looper's slow-message threshold, read from log.looper.<uid>.main.slow when the
  // process started (slow_messages.h); none: it logs no slow message.
  std::optional<long> slow_threshold_ms;
};

// What an installed-from-the-host APK's manifest says (parsers/apk_manifest.h read it).
struct ApkFacts {
  std::string package;
  long version_code = 0;  // the long version code (versionCodeMajor << 32 | versionCode)
  std::optional<std::string> version_name;
  int min_sdk = 1;
  std::optional<int> target_sdk;
  std::optional<std::string> split;  // a split APK's name (`split="config.arm64_v8a"`)
  std::string signature;  // orchestrator/builds/apk_signature.h's Text(); "" when unsigned
  int signature_scheme = 0;
};

// A file the host pushed (sync: SEND) or streamed (an install): its size and SHA-1, and, when
// its bytes are an APK, what its manifest says. The bytes themselves are not kept.
struct StoredFile {
  std::uint64_t size = 0;
  std::string sha1;                // 40 lowercase hex digits, as toybox sha1sum prints
  std::optional<ApkFacts> apk;     // nullopt: not a zip with a readable AndroidManifest.xml
  std::string not_apk_reason;      // why not (ReadApkManifest's words), for logs
  bool dex_metadata = false;       // not an APK but a .dm: a zip holding primary.prof
  std::uint32_t mode = 0644;
  std::uint32_t mtime = 0;
};

// An install session (PackageInstallerSession): its install options and the files written into
// it, by the name install-write gave, in the order written.
struct InstallSession {
  bool allow_downgrade = false;
  std::vector<std::pair<std::string, StoredFile>> files;
};

struct DeviceState {
  // Boots the device: properties and settings from the scenario, init, zygote and
  // system_server, the installed apps, and the boot lines in the log.
  DeviceState(Scenario scenario, DeviceOptions options, WallClock clock);

  std::chrono::system_clock::time_point Now() const { return clock(); }
  // Processes the phone's shells have started since devsim did (`devsim-stats`): one per shell
  // service (adbd forks the shell), per command that is not a builtin, per $(…) (mksh forks a
  // subshell) and per `sh -c`. What a host's sampling costs the phone, counted.
  std::uint64_t processes_started = 0;
  // Shell services adbd started (each a command the host sent, streams included; one of the
  // processes above each): the commands a run costs the phone, counted.
  std::uint64_t shell_services = 0;
  // Seconds since boot, as /proc/uptime's first field.
  double UptimeSeconds() const;
  // `devsim-fault reboot`: the device restarts now. Processes, the log, the battery override
  // and looper stats' counters are gone (RAM); settings and the APKs stay (/data). system_server
  // publishes its services `services_after` from now: until then `cmd`, `settings`, `am`, `pm`
  // and `dumpsys` cannot find them and sys.boot_completed is unset (FinishBootIfDue).
  void Reboot(std::chrono::milliseconds services_after);
  // The services are published and sys.boot_completed=1 once their time has come.
  void FinishBootIfDue(std::chrono::system_clock::time_point now);
  // Between a reboot and its services: system_server has not published them yet.
  bool ServicesStarting() const { return services_up_at.has_value(); }
  // Heat (HeatSpec): the °C above the battery's own temperature now, after cooling since the
  // last reading; a cold start adds to it.
  double HeatNow();
  void AddHeat(double c);
  // The battery temperature with the heat in it, in tenths of °C (what BatteryService reports).
  int HeatedBatteryTemperature();
  // PowerManager.THERMAL_STATUS_* from the battery temperature: LIGHT from 40 °C, MODERATE
  // from 43, SEVERE from 46 (a simple stand-in for a thermal HAL's thresholds).
  int ThermalStatus() const;
  // LooperStatsService follows CachedDeviceState.isCharging, which follows the plug type.
  bool Charging() const { return battery.Plugged(); }

  void Log(std::chrono::system_clock::time_point time, int pid, int tid, char priority,
           std::string tag, std::string message, LogBufferId buffer);
  App* FindApp(const std::string& package);
  // Where the package manager puts a new install of `package` (the form of this SDK).
  std::string NewApkPath(const std::string& package);
  // CLOCK_MONOTONIC in ns (uptime): hwui's timestamps.
  std::int64_t MonotonicNs() const;
  // The app on top, or nullptr.
  App* ForegroundApp();
  // An input reached the screen: recorded for `devsim-input-log`, and the app on top renders
  // its frames for it (FrameSpec::per_input).
  void DeliverInput(std::string description, bool to_app = true);
  // The app on top renders FrameSpec::per_input frames (nothing when no app is on top).
  void RenderInputFrames();
  int StartProcess(const std::string& name, int uid, int ppid, long start_ticks);
  void ForceStop(App& app);
  long SampleMillis(const LaunchTimeDistribution& distribution);
  void DispatchLooper(const LooperMessageKind& kind, long count, double mean_latency_us);

  // looper and last_advance start from created, so they are declared after it.
  Scenario scenario;
  DeviceOptions options;
  WallClock clock;
  std::chrono::system_clock::time_point created;
  std::chrono::system_clock::time_point booted;  // /proc/uptime counts from here
  std::optional<std::chrono::system_clock::time_point> services_up_at;  // set while rebooting
  int boots = 0;  // reboots since created
  double heat_c = 0;  // excess over the battery's temperature at heat_at
  std::chrono::system_clock::time_point heat_at;
  std::mt19937_64 rng;  // the one source of randomness, so a scenario's seed replays a run
  std::map<std::string, std::string> properties;
  std::map<std::string, std::map<std::string, std::string>> settings;  // namespace -> key -> value
  std::map<int, Process> processes;
  std::map<std::string, App> apps;
  // The files the host pushed, by absolute path (only what adb pushes: /data/local/tmp/…).
  std::map<std::string, StoredFile> files;
  int next_install_session = 1392406147;  // PackageInstallerService's session ids (vmdlN.tmp)
  // Install sessions made by install-create and not yet committed or abandoned, by id.
  std::map<int, InstallSession> install_sessions;
  LogcatBuffer logcat;
  int next_pid = 4200;
  int system_server_pid = 0;
  int zygote_pid = 0;

  BatteryState battery;
  BatteryState battery_before_override;  // what `dumpsys battery reset` restores
  bool battery_updates_stopped = false;
  long battery_sequence = 1;  // BatteryService.mSequence: one per change sent
  bool screen_on = true;
  bool keyguard_showing = false;

  LooperStatsModel looper;
  std::chrono::system_clock::time_point last_advance;  // background_activity.h
  double noise_carry = 0;  // fractional noise lines owed from the last advance
  double new_entries_carry = 0;
  long next_binder_lambda = 0;

  FaultState faults;
  // Every input delivered (`input …`, monkey), in order, as devsim-input-log prints them.
  std::vector<std::string> input_log;

 private:
  std::string RandomApkToken();
  void LogBootLines(std::chrono::system_clock::time_point boot);
};

}  // namespace droidlab::devsim
