// The PostgreSQL form of ../device_writes.h: `devices`, `device_state_changes`,
// `device_labels`, `hosts` and `device_restores`. Same arguments (a pg::Connection for the
// Database), results and error codes; each runs inside its caller's transaction. Internal to
// store/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

// Whether a device was ever stored, as ../device_writes.h.
StoreResult<bool> DeviceExists(Connection& db, std::string_view serial, const std::string& what);
// Inserts or updates by serial; first_seen is kept from the first time.
Status UpsertDevice(Connection& db, const Device& device);
// Sets devices.state / last_seen and appends to the history; kNotFound for a device never
// upserted; a change whose host is set, of a device another host holds now, is left out (OK).
Status RecordDeviceState(Connection& db, const DeviceStateChange& change);
// `hosts` and `device_labels` (schema 0016), as ../device_writes.h.
Status UpsertHost(Connection& db, const Host& host);
Status SetDeviceLabels(Connection& db, std::string_view serial,
                       const std::vector<std::string>& labels);
// `device_restores`: a new owed restore (its id), and one marked paid (kNotFound for an unknown
// or already paid one).
StoreResult<int64_t> InsertDeviceRestore(Connection& db, const DeviceRestore& restore);
Status MarkDeviceRestorePaid(Connection& db, int64_t restore_id, int64_t paid_at);

}  // namespace droidlab::store::pg::writes
