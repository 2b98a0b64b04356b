// DeviceRegistry: the lab's view of its devices. Follows adb's device tracking
// (adb::Client::TrackDevices); when a device becomes `device` (or comes back with a new
// transport) it reads its properties with one `getprop` and records, through store::Store, the
// device (first_seen kept by the store, last_seen moved) and every state change: adb's states
// (device, offline, unauthorized, ...) and `disconnected` when a serial leaves adb's list. On
// the first list after (re)connecting to the adb server it also reads the store's devices: any
// that adb does not list and this registry does not track (left `device` by an earlier daemon)
// is recorded `disconnected` with a state change, so the API never lists a phone as present
// that adb does not know.
//
//   DeviceRegistry registry(client, store);               // client runs on `io`
//   asio::co_spawn(io, registry.Run(), asio::bind_cancellation_slot(stop.slot(), ...));
//   ... registry.Snapshot() / registry.Find(serial) from any thread ...
//   stop.emit(asio::cancellation_type::terminal);         // Run ends after its reads end
//
// Threading: Run() and everything it spawns run on the client's executor (one thread or
// strand, as adb::Client requires). The store's calls (UpsertDevice and RecordDeviceState wait
// for room in the store's queue) go through the store's awaitable door (store/async_store.h):
// they never block that thread, and the registry owns no thread of its own. Snapshot() and
// Find() are thread-safe.
//
// Properties: read with a deadline (options.getprop_timeout), one read per device at a time,
// devices independent of each other (a hung device never delays another's record). A failed
// read (adb error, timeout, output getprop would not print) keeps the device's state and its
// last known properties, is kept in the snapshot (properties_error) and logged, and is retried
// on the device's next change. Reads that finish after the device changed again are dropped.
//
// Lifetime: the client and the store must outlive the registry; destroy the registry only after
// Run() has ended (cancel it and let the io_context run until it completes).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/client.h"
#include "parsers/device_properties.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

// What `getprop` told about a device (parsers/device_properties.h: model, manufacturer, sdk,
// release, abi, fingerprint, serialno; absent when missing or empty).
using DeviceProperties = parsers::DeviceProperties;

// The properties from a `getprop` dump. Pure. Errors as parsers::ParseGetprop, as one line.
BasicResult<DeviceProperties, std::string> DevicePropertiesFromGetprop(std::string_view output);

struct DeviceSnapshot {
  std::string serial;  // adb's serial
  std::string state;   // adb's state text ("device", "offline", ...) or "disconnected"
  std::optional<DeviceProperties> properties;   // the last successful read
  std::optional<std::string> properties_error;  // why the last read failed; cleared by success
  int64_t first_seen = 0;  // by this registry (the store keeps the first ever)
  int64_t last_seen = 0;
  int64_t state_changes = 0;  // seen by this registry
  int64_t property_reads = 0;  // attempts
};

struct DeviceRegistryOptions {
  std::chrono::milliseconds getprop_timeout{10000};
  // Wall clock in ms since the epoch (tests may pin it).
  std::function<int64_t()> now_ms;
  // One line per event worth a log (failed reads, store errors, tracking lost). Called on the
  // io thread or the store's writer thread: must be thread-safe. Default: stderr.
  std::function<void(std::string_view)> log;
  // Awaited on the client's executor after a device came online and its properties were read
  // (the daemon pays owed looper_stats restores there). Bound by its own deadline: Run() waits
  // for it when stopping. May be empty.
  std::function<boost::asio::awaitable<void>(std::string serial)> on_online;
  // This daemon's host (schema 0016, issue 17 §2): each device is stored as held by it, and its
  // state changes are recorded only while no other host holds it. On a store several hosts
  // share, the start-up sweep below leaves other hosts' devices alone. Empty: one host (tests).
  std::optional<std::string> host;
  // How often adb's list is also asked for (host:devices-l) besides the tracking stream: adb 29's
  // track-devices never tells that a network phone went `offline` (transport.cpp updates its
  // trackers when a transport is registered or removed; a broken connection only goes offline
  // and waits to reconnect), so a pulled phone would stay `device` here while `adb devices` says
  // `offline`. A state the list shows that differs from the registry's is taken as a change. 0:
  // never.
  std::chrono::milliseconds list_poll{5000};
};

class DeviceRegistry {
 public:
  DeviceRegistry(adb::Client& client, store::Store& store, DeviceRegistryOptions options = {});
  ~DeviceRegistry();
  DeviceRegistry(const DeviceRegistry&) = delete;
  DeviceRegistry& operator=(const DeviceRegistry&) = delete;

  // Tracks devices until cancelled (terminal cancellation of the awaiting coroutine; the result
  // is then kCancelled) and returns after the property reads it started have ended. Spawn it on
  // the client's executor. Call once.
  boost::asio::awaitable<adb::Result<void>> Run();

  // Thread-safe copies.
  std::vector<DeviceSnapshot> Snapshot() const;  // by serial
  std::optional<DeviceSnapshot> Find(std::string_view serial) const;
  // Listeners for every change of a device, called on the client's executor once the store has
  // taken the change (its writer commits it in its next batch): a state change (connected, adb's states, `disconnected`) and each successful or
  // failed property read (the model and SDK known, or why not). Returns an id for Unsubscribe.
  // The API publishes these on its event stream, as it does the run queue's RunEvents.
  uint64_t Subscribe(std::function<void(const DeviceSnapshot&)> listener);
  void Unsubscribe(uint64_t id);

  // How many device lists from adb the registry has handled (for tests and health).
  uint64_t updates_handled() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::orchestrator
