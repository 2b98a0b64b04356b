// The PostgreSQL form of ../../sql/devices.h: `devices` and `device_state_changes`
// (schema/postgresql/0001_init.sql). Internal to store/. greatest() for SQLite's two-argument
// max() (last_seen is NOT NULL, so their NULL rules never differ); serials ordered bytewise.
#pragma once

namespace droidlab::store::pg::sql {

#define DROIDLAB_PG_DEVICE_COLUMNS                                                              \
  "serial, model, manufacturer, sdk, release, abi, fingerprint, state, first_seen, last_seen, " \
  "host"

inline constexpr const char* kUpsertDevice =
    "INSERT INTO devices (" DROIDLAB_PG_DEVICE_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    " ON CONFLICT (serial) DO UPDATE SET model = excluded.model,"
    " manufacturer = excluded.manufacturer, sdk = excluded.sdk, release = excluded.release,"
    " abi = excluded.abi, fingerprint = excluded.fingerprint, state = excluded.state,"
    " last_seen = greatest(devices.last_seen, excluded.last_seen),"
    " host = coalesce(excluded.host, devices.host)";

inline constexpr const char* kUpdateDeviceState =
    "UPDATE devices SET state = $2, last_seen = greatest(last_seen, $3) WHERE serial = $1"
    " AND ($4::text IS NULL OR host IS NULL OR host = $4::text)";
inline constexpr const char* kDeviceExists = "SELECT 1 FROM devices WHERE serial = $1";

// The labels joined by newlines as SQLite's group_concat gives them (split and sorted by
// SplitDeviceLabels), then the quarantine (schema 0019: set and cleared by sql/device_health.h,
// never by the upsert).
#define DROIDLAB_PG_DEVICE_LABELS                            \
  ", (SELECT string_agg(label, E'\\n') FROM device_labels l" \
  " WHERE l.serial = devices.serial) AS labels"
#define DROIDLAB_PG_DEVICE_QUARANTINE ", quarantined_at, quarantine_reason"
inline constexpr const char* kDevices =
    "SELECT " DROIDLAB_PG_DEVICE_COLUMNS DROIDLAB_PG_DEVICE_LABELS DROIDLAB_PG_DEVICE_QUARANTINE
    " FROM devices ORDER BY serial COLLATE \"C\"";
inline constexpr const char* kDeviceBySerial =
    "SELECT " DROIDLAB_PG_DEVICE_COLUMNS DROIDLAB_PG_DEVICE_LABELS DROIDLAB_PG_DEVICE_QUARANTINE
    " FROM devices WHERE serial = $1";

#undef DROIDLAB_PG_DEVICE_QUARANTINE
#undef DROIDLAB_PG_DEVICE_LABELS
#undef DROIDLAB_PG_DEVICE_COLUMNS

inline constexpr const char* kDeleteDeviceLabels = "DELETE FROM device_labels WHERE serial = $1";
inline constexpr const char* kInsertDeviceLabel =
    "INSERT INTO device_labels (serial, label) VALUES ($1, $2)";

inline constexpr const char* kUpsertHost =
    "INSERT INTO hosts (name, address, version, started_at, heartbeat_at)"
    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET address = excluded.address,"
    " version = excluded.version, started_at = excluded.started_at,"
    " heartbeat_at = greatest(hosts.heartbeat_at, excluded.heartbeat_at)";
inline constexpr const char* kHosts =
    "SELECT name, address, version, started_at, heartbeat_at FROM hosts"
    " ORDER BY name COLLATE \"C\"";

inline constexpr const char* kInsertDeviceStateChange =
    "INSERT INTO device_state_changes (serial, state, changed_at) VALUES ($1, $2, $3)";

inline constexpr const char* kDeviceStateChanges =
    "SELECT serial, state, changed_at FROM device_state_changes WHERE serial = $1"
    " ORDER BY changed_at, id";

}  // namespace droidlab::store::pg::sql
