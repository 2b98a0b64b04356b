#include "tools/devsim/android/service_dumps.h"

#include <cstdio>
#include <functional>
#include <vector>

namespace droidlab::devsim {
namespace {

std::string Bool(bool value) { return value ? "true" : "false"; }

// Float.toString for the one-decimal values devsim uses.
std::string JavaFloat(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// ABI -> the instruction set dexopt prints (VMRuntime.getInstructionSet).
std::string InstructionSet(const std::string& abi) {
  if (abi == "arm64-v8a") return "arm64";
  if (abi.starts_with("armeabi")) return "arm";
  if (abi == "x86_64") return "x86_64";
  if (abi == "x86") return "x86";
  return abi;
}

}  // namespace

BatteryState BatteryStateFromSpec(const BatterySpec& spec) {
  BatteryState state;
  state.ac = spec.ac;
  state.usb = spec.usb;
  state.wireless = spec.wireless;
  state.level = spec.level;
  state.status = spec.status;
  state.temperature = spec.temperature;
  state.voltage = spec.voltage;
  state.charge_counter = spec.charge_counter;
  if (!state.Plugged()) state.max_charging_current = state.max_charging_voltage = 0;
  return state;
}

std::string FormatBatteryDump(int sdk, const BatteryState& s, bool updates_stopped) {
  std::string out = "Current Battery Service state:\n";
  if (updates_stopped) out += "  (UPDATES STOPPED -- use 'reset' to restart)\n";
  out += "  AC powered: " + Bool(s.ac) + "\n";
  out += "  USB powered: " + Bool(s.usb) + "\n";
  out += "  Wireless powered: " + Bool(s.wireless) + "\n";
  // HealthInfo.chargerDockOnline reaches the dump in Android 14 (absent in Android 13's).
  if (sdk >= 34) out += "  Dock powered: " + Bool(s.dock) + "\n";
  out += "  Max charging current: " + std::to_string(s.max_charging_current) + "\n";
  out += "  Max charging voltage: " + std::to_string(s.max_charging_voltage) + "\n";
  out += "  Charge counter: " + std::to_string(s.charge_counter) + "\n";
  out += "  status: " + std::to_string(s.status) + "\n";
  out += "  health: " + std::to_string(s.health) + "\n";
  out += "  present: " + Bool(s.present) + "\n";
  out += "  level: " + std::to_string(s.level) + "\n";
  out += "  scale: 100\n";
  out += "  voltage: " + std::to_string(s.voltage) + "\n";
  out += "  temperature: " + std::to_string(s.temperature) + "\n";
  out += "  technology: " + s.technology + "\n";
  return out;
}

std::string FormatPowerDump(int sdk, bool awake, const BatteryState& battery) {
  const std::string wakefulness = awake ? "Awake" : "Asleep";
  std::string out = "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n";
  out += "  Settings power_manager_constants:\n    no_cached_wake_locks=true\n";
  out += "  mDirty=0x0\n";
  out += "  mWakefulness=" + wakefulness + "\n";
  if (sdk >= 31) out += "  mWakefulnessRaw=" + wakefulness + "\n";  // PowerGroups, Android 12
  out += "  mWakefulnessChanging=false\n";
  out += "  mIsPowered=" + Bool(battery.Plugged()) + "\n";
  out += std::string("  mPlugType=") + (battery.ac ? "1" : battery.usb ? "2" : battery.wireless ? "4" : "0") + "\n";
  out += "  mBatteryLevel=" + std::to_string(battery.level) + "\n";
  out += "  mBatteryLevelWhenDreamStarted=0\n  mDockState=0\n  mStayOn=false\n";
  out += "  mProximityPositive=false\n  mBootCompleted=true\n  mSystemReady=true\n";
  out += std::string("\nDisplay Power: state=") + (awake ? "ON" : "OFF") + "\n";
  return out;
}

std::string FormatActivitiesDump(int sdk, bool keyguard_showing) {
  std::string out = "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n";
  out += "Display #0 (activities from top to bottom):\n";
  out += "  ResumedActivity: ActivityRecord{7d3c2a1 u0 com.google.android.apps.nexuslauncher/.NexusLauncherActivity t11}\n";
  if (sdk < 29) {
    out += "  isHomeRecentsComponent=true  KeyguardController:\n";
  } else {
    out += "\n  KeyguardController:\n";
  }
  out += "    mKeyguardShowing=" + Bool(keyguard_showing) + "\n";
  out += "    mAodShowing=false\n";
  out += "    mKeyguardGoingAway=false\n";
  if (sdk < 29) {
    out += "    mOccluded=false\n    mDismissingKeyguardActivity=null\n";
    out += "    mDismissalRequested=false\n    mVisibilityTransactionDepth=0\n";
  } else {
    out += "    Occluded=false DismissingKeyguardActivity=null at display=0\n";
    out += "    mDismissalRequested=false\n\n";
  }
  out += "  LockTaskController:\n    mLockTaskModeState=NONE\n";
  return out;
}

std::string FormatThermalDump(int sdk, int thermal_status, bool status_override,
                              const std::vector<ThermalReading>& readings) {
  if (sdk < 29) return "";  // frameworks/native thermalservice: BBinder's empty dump
  auto temperature = [](const ThermalReading& r) {
    return "\tTemperature{mValue=" + JavaFloat(r.value) + ", mType=" + std::to_string(r.type) +
           ", mName=" + r.name + ", mStatus=" + std::to_string(r.status) + "}\n";
  };
  // RemoteCallbackList.dump(pw, "\t"): one registered listener each (SystemUI, PowerUI).
  const std::string listeners = "\tcallbacks: 1\n\tkilled: false\n\tbroadcasts count: -1\n";
  std::string out = "IsStatusOverride: " + Bool(status_override) + "\n";
  out += "ThermalEventListeners:\n" + listeners;
  out += "ThermalStatusListeners:\n" + listeners;
  out += "Thermal Status: " + std::to_string(thermal_status) + "\n";
  out += "Cached temperatures:\n";
  for (const auto& r : readings) out += temperature(r);
  out += "HAL Ready: true\n";
  out += "HAL connection:\n";
  // Android 10-12 phones: the HIDL Thermal HAL 2.0; Android 13+: the AIDL HAL, version 1.
  out += sdk >= 33 ? "\tThermalHAL AIDL 1  connected: yes\n" : "\tThermalHAL 2.0 connected: yes\n";
  out += "Current temperatures from HAL:\n";
  for (const auto& r : readings) out += temperature(r);
  out += "Current cooling devices from HAL:\n";
  out += "\tCoolingDevice{mValue=0, mType=2, mName=thermal-cpufreq-0}\n";
  out += "\tCoolingDevice{mValue=0, mType=3, mName=thermal-gpufreq-0}\n";
  // getTemperatureThresholds arrived with the headroom API (Android 11). devsim's HAL reports
  // no static thresholds, so the section is empty.
  if (sdk >= 30) out += "Temperature static thresholds from HAL:\n";
  return out;
}

std::string FormatPackageSignatures(int sdk, const PackageDumpInfo& info) {
  const PackageSpec& p = *info.spec;
  // System.identityHashCode(this): any object's; here the dump's hash with its last digit moved.
  const std::string identity = info.hash.substr(1) + info.hash.substr(0, 1);
  if (sdk < 28) {
    // Android 8.1 and older: each Signature object's identityHashCode, nothing of the key. One
    // per signer; it changes with every install (the code path does).
    if (p.signature.empty()) return "PackageSignatures{" + identity + " []}";
    char object[16];
    std::snprintf(object, sizeof object, "%x",
                  static_cast<unsigned>(std::hash<std::string>{}(info.code_path) & 0x7fffffff));
    return "PackageSignatures{" + identity + " [" + object + "]}";
  }
  return "PackageSignatures{" + identity + " version:" + std::to_string(p.signature_scheme) +
         ", signatures:[" + p.signature + "], past signatures:[]}";
}

std::string FormatPackageDump(int sdk, const PackageDumpInfo& info) {
  const PackageSpec& p = *info.spec;
  const std::string isa = InstructionSet(info.abi);
  std::string out;
  out += "Packages:\n";
  out += "  Package [" + p.name + "] (" + info.hash + "):\n";
  // appId= replaced userId= in Android 12's dump.
  out += (sdk >= 31 ? "    appId=" : "    userId=") + std::to_string(p.uid % 100000) + "\n";
  out += "    pkg=Package{" + info.hash.substr(0, 7) + "1 " + p.name + "}\n";
  out += "    codePath=" + info.code_path + "\n";
  out += "    resourcePath=" + info.code_path + "\n";
  out += "    legacyNativeLibraryDir=" + info.code_path + "/lib\n";
  out += "    primaryCpuAbi=" + info.abi + "\n";
  out += "    secondaryCpuAbi=null\n";
  out += "    versionCode=" + std::to_string(p.version_code) + " minSdk=" +
         std::to_string(p.min_sdk) + " targetSdk=" + std::to_string(p.target_sdk) + "\n";
  if (sdk >= 31) out += "    minExtensionVersions=[]\n";
  out += "    versionName=" + p.version_name + "\n";
  // Settings.dumpPackageLPr's dumpSplitNames (Android 5+): "[base, config.arm64_v8a]", a name
  // followed by ":REV" only when its revisionCode is not 0 (never in devsim's APKs).
  out += "    splits=[base";
  for (const std::string& split : info.splits) out += ", " + split;
  out += "]\n";
  out += "    apkSigningVersion=" + std::to_string(p.signature_scheme) + "\n";
  out += "    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n";
  out += "    dataDir=/data/user/0/" + p.name + "\n";
  out += "    timeStamp=" + info.first_install + "\n";
  out += "    firstInstallTime=" + info.first_install + "\n";
  out += "    lastUpdateTime=" + info.first_install + "\n";
  out += "    installerPackageName=com.android.vending\n";
  out += "    signatures=" + FormatPackageSignatures(sdk, info) + "\n";
  out += "\n";
  out += "Dexopt state:\n";
  out += "  [" + p.name + "]\n";
  out += "    path: " + info.code_path + "/base.apk\n";
  // Android 10 added the primary-abi marker and the artifact location (PackageDexOptimizer);
  // Android 14's ART Service DumpHelper prints the same lines.
  out += "      " + isa + ": [status=" + p.compiler_filter + "] [reason=" + p.compilation_reason +
         "]" + (sdk >= 29 ? " [primary-abi]" : "") + "\n";
  if (sdk >= 29) {
    out += "        [location is " + info.code_path + "/oat/" + isa + "/base.odex]\n";
  }
  return out;
}

std::string FormatResolveActivityBrief(const std::string& component_short) {
  return "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n" +
         component_short + "\n";
}

}  // namespace droidlab::devsim
