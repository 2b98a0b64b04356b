#include "store/device_writes.h"

#include <string>

#include "store/sql/device_restores.h"
#include "store/sql/devices.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

StoreResult<bool> DeviceExists(Database& db, std::string_view serial, const std::string& what) {
  auto st = db.Cached(sql::kDeviceExists);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  switch ((*st)->StepOnce()) {
    case Statement::Step::kRow:
      return true;
    case Statement::Step::kDone:
      return false;
    case Statement::Step::kError:
      break;
  }
  return (*st)->Error(what);
}

Status UpsertDevice(Database& db, const Device& device) {
  return RunCached(
      db, sql::kUpsertDevice,
      [&](Statement& st) {
        st.BindText(1, device.serial);
        st.BindOptional(2, device.model);
        st.BindOptional(3, device.manufacturer);
        st.BindOptional(4, device.sdk);
        st.BindOptional(5, device.release);
        st.BindOptional(6, device.abi);
        st.BindOptional(7, device.fingerprint);
        st.BindText(8, device.state);
        st.BindInt64(9, device.first_seen);
        st.BindInt64(10, device.last_seen);
        st.BindOptional(11, device.host);
      },
      "storing device " + device.serial);
}

Status RecordDeviceState(Database& db, const DeviceStateChange& change) {
  const std::string what = "recording state " + change.state + " of device " + change.serial;
  auto bind = [&](Statement& st) {
    st.BindText(1, change.serial);
    st.BindText(2, change.state);
    st.BindInt64(3, change.changed_at);
  };
  auto bind_update = [&](Statement& st) {
    bind(st);
    st.BindOptional(4, change.host);
  };
  if (auto s = RunCached(db, sql::kUpdateDeviceState, bind_update, what); !s) return s;
  if (db.Changes() == 0) {
    // Never stored, or held by another host now (then its history is that host's to write).
    auto exists = DeviceExists(db, change.serial, what);
    if (!exists) return exists.error();
    if (*exists) return OkStatus();
    return MakeStoreError(StoreErrorCode::kNotFound,
                          what + ": device never stored (UpsertDevice first)");
  }
  return RunCached(db, sql::kInsertDeviceStateChange, bind, what);
}

Status UpsertHost(Database& db, const Host& host) {
  return RunCached(
      db, sql::kUpsertHost,
      [&](Statement& st) {
        st.BindText(1, host.name);
        st.BindText(2, host.address);
        st.BindText(3, host.version);
        st.BindInt64(4, host.started_at);
        st.BindInt64(5, host.heartbeat_at);
      },
      "registering host " + host.name);
}

Status SetDeviceLabels(Database& db, std::string_view serial,
                       const std::vector<std::string>& labels) {
  const std::string what = "setting the labels of device " + std::string(serial);
  auto exists = DeviceExists(db, serial, what);
  if (!exists) return exists.error();
  if (!*exists) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          "no device " + std::string(serial) + " has ever been seen");
  }
  auto by_serial = [&](Statement& st) { st.BindText(1, serial); };
  if (auto s = RunCached(db, sql::kDeleteDeviceLabels, by_serial, what); !s) return s;
  for (const std::string& label : labels) {
    auto s = RunCached(
        db, sql::kInsertDeviceLabel,
        [&](Statement& st) {
          st.BindText(1, serial);
          st.BindText(2, label);
        },
        what);
    if (!s) return s;
  }
  return OkStatus();
}

StoreResult<int64_t> InsertDeviceRestore(Database& db, const DeviceRestore& restore) {
  auto s = RunCached(
      db, sql::kInsertDeviceRestore,
      [&](Statement& st) {
        st.BindText(1, restore.serial);
        st.BindText(2, restore.kind);
        st.BindText(3, restore.name);
        st.BindOptional(4, restore.previous);
        st.BindOptional(5, restore.run_id);
        st.BindInt64(6, restore.created_at);
      },
      "recording a restore owed by " + restore.serial);
  if (!s) return s.error();
  return db.LastInsertRowId();
}

Status MarkDeviceRestorePaid(Database& db, int64_t restore_id, int64_t paid_at) {
  const std::string what = "marking restore " + std::to_string(restore_id) + " paid";
  auto s = RunCached(
      db, sql::kSetDeviceRestorePaid,
      [&](Statement& st) {
        st.BindInt64(1, restore_id);
        st.BindInt64(2, paid_at);
      },
      what);
  if (!s) return s;
  return NotFoundUnlessChanged(db, what + ": no such owed restore");
}

}  // namespace droidlab::store::writes
