// Device lists: the payloads of host:devices[-l] and of each host:track-devices[-l] update,
// as packages/modules/adb transport.cpp append_transport prints them (adb 34), one device a line:
//   host:devices     "emulator-5554\tdevice\n"
//   host:devices-l   "%-22s %s" serial and state, then " " devpath (USB only),
//                    " product:" " model:" " device:" when known, " transport_id:N" last:
//   "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
//   "device:emu64xa transport_id:1\n"
//   "R58M123ABC             unauthorized usb:1-1 transport_id:2\n"
// The state is adb.cpp to_string(ConnectionState); for a USB device the server may not open it
// is diagnose_usb.cpp UsbNoPermissionsShortHelpText(), with spaces:
//   "no permissions (user in plugdev group; are your udev rules wrong?); see
//    [http://developer.android.com/tools/device.html]"
// Values are sanitized by the server: model has every non-alphanumeric byte turned into '_'
// ("Pixel 7" -> "Pixel_7"); product and device only lose '\n'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::adb {

enum class DeviceState {
  kDevice,
  kOffline,
  kUnauthorized,
  kAuthorizing,
  kConnecting,
  kNoPermissions,
  kRecovery,
  kRescue,
  kSideload,
  kBootloader,
  kHost,
  kUnknown,  // "unknown", "detached" or a state newer than this code
};

// "device" -> kDevice, "no permissions (...); see [...]" -> kNoPermissions, "zzz" -> kUnknown.
DeviceState ParseDeviceState(std::string_view text);
std::string_view DeviceStateName(DeviceState state);  // kNoPermissions -> "no permissions"

struct DeviceEntry {
  std::string serial;
  DeviceState state = DeviceState::kUnknown;
  std::string state_text;  // as printed: "device", or the whole "no permissions (...)" text
  std::string devpath;     // "usb:1-1"; empty for TCP and emulators or the short form
  std::string product;     // "" when the server does not know it (offline, short form)
  std::string model;
  std::string device;
  std::optional<uint64_t> transport_id;  // absent in the short form and before adb 1.0.40

  friend bool operator==(const DeviceEntry&, const DeviceEntry&) = default;
};

struct DeviceList {
  std::vector<DeviceEntry> devices;
  // Lines that could not be read (no state, a transport_id that is not a number). Counted, never
  // fatal: one odd line must not hide the other devices.
  size_t bad_lines = 0;
};

// Parses a host:devices or host:devices-l payload; each line may be either form (a tab after
// the serial means the short form). Empty lines are skipped. Never fails; see bad_lines.
DeviceList ParseDeviceList(std::string_view payload);

}  // namespace droidlab::adb
