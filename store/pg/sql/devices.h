// The PostgreSQL form of ../../sql/devices.h: `devices` and `device_state_changes`
// (schema/postgresql/0001_init.sql). Internal to store/. greatest() for SQLite's two-argument
// max() (last_seen is NOT NULL, so their NULL rules never differ); serials ordered bytewise.
#pragma once

namespace droidlab::store::pg::sql {

#define DROIDLAB_PG_DEVICE_COLUMNS \
  "serial, model, manufacturer, sdk, release, abi, fingerprint, state, first_seen, last_seen"

inline constexpr const char* kUpsertDevice =
    "INSERT INTO devices (" DROIDLAB_PG_DEVICE_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    " ON CONFLICT (serial) DO UPDATE SET model = excluded.model,"
    " manufacturer = excluded.manufacturer, sdk = excluded.sdk, release = excluded.release,"
    " abi = excluded.abi, fingerprint = excluded.fingerprint, state = excluded.state,"
    " last_seen = greatest(devices.last_seen, excluded.last_seen)";

inline constexpr const char* kUpdateDeviceState =
    "UPDATE devices SET state = $2, last_seen = greatest(last_seen, $3) WHERE serial = $1";

inline constexpr const char* kDevices =
    "SELECT " DROIDLAB_PG_DEVICE_COLUMNS " FROM devices ORDER BY serial COLLATE \"C\"";
inline constexpr const char* kDeviceBySerial =
    "SELECT " DROIDLAB_PG_DEVICE_COLUMNS " FROM devices WHERE serial = $1";

#undef DROIDLAB_PG_DEVICE_COLUMNS

inline constexpr const char* kInsertDeviceStateChange =
    "INSERT INTO device_state_changes (serial, state, changed_at) VALUES ($1, $2, $3)";

inline constexpr const char* kDeviceStateChanges =
    "SELECT serial, state, changed_at FROM device_state_changes WHERE serial = $1"
    " ORDER BY changed_at, id";

}  // namespace droidlab::store::pg::sql
