#include "store/device_health_writes.h"

#include <string>

#include "store/device_writes.h"
#include "store/sql/device_health.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

namespace {

// `event` appended as `kind`: Store's contract names the kind of the event a quarantine and a
// release append, whatever the caller put in the record.
Status AppendEvent(Database& db, const DeviceEvent& event, const std::string& kind) {
  return RunCached(
      db, sql::kInsertDeviceEvent,
      [&](Statement& st) {
        st.BindText(1, event.serial);
        st.BindText(2, event.host);
        st.BindInt64(3, event.at);
        st.BindText(4, kind);
        st.BindText(5, event.detail);
      },
      "recording event " + kind + " of device " + event.serial);
}

// After an update of `serial` that changed no row: kNotFound when the device was never seen,
// else OK (the update found it in the state it left alone).
Status NotFoundUnlessSeen(Database& db, const std::string& serial, const std::string& what) {
  auto exists = DeviceExists(db, serial, what);
  if (!exists) return exists.error();
  if (*exists) return OkStatus();
  return MakeStoreError(StoreErrorCode::kNotFound, "no device " + serial + " has ever been seen");
}

}  // namespace

Status InsertDeviceHealth(Database& db, const DeviceHealthSample& sample) {
  return RunCached(
      db, sql::kInsertDeviceHealth,
      [&](Statement& st) {
        st.BindText(1, sample.serial);
        st.BindText(2, sample.host);
        st.BindInt64(3, sample.at);
        st.BindOptional(4, sample.battery_level);
        st.BindOptional(5, sample.battery_temp);
        st.BindOptional(6, sample.thermal_status);
        st.BindOptional(7, sample.uptime_ms);
        st.BindInt64(8, sample.adb_commands);
        st.BindInt64(9, sample.adb_errors);
        st.BindInt64(10, sample.adb_ms);
      },
      "recording the health of device " + sample.serial);
}

Status InsertDeviceEvent(Database& db, const DeviceEvent& event) {
  return AppendEvent(db, event, event.kind);
}

Status QuarantineDevice(Database& db, const DeviceEvent& event) {
  const std::string what = "quarantining device " + event.serial;
  auto s = RunCached(
      db, sql::kQuarantineDevice,
      [&](Statement& st) {
        st.BindText(1, event.serial);
        st.BindInt64(2, event.at);
        st.BindText(3, event.detail);
      },
      what);
  if (!s) return s;
  if (db.Changes() == 0) {
    // Quarantined already (its first time and reason stay; the event is still history), or
    // never seen.
    if (auto seen = NotFoundUnlessSeen(db, event.serial, what); !seen) return seen;
  }
  return AppendEvent(db, event, "quarantined");
}

Status ReleaseDevice(Database& db, const DeviceEvent& event) {
  const std::string what = "releasing device " + event.serial;
  auto s = RunCached(
      db, sql::kReleaseDevice, [&](Statement& st) { st.BindText(1, event.serial); }, what);
  if (!s) return s;
  if (db.Changes() == 0) {
    if (auto seen = NotFoundUnlessSeen(db, event.serial, what); !seen) return seen;
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "device " + event.serial + " is not quarantined");
  }
  return AppendEvent(db, event, "released");
}

}  // namespace droidlab::store::writes
