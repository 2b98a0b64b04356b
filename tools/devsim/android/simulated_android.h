// One simulated Android device as the transport sees it: a command runner that prints what
// the configured SDK's tools print, a clock that makes things happen while time passes, and
// faults a test can inject. The state lives in device_state.h, the commands in one file per
// family (command_handlers.h), looked up by name in command_table.h.
// Not thread-safe: one device lives on one io_context thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tools/devsim/android/device_state.h"
#include "tools/devsim/android/fault_injection.h"
#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

class SimulatedAndroid : public CommandRunner {
 public:
  using WallClock = devsim::WallClock;
  using Options = DeviceOptions;
  using UnplugHandler = devsim::UnplugHandler;
  using RefuseAuthHandler = devsim::RefuseAuthHandler;

  SimulatedAndroid(Scenario scenario, Options options, WallClock clock);
  explicit SimulatedAndroid(Scenario scenario)
      : SimulatedAndroid(std::move(scenario), Options{}, std::chrono::system_clock::now) {}

  // Lets time pass up to now, runs the command, then applies any fault that matches it.
  CommandOutput Run(const std::vector<std::string>& argv) override;
  void ProcessStarted() override { ++device_.processes_started; }
  // adbd forked a shell for a command the host sent.
  void ShellServiceStarted() {
    ++device_.shell_services;
    ProcessStarted();
  }

  // A streamed install's bytes have all come (`argv`: "cmd package install … -S N"): the package
  // manager's answer, with faults applied as to any command.
  CommandOutput RunStreamedInstall(const std::vector<std::string>& argv, const StoredFile& file);
  // A stream whose command line is `argv` starts: true when a `devsim-fault hang` matches it
  // (used up), and the device then takes none of its bytes.
  bool StallsStream(const std::vector<std::string>& argv);
  // A pushed file lands (sync: DONE).
  void StoreFile(const std::string& path, StoredFile file) {
    device_.files[path] = std::move(file);
  }
  // A pushed file, or nullptr.
  const StoredFile* FindFile(const std::string& path) const {
    const auto it = device_.files.find(path);
    return it == device_.files.end() ? nullptr : &it->second;
  }

  // Time passes on the device: background log lines, system_server's looper messages,
  // scheduled faults. The transport calls it a few times a second; Run calls it first.
  void Tick();

  // What the transport does on `devsim-fault unplug MS` (fault_injection.h).
  void SetUnplugHandler(UnplugHandler handler) {
    device_.faults.unplug_handler = std::move(handler);
  }
  // What the transport does on `devsim-fault unauthorized MS` (fault_injection.h).
  void SetRefuseAuthHandler(RefuseAuthHandler handler) {
    device_.faults.refuse_auth_handler = std::move(handler);
  }

  // The host connected (CNXN): a `devsim-fault wedge transport` ends.
  void TransportConnected() { OnTransportConnected(device_.faults); }
  // adbd's `reconnect` service (packages/modules/adb/daemon/services.cpp reconnect_service): a
  // wedge until "transport" or "device" ends; the transport then drops its connections.
  void AdbdReconnect() { OnAdbdReconnect(device_.faults); }
  // adbd's `reboot:` service (/system/bin/reboot): the phone restarts as under `devsim-fault
  // reboot` with its defaults (3 s off the wire, services 3 s after).
  void RebootRequested();

  // "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…"
  std::string ConnectBanner() const;
  const Scenario& scenario() const { return device_.scenario; }
  LogcatBuffer& logcat() { return device_.logcat; }

  // Seconds since boot, as /proc/uptime's first field.
  double UptimeSeconds() const { return device_.UptimeSeconds(); }

 private:
  DeviceState device_;
};

}  // namespace droidlab::devsim
