#include "store/pg/device_writes.h"

#include <string>

#include "store/pg/sql/device_restores.h"
#include "store/pg/sql/devices.h"

namespace droidlab::store::pg::writes {

StoreResult<bool> DeviceExists(Connection& db, std::string_view serial, const std::string& what) {
  Params params;
  params.Text(serial);
  auto result = db.Query(sql::kDeviceExists, params, what);
  if (!result) return result.error();
  return result->rows() > 0;
}

Status UpsertHost(Connection& db, const Host& host) {
  Params params;
  params.Text(host.name)
      .Text(host.address)
      .Text(host.version)
      .Int64(host.started_at)
      .Int64(host.heartbeat_at);
  auto result = db.Query(sql::kUpsertHost, params, "registering host " + host.name);
  if (!result) return result.error();
  return OkStatus();
}

Status SetDeviceLabels(Connection& db, std::string_view serial,
                       const std::vector<std::string>& labels) {
  const std::string what = "setting the labels of device " + std::string(serial);
  auto exists = DeviceExists(db, serial, what);
  if (!exists) return exists.error();
  if (!*exists) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          "no device " + std::string(serial) + " has ever been seen");
  }
  Params by_serial;
  by_serial.Text(serial);
  auto deleted = db.Query(sql::kDeleteDeviceLabels, by_serial, what);
  if (!deleted) return deleted.error();
  for (const std::string& label : labels) {
    Params params;
    params.Text(serial).Text(label);
    auto inserted = db.Query(sql::kInsertDeviceLabel, params, what);
    if (!inserted) return inserted.error();
  }
  return OkStatus();
}

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
      .Int64(device.last_seen)
      .Optional(device.host);
  auto result = db.Query(sql::kUpsertDevice, params, "storing device " + device.serial);
  if (!result) return result.error();
  return OkStatus();
}

Status RecordDeviceState(Connection& db, const DeviceStateChange& change) {
  const std::string what = "recording state " + change.state + " of device " + change.serial;
  Params params;
  params.Text(change.serial).Text(change.state).Int64(change.changed_at);
  Params update = params;
  update.Optional(change.host);
  auto updated = db.Query(sql::kUpdateDeviceState, update, what);
  if (!updated) return updated.error();
  if (updated->affected() == 0) {
    // Never stored, or held by another host now (then its history is that host's to write).
    auto exists = DeviceExists(db, change.serial, what);
    if (!exists) return exists.error();
    if (*exists) return OkStatus();
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
