// What changed between two device lists of host:track-devices-l: devices that came, went, or
// changed state or description (a phone going offline, being authorized, getting a new
// transport_id after a replug). Pure; used by Client::TrackDevices.
#pragma once

#include <vector>

#include "adb/device_list.h"

namespace droidlab::adb {

struct DeviceChange {
  enum class Kind { kAdded, kRemoved, kChanged };
  Kind kind;
  DeviceEntry entry;  // the new entry; for kRemoved the last one known
  friend bool operator==(const DeviceChange&, const DeviceChange&) = default;
};

// Changes from `before` to `after`, matched by serial: removals first (in `before` order), then
// additions and changes (in `after` order). Equal lists give no change.
std::vector<DeviceChange> DiffDeviceLists(const std::vector<DeviceEntry>& before,
                                          const std::vector<DeviceEntry>& after);

}  // namespace droidlab::adb
