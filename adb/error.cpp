#include "adb/error.h"

namespace droidlab::adb {

std::string_view ErrcName(AdbErrc code) {
  switch (code) {
    case AdbErrc::kServerUnreachable:
      return "server_unreachable";
    case AdbErrc::kDeviceNotFound:
      return "device_not_found";
    case AdbErrc::kDeviceOffline:
      return "device_offline";
    case AdbErrc::kDeviceUnauthorized:
      return "device_unauthorized";
    case AdbErrc::kTimeout:
      return "timeout";
    case AdbErrc::kConnectionLost:
      return "connection_lost";
    case AdbErrc::kProtocol:
      return "protocol";
    case AdbErrc::kRejected:
      return "rejected";
    case AdbErrc::kInvalidArgument:
      return "invalid_argument";
    case AdbErrc::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

namespace {

AdbErrc Classify(std::string_view text) {
  auto starts = [text](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  // "device '%s' not found" (a serial may itself hold quotes, so match both ends).
  if (starts("device '") && text.size() >= 19 && text.substr(text.size() - 11) == "' not found") {
    return AdbErrc::kDeviceNotFound;
  }
  if (starts("no devices") || starts("no emulators found") ||
      starts("no device with transport id") || starts("no such device")) {
    return AdbErrc::kDeviceNotFound;
  }
  // "device offline", "device offline (no transport)", "device offline (transport offline)".
  if (starts("device offline") || starts("device still connecting") ||
      starts("device still authorizing")) {
    return AdbErrc::kDeviceOffline;
  }
  if (starts("device unauthorized") || starts("insufficient permissions for device")) {
    return AdbErrc::kDeviceUnauthorized;
  }
  if (starts("more than one ")) return AdbErrc::kInvalidArgument;
  return AdbErrc::kRejected;
}

}  // namespace

AdbError ClassifyFailText(std::string_view fail_text) {
  return AdbError{Classify(fail_text), std::string(fail_text)};
}

}  // namespace droidlab::adb
