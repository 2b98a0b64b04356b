#include "tools/devsim/android/scenario.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace droidlab::devsim {
namespace {

using nlohmann::json;

template <typename T>
void Read(const json& object, const char* key, T& out) {
  const auto it = object.find(key);
  if (it != object.end() && !it->is_null()) out = it->get<T>();
}

void ReadDistribution(const json& object, const char* key, LaunchTimeDistribution& out) {
  const auto it = object.find(key);
  if (it == object.end()) return;
  Read(*it, "mean", out.mean_ms);
  Read(*it, "stddev", out.stddev_ms);
}

}  // namespace

std::string ReleaseForSdk(int sdk) {
  switch (sdk) {
    case 26:
      return "8.0.0";
    case 27:
      return "8.1.0";
    case 28:
      return "9";
    case 29:
      return "10";
    case 30:
      return "11";
    case 31:
      return "12";
    case 32:
      return "12";
    case 33:
      return "13";
    case 34:
      return "14";
    case 35:
      return "15";
    case 36:
      return "16";
    default:
      return "";
  }
}

Scenario DefaultScenario() {
  Scenario scenario;
  PackageSpec example;
  example.name = "com.example.app";
  example.activity = ".MainActivity";
  example.uid = 10123;
  example.reports_fully_drawn = true;
  PackageSpec settings;
  settings.name = "com.android.settings";
  settings.activity = ".Settings";
  settings.uid = 1000;
  settings.cold = {450, 40};
  settings.warm = {220, 20};
  settings.hot = {90, 10};
  settings.version_name = "13";
  settings.version_code = 33;
  settings.min_sdk = 33;
  settings.compiler_filter = "speed";
  settings.compilation_reason = "prebuilt";
  scenario.packages = {example, settings};
  FinishScenario(scenario);
  return scenario;
}

std::string FinishScenario(Scenario& scenario) {
  DeviceSpec& d = scenario.device;
  if (d.release.empty()) d.release = ReleaseForSdk(d.sdk);
  if (d.release.empty()) d.release = std::to_string(d.sdk);
  if (d.fingerprint.empty()) {
    // Fingerprints start with the brand in lower case: google/panther/panther:13/…
    std::string brand = d.manufacturer;
    for (auto& c : brand) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    d.fingerprint = brand + "/" + d.product + "/" + d.device + ":" + d.release + "/DEVSIM." +
                    std::to_string(d.sdk) + "/1:user/release-keys";
    for (auto& c : d.fingerprint) {
      if (c == ' ') c = '_';
    }
  }
  for (const std::string* value : {&d.model, &d.device, &d.product}) {
    if (value->find_first_of(":;") != std::string::npos) {
      return "device model, device and product must not contain ':' or ';' (they go into the "
             "connect banner): \"" +
             *value + "\"";
    }
  }
  if (d.sdk < 21) return "device.sdk must be 21 or newer";
  if (d.refresh_hz < 1 || d.refresh_hz > 1000) return "device.refresh_hz must be 1 to 1000";
  if (scenario.noise_lines_per_s < 0 || scenario.noise_lines_per_s > 1e6) {
    return "noise_lines_per_s must be between 0 and 1000000";
  }
  if (scenario.looper_entries_cap < 1) return "looper_entries_cap must be positive";
  for (const auto& package : scenario.packages) {
    if (package.name.empty() || package.activity.empty()) {
      return "every package needs a name and an activity";
    }
    const FrameSpec& f = package.frames;
    if (f.per_launch < 0 || f.per_input < 0 || f.ms < 1 || f.jank_every < 0 || f.jank_ms < 1 ||
        f.refresh_hz < 1) {
      return "frames: per_launch, per_input and jank_every must be >= 0, ms, jank_ms and "
             "refresh_hz >= 1";
    }
  }
  return "";
}

std::variant<Scenario, std::string> ParseScenario(std::string_view json_text) {
  Scenario scenario;
  try {
    const json root = json::parse(json_text);
    Read(root, "seed", scenario.seed);
    if (const auto it = root.find("device"); it != root.end()) {
      DeviceSpec& d = scenario.device;
      Read(*it, "serial", d.serial);
      Read(*it, "model", d.model);
      Read(*it, "manufacturer", d.manufacturer);
      Read(*it, "device", d.device);
      Read(*it, "product", d.product);
      Read(*it, "sdk", d.sdk);
      Read(*it, "release", d.release);
      Read(*it, "abi", d.abi);
      Read(*it, "fingerprint", d.fingerprint);
      Read(*it, "uptime_s", d.uptime_s);
      Read(*it, "refresh_hz", d.refresh_hz);
    }
    if (const auto it = root.find("packages"); it != root.end()) {
      for (const auto& entry : *it) {
        PackageSpec package;
        Read(entry, "name", package.name);
        Read(entry, "activity", package.activity);
        Read(entry, "uid", package.uid);
        ReadDistribution(entry, "cold", package.cold);
        ReadDistribution(entry, "warm", package.warm);
        ReadDistribution(entry, "hot", package.hot);
        ReadDistribution(entry, "fully_drawn", package.fully_drawn);
        Read(entry, "reports_fully_drawn", package.reports_fully_drawn);
        Read(entry, "version_name", package.version_name);
        Read(entry, "version_code", package.version_code);
        Read(entry, "min_sdk", package.min_sdk);
        Read(entry, "target_sdk", package.target_sdk);
        Read(entry, "signature", package.signature);
        Read(entry, "signature_scheme", package.signature_scheme);
        Read(entry, "compiler_filter", package.compiler_filter);
        Read(entry, "compilation_reason", package.compilation_reason);
        Read(entry, "has_profile", package.has_profile);
        Read(entry, "bg_dexopt_after_s", package.bg_dexopt_after_s);
        if (const auto f = entry.find("launch_factor_by_version_code"); f != entry.end()) {
          for (const auto& [code, factor] : f->items()) {
            package.launch_factor_by_version_code[std::stol(code)] = factor.get<double>();
          }
        }
        if (const auto f = entry.find("frames"); f != entry.end()) {
          FrameSpec& fr = package.frames;
          Read(*f, "per_launch", fr.per_launch);
          Read(*f, "per_input", fr.per_input);
          Read(*f, "ms", fr.ms);
          Read(*f, "jank_every", fr.jank_every);
          Read(*f, "jank_ms", fr.jank_ms);
          Read(*f, "refresh_hz", fr.refresh_hz);
        }
        if (const auto m = entry.find("memory"); m != entry.end()) {
          MemorySpec& mem = package.memory;
          Read(*m, "java_heap_kb", mem.java_heap_kb);
          Read(*m, "native_heap_kb", mem.native_heap_kb);
          Read(*m, "code_kb", mem.code_kb);
          Read(*m, "stack_kb", mem.stack_kb);
          Read(*m, "graphics_kb", mem.graphics_kb);
          Read(*m, "private_other_kb", mem.private_other_kb);
          Read(*m, "system_kb", mem.system_kb);
          Read(*m, "swap_pss_kb", mem.swap_pss_kb);
          Read(*m, "views", mem.views);
          Read(*m, "view_root_impl", mem.view_root_impl);
          Read(*m, "app_contexts", mem.app_contexts);
          Read(*m, "activities", mem.activities);
          Read(*m, "activities_leak_per_launch", mem.activities_leak_per_launch);
          Read(*m, "leaked_activity_kb", mem.leaked_activity_kb);
        }
        Read(entry, "crash_on_launch", package.crash_on_launch);
        Read(entry, "anr_on_launch", package.anr_on_launch);
        Read(entry, "native_crash_on_launch", package.native_crash_on_launch);
        if (const auto slow = entry.find("slow_messages"); slow != entry.end() && slow->is_array()) {
          for (const json& s : *slow) {
            SlowMessageSpec message;
            Read(s, "kind", message.kind);
            Read(s, "ms", message.ms);
            Read(s, "h", message.handler);
            Read(s, "c", message.callback);
            Read(s, "m", message.what);
            package.slow_messages.push_back(std::move(message));
          }
        }
        scenario.packages.push_back(std::move(package));
      }
    } else {
      scenario.packages = DefaultScenario().packages;
    }
    if (const auto it = root.find("battery"); it != root.end()) {
      BatterySpec& b = scenario.battery;
      Read(*it, "ac", b.ac);
      Read(*it, "usb", b.usb);
      Read(*it, "wireless", b.wireless);
      Read(*it, "level", b.level);
      Read(*it, "status", b.status);
      Read(*it, "temperature", b.temperature);
      Read(*it, "voltage", b.voltage);
      Read(*it, "charge_counter", b.charge_counter);
    }
    if (const auto it = root.find("screen"); it != root.end()) {
      Read(*it, "on", scenario.screen.on);
      Read(*it, "locked", scenario.screen.locked);
    }
    if (const auto it = root.find("heat"); it != root.end()) {
      HeatSpec& h = scenario.heat;
      Read(*it, "per_cold_launch_c", h.per_cold_launch_c);
      Read(*it, "start_c", h.start_c);
      Read(*it, "half_life_s", h.half_life_s);
      Read(*it, "slowdown_pct_per_c", h.slowdown_pct_per_c);
      if (h.per_cold_launch_c < 0 || h.start_c < 0 || !(h.half_life_s > 0) ||
          h.slowdown_pct_per_c < 0) {
        return std::string(
            "scenario: heat: per_cold_launch_c, start_c and slowdown_pct_per_c must be >= 0, "
            "half_life_s > 0");
      }
    }
    Read(root, "noise_lines_per_s", scenario.noise_lines_per_s);
    Read(root, "looper_entries_cap", scenario.looper_entries_cap);
    Read(root, "looper_new_entries_per_s", scenario.looper_new_entries_per_s);
    if (const auto it = root.find("faults"); it != root.end()) {
      for (const auto& entry : *it) {
        ScheduledFault fault;
        Read(entry, "at_s", fault.at_s);
        Read(entry, "args", fault.args);
        if (fault.args.empty()) return std::string("scenario: every fault needs \"args\"");
        scenario.faults.push_back(std::move(fault));
      }
    }
  } catch (const json::exception& e) {
    return std::string("scenario: ") + e.what();
  }
  if (std::string error = FinishScenario(scenario); !error.empty()) return "scenario: " + error;
  return scenario;
}

}  // namespace droidlab::devsim
