// Lines as packages/modules/adb transport.cpp append_transport prints them (adb 34):
// "%-22s %s" serial and state, devpath, product:, model:, device:, transport_id: last.
#include "adb/device_list.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "adb/protocol.h"
#include "tests/adb/grind.h"

namespace droidlab::adb {
namespace {

TEST(DeviceListTest, EmulatorLongForm) {
  DeviceList list = ParseDeviceList(
      "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
      "device:emu64xa transport_id:1\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.bad_lines, 0u);
  const DeviceEntry& d = list.devices[0];
  EXPECT_EQ(d.serial, "emulator-5554");
  EXPECT_EQ(d.state, DeviceState::kDevice);
  EXPECT_EQ(d.state_text, "device");
  EXPECT_EQ(d.devpath, "");
  EXPECT_EQ(d.product, "sdk_gphone64_x86_64");
  EXPECT_EQ(d.model, "sdk_gphone64_x86_64");
  EXPECT_EQ(d.device, "emu64xa");
  EXPECT_EQ(d.transport_id, 1u);
}

TEST(DeviceListTest, UsbDeviceWithDevpathAndModelUnderscores) {
  // sanitize(model, alphanumeric=true): "Pixel 7 Pro" is printed "Pixel_7_Pro".
  DeviceList list = ParseDeviceList(
      "R58M123ABC             device usb:1-4 product:cheetah model:Pixel_7_Pro device:cheetah "
      "transport_id:12\n");
  ASSERT_EQ(list.devices.size(), 1u);
  const DeviceEntry& d = list.devices[0];
  EXPECT_EQ(d.serial, "R58M123ABC");
  EXPECT_EQ(d.devpath, "usb:1-4");
  EXPECT_EQ(d.model, "Pixel_7_Pro");
  EXPECT_EQ(d.transport_id, 12u);
}

TEST(DeviceListTest, TcpSerialWithColon) {
  DeviceList list = ParseDeviceList(
      "127.0.0.1:5555         device product:devsim model:Devsim_Phone device:devsim "
      "transport_id:3\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].serial, "127.0.0.1:5555");
  EXPECT_EQ(list.devices[0].product, "devsim");
}

TEST(DeviceListTest, LongSerialHasOneSpace) {
  // %-22s pads short serials only; an mDNS serial is longer than 22.
  DeviceList list = ParseDeviceList(
      "adb-R58M123ABC-AbCdEf._adb-tls-connect._tcp device product:p model:m device:d "
      "transport_id:9\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].serial, "adb-R58M123ABC-AbCdEf._adb-tls-connect._tcp");
  EXPECT_EQ(list.devices[0].state, DeviceState::kDevice);
  EXPECT_EQ(list.devices[0].devpath, "");
}

TEST(DeviceListTest, OfflineAndUnauthorizedHaveNoProductFields) {
  DeviceList list = ParseDeviceList(
      "127.0.0.1:7001         offline transport_id:4\n"
      "R58M123ABC             unauthorized usb:1-1 transport_id:2\n"
      "0123456789ABCDEF       authorizing usb:1-2 transport_id:5\n"
      "192.168.1.20:5555      connecting transport_id:6\n");
  ASSERT_EQ(list.devices.size(), 4u);
  EXPECT_EQ(list.devices[0].state, DeviceState::kOffline);
  EXPECT_EQ(list.devices[0].product, "");
  EXPECT_EQ(list.devices[0].transport_id, 4u);
  EXPECT_EQ(list.devices[1].state, DeviceState::kUnauthorized);
  EXPECT_EQ(list.devices[1].devpath, "usb:1-1");
  EXPECT_EQ(list.devices[2].state, DeviceState::kAuthorizing);
  EXPECT_EQ(list.devices[3].state, DeviceState::kConnecting);
}

TEST(DeviceListTest, OtherStates) {
  DeviceList list = ParseDeviceList(
      "a1                     recovery product:p model:m device:d transport_id:1\n"
      "a2                     sideload transport_id:2\n"
      "a3                     bootloader transport_id:3\n"
      "a4                     rescue transport_id:4\n"
      "a5                     host transport_id:5\n"
      "a6                     unknown transport_id:6\n");
  ASSERT_EQ(list.devices.size(), 6u);
  EXPECT_EQ(list.devices[0].state, DeviceState::kRecovery);
  EXPECT_EQ(list.devices[1].state, DeviceState::kSideload);
  EXPECT_EQ(list.devices[2].state, DeviceState::kBootloader);
  EXPECT_EQ(list.devices[3].state, DeviceState::kRescue);
  EXPECT_EQ(list.devices[4].state, DeviceState::kHost);
  EXPECT_EQ(list.devices[5].state, DeviceState::kUnknown);
  EXPECT_EQ(list.devices[5].state_text, "unknown");
}

// adb.cpp to_string(kCsNoPerm) = diagnose_usb.cpp UsbNoPermissionsShortHelpText().
TEST(DeviceListTest, NoPermissionsStateWithSpaces) {
  const std::string state =
      "no permissions (user in plugdev group; are your udev rules wrong?); see "
      "[http://developer.android.com/tools/device.html]";
  DeviceList list =
      ParseDeviceList("0123456789ABCDEF       " + state + " usb:3-2 transport_id:7\n");
  ASSERT_EQ(list.devices.size(), 1u);
  const DeviceEntry& d = list.devices[0];
  EXPECT_EQ(d.serial, "0123456789ABCDEF");
  EXPECT_EQ(d.state, DeviceState::kNoPermissions);
  EXPECT_EQ(d.state_text, state);
  EXPECT_EQ(d.devpath, "usb:3-2");
  EXPECT_EQ(d.device, "");
  EXPECT_EQ(d.transport_id, 7u);
}

TEST(DeviceListTest, NoPermissionsWithoutReason) {
  DeviceList list = ParseDeviceList(
      "0123456789ABCDEF       no permissions; see [http://developer.android.com/tools/device.html]"
      " usb:3-2 transport_id:7\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].state, DeviceState::kNoPermissions);
  EXPECT_EQ(list.devices[0].devpath, "usb:3-2");
}

TEST(DeviceListTest, NoSerialNumber) {
  DeviceList list = ParseDeviceList("(no serial number)     offline usb:1-9 transport_id:8\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].serial, "(no serial number)");
  EXPECT_EQ(list.devices[0].state, DeviceState::kOffline);
}

// Before adb 1.0.40 there was no transport_id.
TEST(DeviceListTest, WithoutTransportId) {
  DeviceList list = ParseDeviceList("emulator-5554          device product:p model:m device:d\n");
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_FALSE(list.devices[0].transport_id.has_value());
  EXPECT_EQ(list.devices[0].device, "d");
}

// host:devices / host:track-devices: "serial\tstate\n".
TEST(DeviceListTest, ShortForm) {
  DeviceList list = ParseDeviceList(
      "emulator-5554\tdevice\n127.0.0.1:5555\toffline\nR58M123ABC\tunauthorized\n"
      "0123\tno permissions (verify udev rules); see "
      "[http://developer.android.com/tools/device.html]\n");
  ASSERT_EQ(list.devices.size(), 4u);
  EXPECT_EQ(list.devices[0].serial, "emulator-5554");
  EXPECT_EQ(list.devices[0].state, DeviceState::kDevice);
  EXPECT_FALSE(list.devices[0].transport_id.has_value());
  EXPECT_EQ(list.devices[1].serial, "127.0.0.1:5555");
  EXPECT_EQ(list.devices[1].state, DeviceState::kOffline);
  EXPECT_EQ(list.devices[2].state, DeviceState::kUnauthorized);
  EXPECT_EQ(list.devices[3].state, DeviceState::kNoPermissions);
}

TEST(DeviceListTest, EmptyPayloadIsNoDevices) {
  DeviceList list = ParseDeviceList("");
  EXPECT_TRUE(list.devices.empty());
  EXPECT_EQ(list.bad_lines, 0u);
}

TEST(DeviceListTest, BadLinesAreCountedNotFatal) {
  DeviceList list = ParseDeviceList(
      "lonelyserial\n"
      "emulator-5554          device transport_id:x1\n"
      "emulator-5556          device transport_id:2\n"
      "\tdevice\n");
  EXPECT_EQ(list.bad_lines, 3u);
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].serial, "emulator-5556");
}

TEST(DeviceListTest, LastLineWithoutNewline) {
  DeviceList list = ParseDeviceList("emulator-5554\tdevice");
  ASSERT_EQ(list.devices.size(), 1u);
}

TEST(DeviceStateTest, Names) {
  EXPECT_EQ(DeviceStateName(DeviceState::kNoPermissions), "no permissions");
  EXPECT_EQ(ParseDeviceState("device"), DeviceState::kDevice);
  EXPECT_EQ(ParseDeviceState("Device"), DeviceState::kUnknown);
  EXPECT_EQ(ParseDeviceState("detached"), DeviceState::kUnknown);
}

// A host:track-devices-l stream, split everywhere, then each update parsed.
TEST(DeviceListTest, TrackDevicesStreamEndToEnd) {
  std::string wire = *EncodeProtocolString(
                         "127.0.0.1:7001         device product:devsim model:Devsim_Phone "
                         "device:devsim transport_id:1\n") +
                     *EncodeProtocolString("127.0.0.1:7001         offline transport_id:1\n") +
                     "0000";
  testing::Outcome o = testing::Grind<ProtocolStringDecoder>(
      {}, wire, true, [](ProtocolStringDecoder& d) { return d.payload(); });
  ASSERT_EQ(o.frames.size(), 3u);
  EXPECT_EQ(ParseDeviceList(o.frames[0]).devices[0].model, "Devsim_Phone");
  EXPECT_EQ(ParseDeviceList(o.frames[1]).devices[0].state, DeviceState::kOffline);
  EXPECT_TRUE(ParseDeviceList(o.frames[2]).devices.empty());
}

// The server's printer, restated from transport.cpp append_transport (long_listing) and
// append_transport_info, to check that what it prints reads back as it went in.
std::string AppendTransport(const DeviceEntry& t) {
  char head[512];
  std::snprintf(head, sizeof(head), "%-22s %s", t.serial.c_str(), t.state_text.c_str());
  std::string out = head;
  auto info = [&out](const char* key, const std::string& value) {
    if (value.empty()) return;
    out += ' ';
    out += key;
    out += value;
  };
  info("", t.devpath);
  info("product:", t.product);
  info("model:", t.model);
  info("device:", t.device);
  out += " transport_id:" + std::to_string(*t.transport_id);
  return out + '\n';
}

TEST(DeviceListTest, ReadsBackWhatAppendTransportPrints) {
  const std::string no_perm =
      "no permissions (user alice is not in the plugdev group); see "
      "[http://developer.android.com/tools/device.html]";
  std::vector<DeviceEntry> devices = {
      {"emulator-5554", DeviceState::kDevice, "device", "", "sdk_gphone64_arm64",
       "sdk_gphone64_arm64", "emu64a", 1},
      {"R58M123ABC", DeviceState::kDevice, "device", "usb:1-4.2", "beyond1lteeea", "SM_G973F",
       "beyond1", 2},
      {"127.0.0.1:5555", DeviceState::kOffline, "offline", "", "", "", "", 3},
      {"0123456789ABCDEFGHIJKL", DeviceState::kUnauthorized, "unauthorized", "usb:2-1", "", "", "",
       4},  // exactly 22: one space
      {"adb-R58M123ABC-AbCdEf._adb-tls-connect._tcp", DeviceState::kDevice, "device", "", "p", "m",
       "d", 5},
      {"FA7AB1A01234", DeviceState::kNoPermissions, no_perm, "usb:3-2", "", "", "", 6},
      {"FA7AB1A05678", DeviceState::kRecovery, "recovery", "usb:3-3", "sailfish", "Pixel",
       "sailfish", 18446744073709551615ull},
      {"emulator-5556", DeviceState::kSideload, "sideload", "", "product with space", "m", "dev",
       8},
  };
  std::string payload;
  for (const DeviceEntry& d : devices) payload += AppendTransport(d);
  DeviceList list = ParseDeviceList(payload);
  EXPECT_EQ(list.bad_lines, 0u);
  ASSERT_EQ(list.devices.size(), devices.size());
  for (size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(list.devices[i], devices[i]) << i;
}

}  // namespace
}  // namespace droidlab::adb
