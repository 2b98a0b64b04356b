// Errors of adb/: an AdbErrc a caller can act on, plus the text that explains it. When the adb
// server answered FAIL, `message` is adb's own text, byte for byte ("device 'R58M123ABC' not
// found"), so it can be shown to a person unchanged.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

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

// A value or an AdbError. Nothing in adb/ throws across its boundary (std::expected is C++23).
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(AdbError error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const AdbError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, AdbError> v_;
};

// Result<void>: success, or an AdbError.
template <>
class Result<void> {
 public:
  Result() = default;
  Result(AdbError error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const AdbError& error() const { return error_; }

 private:
  AdbError error_{AdbErrc::kProtocol, {}};
  bool ok_ = true;
};

}  // namespace droidlab::adb
