// The writes of `devices` and `device_state_changes`, applied on the writer's connection inside
// its open transaction (writer.h). Internal to store/: Store wraps each in a write task.
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

}  // namespace writes
}  // namespace droidlab::store
