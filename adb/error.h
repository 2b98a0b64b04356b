// Errors of adb/: an AdbErrc a caller can act on, plus the text that explains it. When the adb
// server answered FAIL, `message` is adb's own text, byte for byte ("device 'R58M123ABC' not
// found"), so it can be shown to a person unchanged.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace droidlab::adb {

enum class AdbErrc {
  kServerUnreachable,   // nothing answers at the adb server address (connect refused, no route)
  kDeviceNotFound,      // FAIL "device 'X' not found", "no devices/emulators found", ...
  kDeviceOffline,       // FAIL "device offline", "device still connecting": retry later
  kDeviceUnauthorized,  // FAIL "device unauthorized.\n...", USB "insufficient permissions ..."
  kTimeout,             // the deadline passed
  kConnectionLost,      // the socket closed or failed in the middle of a command
  kProtocol,            // bytes that break the protocol: bad status, non-hex length, oversize
  kRejected,            // any other FAIL: "closed" (device refused the service), unknown service
  kInvalidArgument,     // refused before sending: bad serial, NUL in an argument, too long
  kCancelled,           // the caller cancelled
};

// "kDeviceNotFound" -> "device_not_found": stable names for logs and the API's error codes.
std::string_view ErrcName(AdbErrc code);

struct AdbError {
  AdbErrc code;
  std::string message;  // adb's FAIL text when there was one, else one line saying what failed
};

inline AdbError MakeError(AdbErrc code, std::string message) {
  return AdbError{code, std::move(message)};
}

// Maps the text of an adb server FAIL reply to an AdbErrc and keeps the text as the message.
// The texts come from packages/modules/adb: transport.cpp acquire_one_transport ("device '%s'
// not found", "device offline", "device unauthorized.\n...", "more than one device/emulator"),
// sockets.cpp ("closed", "device offline (no transport)", "unknown host service '...'") and
// diagnose_usb.cpp ("insufficient permissions for device..."). Unknown texts are kRejected.
// Ambiguous selections ("more than one device/emulator") are kInvalidArgument: the caller must
// name a serial.
AdbError ClassifyFailText(std::string_view fail_text);

// A value or an AdbError (Result<void>: success or an AdbError). Nothing in adb/ throws across
// its boundary.
template <class T>
using Result = BasicResult<T, AdbError>;

}  // namespace droidlab::adb
