// Fleet health (issue 17 §3): each phone's health kept over time, and what the lab does about a
// phone that stops answering.
//
// DeviceHealthMonitor checks, every `interval`, each phone this host's registry lists as
// `device`: `cat /proc/uptime` within `recovery.probe_timeout` (does it answer; did it reboot —
// an uptime below the last one), and, when no run is queued or running on it (nothing is asked of
// a phone while it measures), `dumpsys battery` (level, temperature) and `dumpsys
// thermalservice` (status). Each check is stored (store::DeviceHealthSample, schema 0019) with
// the adb commands this daemon sent the phone since the one before: how many, how many failed,
// their round trips (AdbCommandTally, fed by adb::Client's on_device_command).
//
// An idle phone that does not answer, or one adb has listed `offline` for a whole interval,
// climbs the recovery ladder (lab/device_recovery.h); a reboot is a rung only with
// `recovery.allow_reboot` and at most `max_reboots_per_day` per phone. A phone the ladder did not
// bring back is quarantined (store::Store::QuarantineDevice): out of every pool, no run starts on
// it, until an operator releases it (`POST /api/v1/devices/{serial}/release`). Each rung, its
// outcome, a reboot seen, a quarantine and a run failed for a device reason are device events
// (store::DeviceEvent), the device page's history. A phone busy with a run that does not answer
// is noted, not touched: its run fails on its own deadlines, and the next check climbs.
//
// Quarantines are read from the store every `quarantine_sync`, so a release through any daemon
// of the lab reaches the host that holds the phone.
//
//   DeviceHealthMonitor monitor(client, store, registry, {.host = "lab-a", .tally = &tally});
//   asio::co_spawn(io, monitor.Run(), asio::bind_cancellation_slot(stop.slot(), ...));
//   queue.Subscribe([&](const RunEvent& e) { monitor.CountRunEnd(e); });
//
// Threading: Run, CountRunEnd and everything they spawn on the client's executor; Snapshot,
// Quarantined and the tally from any thread. The client, store and registry outlive the monitor;
// destroy it after Run() has returned.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/client.h"
#include "orchestrator/lab/device_recovery.h"
#include "store/store.h"

namespace droidlab::orchestrator {

class DeviceRegistry;
struct RunEvent;

// The adb commands sent to each phone: since the last Take (a health sample's share) and since
// the daemon started (the /metrics counters). Thread-safe.
class AdbCommandTally {
 public:
  struct Counts {
    uint64_t commands = 0;
    uint64_t errors = 0;  // timeouts included
    double seconds = 0;   // round trips summed
  };
  void Count(std::string_view serial, adb::Clock::duration elapsed, bool ok);
  Counts TakeSinceLast(std::string_view serial);
  std::map<std::string, Counts, std::less<>> Totals() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Counts, std::less<>> since_last_;
  std::map<std::string, Counts, std::less<>> totals_;
};

struct DeviceHealthOptions {
  std::string host = "local";  // stored with each sample and event
  std::chrono::milliseconds interval{60'000};
  std::chrono::milliseconds quarantine_sync{5'000};
  RecoveryOptions recovery;
  int max_reboots_per_day = 1;
  // Whether a run is queued or running on the phone (RunQueue::Pending); unset: never.
  std::function<bool(std::string_view serial)> busy;
  AdbCommandTally* tally = nullptr;  // none: samples carry zero commands
  std::function<int64_t()> now_ms;              // default: the wall clock
  std::function<void(std::string_view)> log;    // default: stderr; thread-safe
};

// What /metrics and the API show of a phone's health, since the daemon started.
struct DeviceHealthSnapshot {
  std::string serial;
  std::optional<int64_t> checked_at;  // the last check, ms since the epoch
  std::optional<int64_t> battery_level;
  std::optional<int64_t> battery_temp_tenths;
  std::optional<int64_t> thermal_status;
  bool answering = true;        // the last check got an answer
  bool recovering = false;      // on the ladder now
  uint64_t checks = 0;
  uint64_t unanswered_checks = 0;
  uint64_t reconnects = 0;   // adb listed it `device` again after another state
  uint64_t reboots = 0;      // seen (the uptime went back), whoever rebooted it
  uint64_t runs_failed = 0;  // for a device reason (RunEvent::device_fault)
  uint64_t transport_reconnects = 0;  // ladder rungs taken
  uint64_t device_reconnects = 0;
  uint64_t reboot_requests = 0;
  std::optional<int64_t> quarantined_at;
  std::optional<std::string> quarantine_reason;
};

class DeviceHealthMonitor {
 public:
  DeviceHealthMonitor(adb::Client& client, store::Store& store, DeviceRegistry& registry,
                      DeviceHealthOptions options = {});
  ~DeviceHealthMonitor();
  DeviceHealthMonitor(const DeviceHealthMonitor&) = delete;
  DeviceHealthMonitor& operator=(const DeviceHealthMonitor&) = delete;

  // Checks until cancelled (terminal cancellation), then waits for the checks and ladders it
  // started to end. Spawn on the client's executor; call once.
  boost::asio::awaitable<void> Run();

  // A run ended: one failed for a device reason is counted and becomes a device event. On the
  // client's executor.
  void CountRunEnd(const RunEvent& event);

  // Thread-safe.
  std::vector<DeviceHealthSnapshot> Snapshot() const;  // by serial
  bool Quarantined(std::string_view serial) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::orchestrator
