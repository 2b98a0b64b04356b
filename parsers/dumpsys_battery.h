// Output of `dumpsys battery`: BatteryService.dumpInternal
// (frameworks/base/services/core/java/com/android/server/BatteryService.java). Android 13+:
//
//   Current Battery Service state:
//     (UPDATES STOPPED -- use 'reset' to restart)
//     AC powered: false
//     USB powered: true
//     Wireless powered: false
//     Dock powered: false
//     Max charging current: 500000
//     Max charging voltage: 5000000
//     Charge counter: 2967000
//     status: 2
//     health: 2
//     present: true
//     level: 84
//     scale: 100
//     voltage: 4063
//     temperature: 326
//     technology: Li-ion
//
// "(UPDATES STOPPED …)" appears only after `dumpsys battery set|unplug` until `reset`: the values
// are then the forced ones, not the hardware's. "Dock powered" came with HealthInfo's
// chargerDockOnline (Android 13, BATTERY_PLUGGED_DOCK is API 33); older builds print fewer
// lines (an early-2016 sample has no "Max charging …" or "Charge counter" line, a late-2016
// Android 7 one has them); "Charging state" / "Charging policy" are printed by the newest
// BatteryService (AOSP main). A line that is absent leaves its field nullopt. temperature is in tenths of °C, voltage in mV, currents in
// µA, charge counter in µAh; status and health are BatteryManager.BATTERY_STATUS_* / _HEALTH_*.
//
// OEMs add lines (Samsung: "mBootCompleted: true", "LED Charging: true", unindented
// "USE_FAKE_BATTERY: false", …): any line that is not one of the above is counted in
// skipped_lines, as is a known key whose value does not parse (that field stays nullopt).
// Keys are matched by name, never by position. Line ends as LineSplitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

// BatteryManager.BATTERY_STATUS_*.
inline constexpr int kBatteryStatusUnknown = 1;
inline constexpr int kBatteryStatusCharging = 2;
inline constexpr int kBatteryStatusDischarging = 3;
inline constexpr int kBatteryStatusNotCharging = 4;
inline constexpr int kBatteryStatusFull = 5;

struct DumpsysBattery {
  bool updates_stopped = false;  // values forced by `dumpsys battery set/unplug`
  std::optional<bool> ac_powered;
  std::optional<bool> usb_powered;
  std::optional<bool> wireless_powered;
  std::optional<bool> dock_powered;  // Android 13+
  std::optional<int64_t> max_charging_current_ua;
  std::optional<int64_t> max_charging_voltage_uv;
  std::optional<int64_t> charge_counter_uah;
  std::optional<int> status;  // kBatteryStatus*
  std::optional<int> health;  // BatteryManager.BATTERY_HEALTH_*: 2 good, 3 overheat, …
  std::optional<bool> present;
  std::optional<int> level;
  std::optional<int> scale;
  std::optional<int> voltage_mv;
  std::optional<int> temperature_tenths_c;  // 326 = 32.6 °C
  std::optional<std::string> technology;
  std::optional<int> charging_state;   // newest BatteryService only
  std::optional<int> charging_policy;  // newest BatteryService only
  uint64_t skipped_lines = 0;

  // Plugged into any power source (AC, USB, wireless or dock) — what
  // BatteryManagerInternal.isPowered(BATTERY_PLUGGED_ANY) answers and so what CachedDeviceState,
  // and with it LooperStats, calls "charging". A full battery on USB (status 5) is charging here;
  // a USB-attached lab phone always is, unless `dumpsys battery unplug` forced it otherwise.
  bool IsCharging() const;
};

// Thread-safe (pure function).
// Errors: kEmpty for empty or blank output; kServiceMissing for "Can't find service: battery";
// kPermissionDenied for dumpsys's "Permission Denial: …"; kNotThisFormat when the
// "Current Battery Service state:" header is missing.
Result<DumpsysBattery> ParseDumpsysBattery(std::string_view output);

}  // namespace droidlab::parsers
