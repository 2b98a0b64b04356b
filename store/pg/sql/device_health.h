// The PostgreSQL form of ../../sql/device_health.h (schema/postgresql/0019_device_health.sql).
// Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

inline constexpr const char* kInsertDeviceHealth =
    "INSERT INTO device_health (serial, host, at, battery_level, battery_temp, thermal_status,"
    " uptime_ms, adb_commands, adb_errors, adb_ms)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

inline constexpr const char* kDeviceHealth =
    "SELECT id, serial, host, at, battery_level, battery_temp, thermal_status, uptime_ms,"
    " adb_commands, adb_errors, adb_ms FROM device_health WHERE serial = $1 AND at >= $2"
    " ORDER BY at DESC, id DESC LIMIT $3";

inline constexpr const char* kInsertDeviceEvent =
    "INSERT INTO device_events (serial, host, at, kind, detail) VALUES ($1, $2, $3, $4, $5)";

inline constexpr const char* kDeviceEvents =
    "SELECT id, serial, host, at, kind, detail FROM device_events WHERE serial = $1"
    " ORDER BY at DESC, id DESC LIMIT $2";

inline constexpr const char* kQuarantineDevice =
    "UPDATE devices SET quarantined_at = $2, quarantine_reason = $3"
    " WHERE serial = $1 AND quarantined_at IS NULL";
inline constexpr const char* kReleaseDevice =
    "UPDATE devices SET quarantined_at = NULL, quarantine_reason = NULL"
    " WHERE serial = $1 AND quarantined_at IS NOT NULL";

inline constexpr const char* kDeleteDeviceHealthBefore = "DELETE FROM device_health WHERE at < $1";
inline constexpr const char* kDeleteDeviceEventsBefore = "DELETE FROM device_events WHERE at < $1";

}  // namespace droidlab::store::pg::sql
