// The SQL of the `devices` and `device_state_changes` tables (schema/0001_init.sql). Internal to
// store/.
#pragma once

namespace droidlab::store::sql {

#define DROIDLAB_DEVICE_COLUMNS \
  "serial, model, manufacturer, sdk, release, abi, fingerprint, state, first_seen, last_seen"

inline constexpr char kUpsertDevice[] =
    "INSERT INTO devices (" DROIDLAB_DEVICE_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    " ON CONFLICT (serial) DO UPDATE SET model = excluded.model,"
    " manufacturer = excluded.manufacturer, sdk = excluded.sdk, release = excluded.release,"
    " abi = excluded.abi, fingerprint = excluded.fingerprint, state = excluded.state,"
    " last_seen = max(last_seen, excluded.last_seen)";

inline constexpr char kUpdateDeviceState[] =
    "UPDATE devices SET state = ?2, last_seen = max(last_seen, ?3) WHERE serial = ?1";

// ReadDevice in reader.cpp reads DROIDLAB_DEVICE_COLUMNS in this order.
inline constexpr char kDevices[] =
    "SELECT " DROIDLAB_DEVICE_COLUMNS " FROM devices ORDER BY serial";
inline constexpr char kDeviceBySerial[] =
    "SELECT " DROIDLAB_DEVICE_COLUMNS " FROM devices WHERE serial = ?1";

#undef DROIDLAB_DEVICE_COLUMNS

inline constexpr char kInsertDeviceStateChange[] =
    "INSERT INTO device_state_changes (serial, state, changed_at) VALUES (?1, ?2, ?3)";

inline constexpr char kDeviceStateChanges[] =
    "SELECT serial, state, changed_at FROM device_state_changes WHERE serial = ?1"
    " ORDER BY changed_at, id";

}  // namespace droidlab::store::sql
