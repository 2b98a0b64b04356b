// Output of `dumpsys thermalservice`: ThermalManagerService's binder dump
// (frameworks/base/services/core/java/com/android/server/power/ThermalManagerService.java),
// Android 10+. Samsung A52 5G, Android 12 (items are tab-indented):
//
//   IsStatusOverride: false
//   ThermalEventListeners:
//           callbacks: 1
//           killed: false
//           broadcasts count: -1
//   ThermalStatusListeners:
//           callbacks: 4
//           killed: false
//           broadcasts count: -1
//   Thermal Status: 0
//   Cached temperatures:
//           Temperature{mValue=25.6, mType=0, mName=AP, mStatus=0}
//           Temperature{mValue=23.8, mType=2, mName=BAT, mStatus=0}
//   HAL Ready: true
//   HAL connection:
//           ThermalHAL 2.0 connected: yes
//   Current temperatures from HAL:
//           Temperature{mValue=25.6, mType=0, mName=AP, mStatus=0}
//   Current cooling devices from HAL:
//   Temperature static thresholds from HAL:
//
// The HAL sections appear only when "HAL Ready: true". Newer builds add TemperatureThreshold
// items to the thresholds section and, behind a flag, "Temperature headroom thresholds:" followed
// by an unindented "[NaN, …]" line. Temperature items are android.os.Temperature.toString():
// mValue is a Java float in °C ("36.1", "NaN", "1.0E-4"), mType a Temperature.TYPE_* (0 CPU,
// 1 GPU, 2 BATTERY, 3 SKIN, 4 USB_PORT, …), mStatus a throttling status 0–6 like Thermal Status.
// Cooling devices, thresholds and listener details are recognised and not kept. Any other line,
// or a Temperature item that does not parse, is counted in skipped_lines.
//
// Android 9 and earlier have no ThermalManagerService: "thermalservice" there is the native
// thermalserviced (frameworks/native/services/thermalservice, Android 8.1/9), which has no dump
// and prints nothing; a device without it prints "Can't find service: thermalservice". Both are
// kServiceMissing, so a caller can tell "this Android has no thermal status" from a broken read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

// PowerManager.THERMAL_STATUS_* (= Temperature.THROTTLING_*).
enum class ThermalStatus : int {
  kNone = 0,
  kLight = 1,
  kModerate = 2,
  kSevere = 3,
  kCritical = 4,
  kEmergency = 5,
  kShutdown = 6,
};

// "NONE", "LIGHT", "MODERATE", "SEVERE", "CRITICAL", "EMERGENCY", "SHUTDOWN"; "UNKNOWN" outside
// 0–6.
std::string_view ThermalStatusName(int status);

struct ThermalTemperature {
  std::string name;  // mName, e.g. "battery", "skin", "CPU0"
  int type = 0;      // mType, Temperature.TYPE_*
  double value_c = 0;  // mValue; NaN when the HAL had no reading
  int status = 0;    // mStatus, throttling severity 0–6
};

struct DumpsysThermal {
  std::optional<bool> is_status_override;  // `cmd thermalservice override-status` in force
  int thermal_status = 0;                  // "Thermal Status: N", 0–6 (see ThermalStatus)
  std::optional<bool> hal_ready;
  std::vector<ThermalTemperature> cached;    // "Cached temperatures:", last value per sensor
  std::vector<ThermalTemperature> from_hal;  // "Current temperatures from HAL:", read at dump time
  uint64_t skipped_lines = 0;

  // The sensor named `name`: from the HAL read if present, else from the cache; nullptr if
  // neither has it.
  const ThermalTemperature* Find(std::string_view name) const;
};

// Thread-safe (pure function).
// Errors: kServiceMissing for empty output (Android 9's native thermalservice has no dump) and
// for "Can't find service: thermalservice"; kPermissionDenied for "Permission Denial: …";
// kNotThisFormat when no line of ThermalManagerService's dump is present; kMalformed when the
// dump has no readable "Thermal Status: N" line (N in 0–6).
Result<DumpsysThermal> ParseDumpsysThermal(std::string_view output);

}  // namespace droidlab::parsers
