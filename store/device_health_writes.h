// The writes of fleet health (schema 0019, issue 17 §3): `device_health`, `device_events` and the
// quarantine columns of `devices`, applied on the writer's connection inside its open transaction
// (writer.h). Internal to store/: Store wraps each in a durable write task, whose savepoint makes
// a quarantine or a release and its event one change — both or neither.
#pragma once

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// Appends a sample / an event (its id is the store's); the device need not be known.
Status InsertDeviceHealth(Database& db, const DeviceHealthSample& sample);
Status InsertDeviceEvent(Database& db, const DeviceEvent& event);
// Quarantines event.serial since event.at because of event.detail, unless it is already (then
// its first time and reason stay), and appends `event` as kind "quarantined" either way.
// kNotFound for a device never seen, and then nothing is appended.
Status QuarantineDevice(Database& db, const DeviceEvent& event);
// Clears event.serial's quarantine and appends `event` as kind "released". kNotFound for a device
// never seen; kInvalidArgument ("device … is not quarantined") when it was not. Either way
// nothing is appended.
Status ReleaseDevice(Database& db, const DeviceEvent& event);

}  // namespace writes
}  // namespace droidlab::store
