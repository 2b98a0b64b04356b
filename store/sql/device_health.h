// The SQL of `device_health`, `device_events` and the quarantine columns of `devices`
// (schema/0019_device_health.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertDeviceHealth[] =
    "INSERT INTO device_health (serial, host, at, battery_level, battery_temp, thermal_status,"
    " uptime_ms, adb_commands, adb_errors, adb_ms)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

// Newest first (?2: since, ?3: how many): a backward range of device_health_by_serial, whose
// entries end in the rowid, so ties at one time come newest id first without a sort.
inline constexpr char kDeviceHealth[] =
    "SELECT id, serial, host, at, battery_level, battery_temp, thermal_status, uptime_ms,"
    " adb_commands, adb_errors, adb_ms FROM device_health WHERE serial = ?1 AND at >= ?2"
    " ORDER BY at DESC, id DESC LIMIT ?3";

inline constexpr char kInsertDeviceEvent[] =
    "INSERT INTO device_events (serial, host, at, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5)";

inline constexpr char kDeviceEvents[] =
    "SELECT id, serial, host, at, kind, detail FROM device_events WHERE serial = ?1"
    " ORDER BY at DESC, id DESC LIMIT ?2";

// Only a device not quarantined yet changes: a second quarantine keeps the first time and
// reason. No row changed is then either that or a device never seen (device_health_writes.cpp
// tells which).
inline constexpr char kQuarantineDevice[] =
    "UPDATE devices SET quarantined_at = ?2, quarantine_reason = ?3"
    " WHERE serial = ?1 AND quarantined_at IS NULL";
// Only a quarantined device changes (no row changed: not quarantined, or never seen).
inline constexpr char kReleaseDevice[] =
    "UPDATE devices SET quarantined_at = NULL, quarantine_reason = NULL"
    " WHERE serial = ?1 AND quarantined_at IS NOT NULL";

// Retention (retention.cpp): samples and events older than max_age go with the runs of their
// time (device_health_by_at, device_events_by_at).
inline constexpr char kDeleteDeviceHealthBefore[] = "DELETE FROM device_health WHERE at < ?1";
inline constexpr char kDeleteDeviceEventsBefore[] = "DELETE FROM device_events WHERE at < ?1";

}  // namespace droidlab::store::sql
