#include "store/pg/device_writes.h"

#include <string>

#include "store/pg/sql/device_restores.h"
#include "store/pg/sql/devices.h"

namespace droidlab::store::pg::writes {

Status UpsertDevice(Connection& db, const Device& device) {
  Params params;
  params.Text(device.serial)
      .Optional(device.model)
      .Optional(device.manufacturer)
      .Optional(device.sdk)
      .Optional(device.release)
      .Optional(device.abi)
      .Optional(device.fingerprint)
      .Text(device.state)
      .Int64(device.first_seen)
      .Int64(device.last_seen);
  auto result = db.Query(sql::kUpsertDevice, params, "storing device " + device.serial);
  if (!result) return result.error();
  return OkStatus();
}

Status RecordDeviceState(Connection& db, const DeviceStateChange& change) {
  const std::string what = "recording state " + change.state + " of device " + change.serial;
  Params params;
  params.Text(change.serial).Text(change.state).Int64(change.changed_at);
  auto updated = db.Query(sql::kUpdateDeviceState, params, what);
  if (!updated) return updated.error();
  if (updated->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          what + ": device never stored (UpsertDevice first)");
  }
  auto inserted = db.Query(sql::kInsertDeviceStateChange, params, what);
  if (!inserted) return inserted.error();
  return OkStatus();
}

StoreResult<int64_t> InsertDeviceRestore(Connection& db, const DeviceRestore& restore) {
  Params params;
  params.Text(restore.serial)
      .Text(restore.kind)
      .Text(restore.name)
      .Optional(restore.previous)
      .Optional(restore.run_id)
      .Int64(restore.created_at);
  auto result =
      db.Query(sql::kInsertDeviceRestore, params, "recording a restore owed by " + restore.serial);
  if (!result) return result.error();
  return result->Int64(0, "id");
}

Status MarkDeviceRestorePaid(Connection& db, int64_t restore_id, int64_t paid_at) {
  const std::string what = "marking restore " + std::to_string(restore_id) + " paid";
  Params params;
  params.Int64(restore_id).Int64(paid_at);
  auto result = db.Query(sql::kSetDeviceRestorePaid, params, what);
  if (!result) return result.error();
  if (result->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such owed restore");
  }
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
