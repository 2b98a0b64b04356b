// The writes of `devices`, `device_state_changes` and `device_restores`, applied on the writer's
// connection inside its open transaction (writer.h). Internal to store/: Store wraps each in a
// write task.
#pragma once

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// Inserts or updates by serial; first_seen is kept from the first time.
Status UpsertDevice(Database& db, const Device& device);
// Sets devices.state / last_seen and appends to the history; kNotFound for a device never
// upserted.
Status RecordDeviceState(Database& db, const DeviceStateChange& change);
// `device_restores`: a new owed restore (its id), and one marked paid (kNotFound for an unknown
// or already paid one).
StoreResult<int64_t> InsertDeviceRestore(Database& db, const DeviceRestore& restore);
Status MarkDeviceRestorePaid(Database& db, int64_t restore_id, int64_t paid_at);

}  // namespace writes
}  // namespace droidlab::store
