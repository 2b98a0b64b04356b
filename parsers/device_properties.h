// The device facts droidlab keeps, read from `getprop` output (format: parsers/getprop.h,
// system/core/toolbox/getprop.cpp). One reading for every caller: the device registry stores
// them with the device, the run's preflight with the run. Real lines
// (tests/data/getprop/android11_vivo_v2026_excerpt.txt):
//
//   [ro.build.fingerprint]:
//   [vivo/PD2026F_EX_A/PD2026F:11/RP1A.200720.012/15.40.47:user/release-keys]
//   [ro.build.version.release]: [11]
//   [ro.build.version.sdk]: [30]
//   [ro.product.cpu.abi]: [arm64-v8a]
//
// The properties are set at build time (build/make/tools/buildinfo.sh and the product's
// PRODUCT_* variables) and read-only (ro.) once the device has booted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/getprop.h"
#include "parsers/result.h"

namespace droidlab::parsers {

// Absent: the property was missing or empty (sdk: also when it is not a decimal number).
struct DeviceProperties {
  std::optional<std::string> model;         // ro.product.model        "Pixel 7"
  std::optional<std::string> manufacturer;  // ro.product.manufacturer "Google"
  std::optional<int64_t> sdk;               // ro.build.version.sdk    33
  std::optional<std::string> release;       // ro.build.version.release "13"
  std::optional<std::string> abi;           // ro.product.cpu.abi      "arm64-v8a"
  std::optional<std::string> fingerprint;   // ro.build.fingerprint
  std::optional<std::string> serialno;      // ro.serialno (adb's serial may be host:port)
  friend bool operator==(const DeviceProperties&, const DeviceProperties&) = default;
};

// From properties already parsed. Thread-safe (pure function); never fails.
DeviceProperties DevicePropertiesFrom(const GetpropOutput& getprop);

// From `getprop` output. Thread-safe (pure function). Errors: those of ParseGetprop.
Result<DeviceProperties> ParseDeviceProperties(std::string_view getprop_output);

}  // namespace droidlab::parsers
