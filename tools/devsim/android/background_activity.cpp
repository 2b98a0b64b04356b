#include "tools/devsim/android/background_activity.h"

#include <iterator>
#include <string>
#include <vector>

#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

// system_server's own handlers (android.anim, android.display, ActivityManager…) at rates of
// an idle phone, plus binder calls posting lambdas, each a new entry, towards the entry cap.
void DispatchSystemServerLooper(DeviceState& device, double seconds) {
  const int sdk = device.scenario.device.sdk;
  const std::string lambda = sdk >= 31 ? "$$ExternalSyntheticLambda0" : "$$Lambda$1";
  struct Background {
    LooperMessageKind kind;
    double per_second;
    double mean_latency_us;
  };
  const std::vector<Background> background = {
      {{-1, "ActivityManager", "com.android.server.am.ActivityManagerService$MainHandler", "0x21"},
       0.4,
       850},
      {{-1, "PowerManagerService", "android.os.Handler", "0x2"}, 0.6, 190},
      {{-1, "android.anim", "android.view.Choreographer$FrameHandler",
        "android.view.Choreographer$FrameDisplayEventReceiver"},
       6,
       1400},
      {{-1, "android.bg", "com.android.server.job.JobSchedulerService$JobHandler", "0x1"},
       0.2,
       2100},
      {{-1, "android.display",
        sdk >= 34 ? "com.android.server.display.DisplayPowerController2$DisplayControllerHandler"
                  : "com.android.server.display.DisplayPowerController$DisplayControllerHandler",
        "0x1"},
       1.0,
       390},
      {{-1, "android.fg", "android.os.Handler",
        "com.android.server.am.ActivityManagerService$LocalService" + lambda},
       0.3,
       310},
      {{1000, "PowerManagerService", "android.os.Handler",
        "com.android.server.power.Notifier" + lambda},
       0.2,
       400},
      {{1041, "android.ui", "com.android.server.policy.PhoneWindowManager$PolicyHandler", "0x3"},
       0.1,
       120},
  };
  for (const auto& b : background) {
    std::poisson_distribution<long> count(b.per_second * seconds);
    device.DispatchLooper(b.kind, count(device.rng), b.mean_latency_us);
  }
  device.new_entries_carry += device.scenario.looper_new_entries_per_s * seconds;
  for (; device.new_entries_carry >= 1; device.new_entries_carry -= 1) {
    const long n = device.next_binder_lambda++;
    device.DispatchLooper(
        {-1,
         "binder:" + std::to_string(device.system_server_pid) + "_" + std::to_string(2 + n % 14),
         "android.os.Handler", "com.android.server.Binder" + std::to_string(n) + lambda},
        1, 95);
  }
}

// Log lines at noise_lines_per_s, spread evenly over [from, to]; the fraction of a line owed
// carries over, so many short steps log as much as one long one.
void AddNoise(DeviceState& device, std::chrono::system_clock::time_point from,
              std::chrono::system_clock::time_point to) {
  struct NoiseSource {
    int pid;  // index into pids below
    char priority;
    const char* tag;
    const char* message;
    LogBufferId buffer;
  };
  // Lines of the kinds a resting phone logs, ~120 bytes each as threadtime.
  static const NoiseSource kSources[] = {
      {0, 'D', "WifiHAL",
       "getWifiLinkLayerStats: iface wlan0 rssi=-52 tx_mpdu=18423 rx_mpdu=21790 retries=12",
       LogBufferId::kMain},
      {0, 'I', "chatty", "uid=10141(com.google.android.gms) GoogleApiHandle identical 3 lines",
       LogBufferId::kMain},
      {1, 'D', "BatteryService",
       "Processing new values: info=HealthInfo{chargerUsbOnline=true, batteryLevel=85}",
       LogBufferId::kSystem},
      {1, 'I', "PowerManagerService",
       "Waking up from Dozing (uid=1000, reason=WAKE_REASON_APPLICATION)...", LogBufferId::kSystem},
      {2, 'D', "NetworkMonitor/102",
       "PROBE_DNS connectivitycheck.gstatic.com 21ms OK 142.250.74.99", LogBufferId::kMain},
      {0, 'W', "ThermalHAL",
       "sensor VIRTUAL-SKIN: 33.2C below threshold 39.0C, status NONE, polling 5000ms",
       LogBufferId::kMain},
      {1, 'I', "ActivityManager", "Changes in 10141 11 to 9, 0 to 0", LogBufferId::kSystem},
      {2, 'V', "GCoreUlr",
       "Location batch uploaded: 4 samples, accuracy 12.0m, elapsed 30012ms, next in 300s",
       LogBufferId::kMain},
  };
  device.noise_carry +=
      device.scenario.noise_lines_per_s * std::chrono::duration<double>(to - from).count();
  const long lines = static_cast<long>(device.noise_carry);
  device.noise_carry -= static_cast<double>(lines);
  if (lines <= 0) return;
  const auto span = to - from;
  const int pids[] = {892, device.system_server_pid, 2711};
  for (long i = 0; i < lines; ++i) {
    const NoiseSource& source = kSources[device.rng() % std::size(kSources)];
    const auto when = from + span * (i + 1) / (lines + 1);
    const int pid = pids[source.pid];
    device.Log(std::chrono::time_point_cast<milliseconds>(when), pid,
               pid + static_cast<int>(device.rng() % 60), source.priority, source.tag,
               source.message, source.buffer);
  }
}

}  // namespace

void AdvanceDeviceTo(DeviceState& device, std::chrono::system_clock::time_point now) {
  device.FinishBootIfDue(now);
  // BatteryService reports the heated temperature unless `dumpsys battery set/unplug` froze it.
  if (!device.battery_updates_stopped) device.battery.temperature = device.HeatedBatteryTemperature();
  if (now <= device.last_advance) return;
  const auto from = device.last_advance;
  device.last_advance = now;
  const auto elapsed = std::chrono::duration_cast<milliseconds>(now - from);
  const double seconds = std::chrono::duration<double>(now - from).count();
  device.looper.AdvanceTime(elapsed, device.Charging());
  if (device.looper.Collecting(device.Charging())) DispatchSystemServerLooper(device, seconds);
  AddNoise(device, from, now);
  RunScheduledFaults(device, now);
}

}  // namespace droidlab::devsim
