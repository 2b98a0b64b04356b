#include "store/pg/device_health_writes.h"

#include <string>

#include "store/pg/device_writes.h"
#include "store/pg/sql/device_health.h"

namespace droidlab::store::pg::writes {

namespace {

// `event` appended as `kind`, as ../device_health_writes.cpp's.
Status AppendEvent(Connection& db, const DeviceEvent& event, const std::string& kind) {
  Params params;
  params.Text(event.serial).Text(event.host).Int64(event.at).Text(kind).Text(event.detail);
  auto result = db.Query(sql::kInsertDeviceEvent, params,
                         "recording event " + kind + " of device " + event.serial);
  if (!result) return result.error();
  return OkStatus();
}

// After an update of `serial` that changed no row: kNotFound when the device was never seen.
Status NotFoundUnlessSeen(Connection& db, const std::string& serial, const std::string& what) {
  auto exists = DeviceExists(db, serial, what);
  if (!exists) return exists.error();
  if (*exists) return OkStatus();
  return MakeStoreError(StoreErrorCode::kNotFound, "no device " + serial + " has ever been seen");
}

}  // namespace

Status InsertDeviceHealth(Connection& db, const DeviceHealthSample& sample) {
  Params params;
  params.Text(sample.serial)
      .Text(sample.host)
      .Int64(sample.at)
      .Optional(sample.battery_level)
      .Optional(sample.battery_temp)
      .Optional(sample.thermal_status)
      .Optional(sample.uptime_ms)
      .Int64(sample.adb_commands)
      .Int64(sample.adb_errors)
      .Int64(sample.adb_ms);
  auto result =
      db.Query(sql::kInsertDeviceHealth, params, "recording the health of device " + sample.serial);
  if (!result) return result.error();
  return OkStatus();
}

Status InsertDeviceEvent(Connection& db, const DeviceEvent& event) {
  return AppendEvent(db, event, event.kind);
}

Status QuarantineDevice(Connection& db, const DeviceEvent& event) {
  const std::string what = "quarantining device " + event.serial;
  Params params;
  params.Text(event.serial).Int64(event.at).Text(event.detail);
  auto updated = db.Query(sql::kQuarantineDevice, params, what);
  if (!updated) return updated.error();
  if (updated->affected() == 0) {
    // Quarantined already (its first time and reason stay), or never seen.
    if (auto seen = NotFoundUnlessSeen(db, event.serial, what); !seen) return seen;
  }
  return AppendEvent(db, event, "quarantined");
}

Status ReleaseDevice(Connection& db, const DeviceEvent& event) {
  const std::string what = "releasing device " + event.serial;
  Params params;
  params.Text(event.serial);
  auto updated = db.Query(sql::kReleaseDevice, params, what);
  if (!updated) return updated.error();
  if (updated->affected() == 0) {
    if (auto seen = NotFoundUnlessSeen(db, event.serial, what); !seen) return seen;
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "device " + event.serial + " is not quarantined");
  }
  return AppendEvent(db, event, "released");
}

}  // namespace droidlab::store::pg::writes
