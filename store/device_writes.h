// The writes of `devices`, `device_state_changes`, `device_labels`, `hosts` and
// `device_restores`, applied on the writer's connection inside its open transaction (writer.h).
// Internal to store/: Store wraps each in a write task.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// Whether a device was ever stored (UpsertDevice); the error names `what`. For the writes that
// refuse a device never seen (kNotFound): here and in device_health_writes.h.
StoreResult<bool> DeviceExists(Database& db, std::string_view serial, const std::string& what);
// Inserts or updates by serial; first_seen is kept from the first time.
Status UpsertDevice(Database& db, const Device& device);
// Sets devices.state / last_seen and appends to the history; kNotFound for a device never
// upserted. A change whose host is set, of a device another host holds now, is left out (OK).
Status RecordDeviceState(Database& db, const DeviceStateChange& change);
// `hosts` (schema 0016): registers a host or moves its heartbeat (never backwards).
Status UpsertHost(Database& db, const Host& host);
// Replaces a device's labels (already checked: orchestrator/spec/device_labels.h); kNotFound for
// a device never seen.
Status SetDeviceLabels(Database& db, std::string_view serial,
                       const std::vector<std::string>& labels);
// `device_restores`: a new owed restore (its id), and one marked paid (kNotFound for an unknown
// or already paid one).
StoreResult<int64_t> InsertDeviceRestore(Database& db, const DeviceRestore& restore);
Status MarkDeviceRestorePaid(Database& db, int64_t restore_id, int64_t paid_at);

}  // namespace writes
}  // namespace droidlab::store
