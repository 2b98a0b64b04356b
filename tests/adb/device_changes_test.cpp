#include "adb/device_changes.h"

#include <gtest/gtest.h>

namespace droidlab::adb {
namespace {

DeviceEntry Entry(std::string serial, DeviceState state, uint64_t transport_id) {
  DeviceEntry e;
  e.serial = std::move(serial);
  e.state = state;
  e.state_text = std::string(DeviceStateName(state));
  e.transport_id = transport_id;
  return e;
}

TEST(DeviceChangesTest, EqualListsGiveNothing) {
  const std::vector<DeviceEntry> list = {Entry("a", DeviceState::kDevice, 1)};
  EXPECT_TRUE(DiffDeviceLists(list, list).empty());
}

TEST(DeviceChangesTest, AddedRemovedAndChanged) {
  const std::vector<DeviceEntry> before = {Entry("a", DeviceState::kDevice, 1),
                                           Entry("b", DeviceState::kDevice, 2)};
  const std::vector<DeviceEntry> after = {Entry("b", DeviceState::kOffline, 2),
                                          Entry("c", DeviceState::kUnauthorized, 3)};
  const auto changes = DiffDeviceLists(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0], (DeviceChange{DeviceChange::Kind::kRemoved, before[0]}));
  EXPECT_EQ(changes[1], (DeviceChange{DeviceChange::Kind::kChanged, after[0]}));
  EXPECT_EQ(changes[2], (DeviceChange{DeviceChange::Kind::kAdded, after[1]}));
}

TEST(DeviceChangesTest, ANewTransportIdIsAChange) {
  const auto changes = DiffDeviceLists({Entry("a", DeviceState::kDevice, 1)},
                                       {Entry("a", DeviceState::kDevice, 7)});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, DeviceChange::Kind::kChanged);
}

}  // namespace
}  // namespace droidlab::adb
