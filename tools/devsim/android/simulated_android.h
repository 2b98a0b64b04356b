// One simulated Android device: its properties, settings, processes, log and apps, and the
// commands that read and change them, printing what the configured SDK's tools print.
// Not thread-safe: one device lives on one io_context thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tools/devsim/android/launch_formats.h"
#include "tools/devsim/android/logcat_buffer.h"
#include "tools/devsim/android/looper_stats.h"
#include "tools/devsim/android/scenario.h"
#include "tools/devsim/android/service_dumps.h"
#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

class SimulatedAndroid : public CommandRunner {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;

  struct Options {
    // am start -W blocks for its WaitTime, as on a phone. Off: it answers at once (the log
    // and the printed times are the same either way).
    bool realtime_launches = true;
  };

  SimulatedAndroid(Scenario scenario, Options options, WallClock clock);
  explicit SimulatedAndroid(Scenario scenario)
      : SimulatedAndroid(std::move(scenario), Options{}, std::chrono::system_clock::now) {}

  CommandOutput Run(const std::vector<std::string>& argv) override;

  // Time passes on the device: background log lines, system_server's looper messages,
  // scheduled faults. The transport calls it a few times a second; Run calls it first.
  void Tick();

  // What the transport does on `devsim-fault unplug MS`: close every connection and refuse
  // new ones for MS milliseconds, then listen again (the adb server reconnects by itself).
  using UnplugHandler = std::function<void(std::chrono::milliseconds)>;
  void SetUnplugHandler(UnplugHandler handler) { unplug_handler_ = std::move(handler); }

  // "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…"
  std::string ConnectBanner() const;
  const Scenario& scenario() const { return scenario_; }
  LogcatBuffer& logcat() { return logcat_; }

  // Seconds since boot, as /proc/uptime's first field.
  double UptimeSeconds() const;

 private:
  struct Process {
    int pid = 0;
    std::string name;  // process name (package name for apps): /proc/PID/stat comm source
    std::string cmdline;  // argv[0] when it differs from name (zygote64 for comm "main")
    int uid = 0;
    int ppid = 0;
    long start_ticks = 0;  // clock ticks (100 Hz) after boot: /proc/PID/stat field 22
  };
  enum class ActivityState { kNone, kForeground, kBackground, kDestroyed };
  struct App {
    PackageSpec spec;
    std::string apk_path;
    int pid = 0;  // 0: not running
    ActivityState activity = ActivityState::kNone;
  };

  CommandOutput Getprop(const std::vector<std::string>& argv);
  CommandOutput Settings(const std::vector<std::string>& argv);
  CommandOutput Pidof(const std::vector<std::string>& argv);
  CommandOutput Date(const std::vector<std::string>& argv);
  CommandOutput Getconf(const std::vector<std::string>& argv);
  CommandOutput Cat(const std::vector<std::string>& argv);
  CommandOutput Am(const std::vector<std::string>& argv);
  CommandOutput AmStart(const std::vector<std::string>& argv);
  CommandOutput Pm(const std::vector<std::string>& argv);
  CommandOutput Logcat(const std::vector<std::string>& argv);
  CommandOutput Input(const std::vector<std::string>& argv);
  CommandOutput Wm(const std::vector<std::string>& argv);
  CommandOutput Dumpsys(const std::vector<std::string>& argv);
  CommandOutput Cmd(const std::vector<std::string>& argv);
  CommandOutput LooperStatsCommand(const std::vector<std::string>& args);
  CommandOutput BatteryCommand(const std::vector<std::string>& args, bool from_dumpsys);
  CommandOutput PackageDump(const std::string& package);
  CommandOutput ResolveActivity(const std::vector<std::string>& args);
  CommandOutput Ps(const std::vector<std::string>& argv);
  CommandOutput Fault(const std::vector<std::string>& argv);
  CommandOutput RunUnfaulted(const std::vector<std::string>& argv);
  void ApplyFaults(const std::vector<std::string>& argv, CommandOutput& output);

  bool Charging() const { return battery_.Plugged(); }
  void Advance(std::chrono::system_clock::time_point now);
  void AddNoise(std::chrono::system_clock::time_point from, std::chrono::system_clock::time_point to);
  void DispatchLooper(const LooperMessageKind& kind, long count, double mean_latency_us);
  void LooperForLaunch(const App& app, LaunchState state, long total_ms);
  std::string MapUid(int uid) const;
  void SettingChanged(const std::string& ns, const std::string& key);
  App* FindApp(const std::string& package);
  void ForceStop(App& app);
  int StartProcess(const std::string& name, int uid, int ppid, long start_ticks);
  std::string ProcStat(const Process& process) const;
  long SampleMillis(const LaunchTimeDistribution& distribution);
  void Log(std::chrono::system_clock::time_point time, int pid, int tid, char priority,
           std::string tag, std::string message, LogBufferId buffer);
  std::string RandomApkToken();

  Scenario scenario_;
  Options options_;
  WallClock clock_;
  std::chrono::system_clock::time_point created_;
  std::mt19937_64 rng_;
  std::map<std::string, std::string> properties_;
  std::map<std::string, std::map<std::string, std::string>> settings_;  // namespace -> key -> value
  std::map<int, Process> processes_;
  std::map<std::string, App> apps_;
  LogcatBuffer logcat_;
  int next_pid_ = 4200;
  BatteryState battery_;
  bool screen_on_ = true;
  bool keyguard_showing_ = false;
  BatteryState battery_before_override_;  // what `dumpsys battery reset` restores
  bool battery_updates_stopped_ = false;
  long battery_sequence_ = 1;  // BatteryService.mSequence: one per change sent
  LooperStatsModel looper_;
  std::chrono::system_clock::time_point last_advance_;
  double noise_carry_ = 0;       // fractional noise lines owed from the last Advance
  double new_entries_carry_ = 0;
  long next_binder_lambda_ = 0;
  struct ActiveFault {
    std::string kind;    // hang, truncate, slow
    std::string prefix;  // the command line it applies to starts with this
    long value = 0;      // truncate: bytes kept; slow: milliseconds per 1 KiB
    long remaining = 1;  // how many more commands it applies to
  };
  std::vector<ActiveFault> faults_;
  std::size_t next_scheduled_fault_ = 0;
  UnplugHandler unplug_handler_;
  int system_server_pid_ = 0;
  int zygote_pid_ = 0;
};

}  // namespace droidlab::devsim
