#include "store/device_writes.h"

#include <string>

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

}  // namespace droidlab::store::writes
