// The PostgreSQL form of ../../sql/device_restores.h (schema/postgresql/0002_device_restores.sql).
// Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

inline constexpr const char* kInsertDeviceRestore =
    "INSERT INTO device_restores (serial, kind, name, previous, run_id, created_at)"
    " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id";
inline constexpr const char* kSetDeviceRestorePaid =
    "UPDATE device_restores SET paid_at = $2 WHERE id = $1 AND paid_at IS NULL";

inline constexpr const char* kOwedDeviceRestores =
    "SELECT id, serial, kind, name, previous, run_id, created_at, paid_at FROM device_restores"
    " WHERE serial = $1 AND paid_at IS NULL ORDER BY id";

}  // namespace droidlab::store::pg::sql
