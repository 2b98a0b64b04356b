// The SQL of the `device_restores` table (schema/0002_device_restores.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertDeviceRestore[] =
    "INSERT INTO device_restores (serial, kind, name, previous, run_id, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
inline constexpr char kSetDeviceRestorePaid[] =
    "UPDATE device_restores SET paid_at = ?2 WHERE id = ?1 AND paid_at IS NULL";

// ReadDeviceRestore in reader.cpp reads these columns in this order.
inline constexpr char kOwedDeviceRestores[] =
    "SELECT id, serial, kind, name, previous, run_id, created_at, paid_at FROM device_restores"
    " WHERE serial = ?1 AND paid_at IS NULL ORDER BY id";

}  // namespace droidlab::store::sql
