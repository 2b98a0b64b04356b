// The SQL of the `devices` and `device_state_changes` tables (schema/0001_init.sql). Internal to
// store/.
#pragma once

namespace droidlab::store::sql {

#define DROIDLAB_DEVICE_COLUMNS                                                                 \
  "serial, model, manufacturer, sdk, release, abi, fingerprint, state, first_seen, last_seen, " \
  "host"

// A device's host moves with it (coalesce: an upsert that names none keeps the stored one).
inline constexpr char kUpsertDevice[] =
    "INSERT INTO devices (" DROIDLAB_DEVICE_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    " ON CONFLICT (serial) DO UPDATE SET model = excluded.model,"
    " manufacturer = excluded.manufacturer, sdk = excluded.sdk, release = excluded.release,"
    " abi = excluded.abi, fingerprint = excluded.fingerprint, state = excluded.state,"
    " last_seen = max(last_seen, excluded.last_seen), host = coalesce(excluded.host, host)";

// ?4: the host recording the change, or NULL; a device another host holds is left alone.
inline constexpr char kUpdateDeviceState[] =
    "UPDATE devices SET state = ?2, last_seen = max(last_seen, ?3) WHERE serial = ?1"
    " AND (?4 IS NULL OR host IS NULL OR host = ?4)";
inline constexpr char kDeviceExists[] = "SELECT 1 FROM devices WHERE serial = ?1";

// ReadDevice in sqlite_reader.cpp reads DROIDLAB_DEVICE_COLUMNS in this order, then the labels
// joined by newlines (a label has none), sorted there, then the quarantine (schema 0019: set and
// cleared by sql/device_health.h, never by the upsert).
#define DROIDLAB_DEVICE_LABELS \
  ", (SELECT group_concat(label, char(10)) FROM device_labels l WHERE l.serial = devices.serial)"
#define DROIDLAB_DEVICE_QUARANTINE ", quarantined_at, quarantine_reason"
inline constexpr char kDevices[] =
    "SELECT " DROIDLAB_DEVICE_COLUMNS DROIDLAB_DEVICE_LABELS DROIDLAB_DEVICE_QUARANTINE
    " FROM devices ORDER BY serial";
inline constexpr char kDeviceBySerial[] =
    "SELECT " DROIDLAB_DEVICE_COLUMNS DROIDLAB_DEVICE_LABELS DROIDLAB_DEVICE_QUARANTINE
    " FROM devices WHERE serial = ?1";

#undef DROIDLAB_DEVICE_QUARANTINE
#undef DROIDLAB_DEVICE_LABELS
#undef DROIDLAB_DEVICE_COLUMNS

// Labels are replaced whole (schema 0016).
inline constexpr char kDeleteDeviceLabels[] = "DELETE FROM device_labels WHERE serial = ?1";
inline constexpr char kInsertDeviceLabel[] =
    "INSERT INTO device_labels (serial, label) VALUES (?1, ?2)";

// hosts (schema 0016): registered and heartbeat by one upsert.
inline constexpr char kUpsertHost[] =
    "INSERT INTO hosts (name, address, version, started_at, heartbeat_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO UPDATE SET address = excluded.address,"
    " version = excluded.version, started_at = excluded.started_at,"
    " heartbeat_at = max(heartbeat_at, excluded.heartbeat_at)";
inline constexpr char kHosts[] =
    "SELECT name, address, version, started_at, heartbeat_at FROM hosts ORDER BY name";

inline constexpr char kInsertDeviceStateChange[] =
    "INSERT INTO device_state_changes (serial, state, changed_at) VALUES (?1, ?2, ?3)";

inline constexpr char kDeviceStateChanges[] =
    "SELECT serial, state, changed_at FROM device_state_changes WHERE serial = ?1"
    " ORDER BY changed_at, id";

}  // namespace droidlab::store::sql
