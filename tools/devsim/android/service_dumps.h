// The text of `dumpsys battery`, `dumpsys thermalservice`, `dumpsys package PKG` and
// `cmd package resolve-activity --brief`, per SDK. Sources (frameworks/base unless said):
//   services/core/java/com/android/server/BatteryService.java  dumpInternal
//   services/core/java/com/android/server/power/ThermalManagerService.java  dump
//     (Android 9 has only frameworks/native's thermalservice, which has no dump: empty)
//   services/core/java/com/android/server/pm/PackageManagerService.java / ComputerEngine
//     dumpPackagesLPr ("Packages:" section) and PackageDexOptimizer.dumpDexoptState
//     (ART Service's DumpHelper from Android 14) for "Dexopt state:"
//   PackageManagerShellCommand.runResolveActivity / printResolveInfo (--brief)
#pragma once

#include <string>
#include <vector>

#include "tools/devsim/android/scenario.h"

namespace droidlab::devsim {

struct BatteryState {
  bool ac = false;
  bool usb = true;
  bool wireless = false;
  bool dock = false;
  int max_charging_current = 500000;   // microamperes
  int max_charging_voltage = 5000000;  // microvolts
  long charge_counter = 3685000;
  int status = 2;
  int health = 2;  // BATTERY_HEALTH_GOOD
  bool present = true;
  int level = 85;
  int voltage = 4210;
  int temperature = 285;
  std::string technology = "Li-ion";
  int invalid_charger = 0;

  // BatteryManagerInternal.getPlugType() != NONE: what CachedDeviceState.isCharging follows.
  bool Plugged() const { return ac || usb || wireless || dock; }
};

BatteryState BatteryStateFromSpec(const BatterySpec& spec);

// "Current Battery Service state:" … ; "Dock powered" exists from Android 14.
std::string FormatBatteryDump(int sdk, const BatteryState& state, bool updates_stopped);

struct ThermalReading {
  double value = 0;  // degrees Celsius
  int type = 0;      // Temperature.TYPE_CPU 0, GPU 1, BATTERY 2, SKIN 3
  std::string name;
  int status = 0;    // Temperature.THROTTLING_NONE 0 …
};

// IsStatusOverride / listeners / Thermal Status / Cached temperatures / HAL …; "" on SDK 28.
std::string FormatThermalDump(int sdk, int thermal_status, bool status_override,
                              const std::vector<ThermalReading>& readings);

// `dumpsys power`, the head of PowerManagerService.dumpInternal (power/PowerManagerService.java):
// mWakefulness is wakefulnessToString (Awake, Asleep, …).
std::string FormatPowerDump(int sdk, bool awake, const BatteryState& battery);

// `dumpsys activity activities`, reduced to what a lab reads: the KeyguardController section
// (wm/KeyguardController.java dump; am/ on Android 9, printed on the line of
// isHomeRecentsComponent there).
std::string FormatActivitiesDump(int sdk, bool keyguard_showing);

struct PackageDumpInfo {
  const PackageSpec* spec = nullptr;
  std::string code_path;  // the APK's directory
  std::string hash;       // identity hash printed after "Package [name]"
  std::string abi;        // "arm64-v8a"
  std::string first_install;  // "2024-03-18 09:41:07"
  std::vector<std::string> splits;  // split APKs' names, sorted (App::splits)
};

// The value of the package block's "signatures=" line (PackageSignatures.toString,
// services/core/java/com/android/server/pm/PackageSignatures.java): Android 9+ "PackageSignatures{
// ID version:N, signatures:[HASH], past signatures:[]}" from the APK's certificate; before, the
// Signature objects' identity hashes ("PackageSignatures{ID [HASH]}"), which say nothing of it.
std::string FormatPackageSignatures(int sdk, const PackageDumpInfo& info);

// `dumpsys package PKG`: the Packages: entry and the Dexopt state: section.
std::string FormatPackageDump(int sdk, const PackageDumpInfo& info);

// `cmd package resolve-activity --brief …`: the ResolveInfo line and the component.
std::string FormatResolveActivityBrief(const std::string& component_short);

}  // namespace droidlab::devsim
