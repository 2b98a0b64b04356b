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
#include "tools/devsim/android/scenario.h"
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

  // "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…"
  std::string ConnectBanner() const;
  const Scenario& scenario() const { return scenario_; }
  LogcatBuffer& logcat() { return logcat_; }

  // Seconds since boot, as /proc/uptime's first field.
  double UptimeSeconds() const;

 private:
  struct Process {
    int pid = 0;
    std::string name;  // process name (package name for apps)
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
  CommandOutput Cat(const std::vector<std::string>& argv);
  CommandOutput Am(const std::vector<std::string>& argv);
  CommandOutput AmStart(const std::vector<std::string>& argv);
  CommandOutput Pm(const std::vector<std::string>& argv);
  CommandOutput Logcat(const std::vector<std::string>& argv);
  CommandOutput Input(const std::vector<std::string>& argv);

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
  int system_server_pid_ = 0;
  int zygote_pid_ = 0;
};

}  // namespace droidlab::devsim
