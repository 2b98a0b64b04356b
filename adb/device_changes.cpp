#include "adb/device_changes.h"

#include <algorithm>

namespace droidlab::adb {
namespace {

const DeviceEntry* FindSerial(const std::vector<DeviceEntry>& list, const std::string& serial) {
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const DeviceEntry& e) { return e.serial == serial; });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

std::vector<DeviceChange> DiffDeviceLists(const std::vector<DeviceEntry>& before,
                                          const std::vector<DeviceEntry>& after) {
  // Lists hold a lab's devices (tens, a few hundred): quadratic is simpler and fast enough.
  std::vector<DeviceChange> changes;
  for (const auto& old_entry : before) {
    if (FindSerial(after, old_entry.serial) == nullptr) {
      changes.push_back({DeviceChange::Kind::kRemoved, old_entry});
    }
  }
  for (const auto& new_entry : after) {
    const DeviceEntry* old_entry = FindSerial(before, new_entry.serial);
    if (old_entry == nullptr) {
      changes.push_back({DeviceChange::Kind::kAdded, new_entry});
    } else if (!(*old_entry == new_entry)) {
      changes.push_back({DeviceChange::Kind::kChanged, new_entry});
    }
  }
  return changes;
}

}  // namespace droidlab::adb
