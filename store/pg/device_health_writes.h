// The PostgreSQL form of ../device_health_writes.h: `device_health`, `device_events` and the
// quarantine columns of `devices`. Same arguments (a pg::Connection for the Database), results
// and error codes; each runs inside its caller's transaction. Internal to store/.
#pragma once

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

Status InsertDeviceHealth(Connection& db, const DeviceHealthSample& sample);
Status InsertDeviceEvent(Connection& db, const DeviceEvent& event);
// kNotFound for a device never seen; quarantined already: its first time and reason stay, the
// event is appended as kind "quarantined" all the same.
Status QuarantineDevice(Connection& db, const DeviceEvent& event);
// kNotFound for a device never seen, kInvalidArgument when it is not quarantined (nothing
// appended); else the event appended as kind "released".
Status ReleaseDevice(Connection& db, const DeviceEvent& event);

}  // namespace droidlab::store::pg::writes
