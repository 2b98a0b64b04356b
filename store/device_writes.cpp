#include "store/device_writes.h"

#include <string>

#include "store/sql/device_restores.h"
#include "store/sql/devices.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

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
  if (auto s = RunCached(db, sql::kUpdateDeviceState, bind, what); !s) return s;
  if (auto s = NotFoundUnlessChanged(db, what + ": device never stored (UpsertDevice first)"); !s) {
    return s;
  }
  return RunCached(db, sql::kInsertDeviceStateChange, bind, what);
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
