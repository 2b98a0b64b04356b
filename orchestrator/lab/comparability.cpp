#include "orchestrator/lab/comparability.h"

#include <nlohmann/json.hpp>

#include "base/joined.h"
#include "orchestrator/run/cooldown.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

namespace {

using nlohmann::json;

json ParsedOrNull(const std::optional<std::string>& text) {
  if (!text) return json();
  return json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

// preflight.package.<key> as stored by the run's preflight (orchestrator/run/preflight.cpp).
template <class T>
std::optional<T> PreflightPackage(const store::Run& run, const char* key) {
  const json preflight = ParsedOrNull(run.preflight_json);
  if (!preflight.is_object() || !preflight.contains("package")) return std::nullopt;
  const json& package = preflight["package"];
  if (!package.is_object() || !package.contains(key)) return std::nullopt;
  const json& value = package[key];
  if constexpr (std::is_same_v<T, std::string>) {
    if (value.is_string()) return value.get<std::string>();
  } else {
    if (value.is_number_integer()) return value.get<T>();
  }
  return std::nullopt;
}

// The compiler filter the run measured under: the state it forced and read back
// (preflight.compilation.reached, orchestrator/run/compilation.h), else the preflight's reading.
std::optional<std::string> MeasuredCompilation(const store::Run& run) {
  const json preflight = ParsedOrNull(run.preflight_json);
  if (preflight.is_object() && preflight.contains("compilation")) {
    const json& c = preflight["compilation"];
    if (c.is_object() && c.contains("reached") && c["reached"].is_string()) {
      return c["reached"].get<std::string>();
    }
  }
  return PreflightPackage<std::string>(run, "compiler_filter");
}

// preflight.compilation.changed_during_run: background dexopt changed the state mid-run.
bool CompilationChanged(const store::Run& run) {
  const json preflight = ParsedOrNull(run.preflight_json);
  if (!preflight.is_object() || !preflight.contains("compilation")) return false;
  const json& c = preflight["compilation"];
  return c.is_object() && c.contains("changed_during_run") && c["changed_during_run"].is_boolean() &&
         c["changed_during_run"].get<bool>();
}

// The run's limits (its spec as stored; the defaults where it says nothing).
CoolEnough LimitsOf(const store::Run& run) {
  CoolEnough limits;
  const json spec = ParsedOrNull(run.spec_json);
  if (!spec.is_object()) return limits;
  auto parsed = ParseRunSpecValue(spec);
  if (parsed) {
    limits.max_thermal_status = parsed->max_thermal_status;
    limits.max_battery_temp_tenths_c = parsed->max_battery_temp_tenths_c;
  }
  return limits;
}

int64_t LaunchesTooHot(std::span<const store::Launch> launches, const CoolEnough& limits) {
  int64_t hot = 0;
  for (const store::Launch& l : launches) {
    if (!l.counted()) continue;
    bool too_hot =
        l.battery_temp_tenths_c && *l.battery_temp_tenths_c > limits.max_battery_temp_tenths_c;
    if (l.thermal_status) {
      for (int status = limits.max_thermal_status + 1; status <= 6; ++status) {
        too_hot = too_hot || *l.thermal_status == ThermalStatusLowerName(status);
      }
    }
    hot += too_hot ? 1 : 0;
  }
  return hot;
}

std::string Either(const std::optional<std::string>& s) { return s ? *s : "unknown"; }

// The compilation states reached after each install of `arm` ("baseline" / "candidate") in
// preflight.side_by_side.installs; an unread state counts as "unknown".
std::vector<std::string> ArmCompilations(const json& installs, std::string_view arm) {
  std::vector<std::string> states;
  if (!installs.is_array()) return states;
  for (const json& i : installs) {
    if (!i.is_object() || i.value("arm", "") != arm) continue;
    const json& reached = i.contains("compilation_reached") ? i["compilation_reached"] : json();
    states.push_back(reached.is_string() ? reached.get<std::string>() : "unknown");
  }
  return states;
}

std::optional<int64_t> ArmVersionCode(const json& installs, std::string_view arm) {
  if (!installs.is_array()) return std::nullopt;
  for (const json& i : installs) {
    if (i.is_object() && i.value("arm", "") == arm && i.contains("version_code") &&
        i["version_code"].is_number_integer()) {
      return i["version_code"].get<int64_t>();
    }
  }
  return std::nullopt;
}

}  // namespace

MeasuredConditions MeasuredConditionsOf(const store::Run& run) {
  MeasuredConditions c;
  c.fingerprint = run.fingerprint;
  const json spec = ParsedOrNull(run.spec_json);
  if (spec.is_object() && spec.contains("build") && spec["build"].is_number_integer()) {
    c.build_id = spec["build"].get<int64_t>();
  }
  const json preflight = ParsedOrNull(run.preflight_json);
  if (preflight.is_object() && preflight.contains("side_by_side") &&
      preflight["side_by_side"].is_object()) {
    const json installs = preflight["side_by_side"].value("installs", json());
    c.version_code = ArmVersionCode(installs, "candidate");
    const std::vector<std::string> states = ArmCompilations(installs, "candidate");
    if (!states.empty()) c.compilation = states.front();
    return c;
  }
  c.version_code = PreflightPackage<int64_t>(run, "version_code");
  c.compilation = MeasuredCompilation(run);
  return c;
}

Comparability JudgeSideBySide(const store::Run& run,
                              std::span<const store::Launch> candidate_launches,
                              std::span<const store::Launch> baseline_launches) {
  Comparability c;
  const json preflight = ParsedOrNull(run.preflight_json);
  json installs;
  if (preflight.is_object() && preflight.contains("side_by_side") &&
      preflight["side_by_side"].is_object()) {
    installs = preflight["side_by_side"].value("installs", json());
  }
  const std::vector<std::string> baseline = ArmCompilations(installs, "baseline");
  const std::vector<std::string> candidate = ArmCompilations(installs, "candidate");
  if (!baseline.empty()) c.baseline_compilation = baseline.front();
  if (!candidate.empty()) c.candidate_compilation = candidate.front();
  std::vector<std::string> all = baseline;
  all.insert(all.end(), candidate.begin(), candidate.end());
  bool one_state = true;
  for (const auto& s : all) one_state = one_state && s == all.front();
  if (!one_state) {
    c.comparable = false;
    c.differences.push_back("the builds were measured in different compilation states: baseline " +
                            Joined(baseline, ", ") + "; candidate " + Joined(candidate, ", "));
  }
  if (CompilationChanged(run)) {
    c.comparable = false;
    c.differences.push_back("the compilation state changed during the run (background dexopt?)");
  }
  const auto candidate_version = ArmVersionCode(installs, "candidate");
  const auto baseline_version = ArmVersionCode(installs, "baseline");
  if (candidate_version && baseline_version) {
    c.same_build = *candidate_version == *baseline_version;
  }
  const CoolEnough limits = LimitsOf(run);
  c.candidate_launches_too_hot = LaunchesTooHot(candidate_launches, limits);
  c.baseline_launches_too_hot = LaunchesTooHot(baseline_launches, limits);
  if (c.candidate_launches_too_hot > 0 || c.baseline_launches_too_hot > 0) {
    c.differences.push_back("launches measured hotter than the run allowed: " +
                            std::to_string(c.baseline_launches_too_hot) + " of the baseline, " +
                            std::to_string(c.candidate_launches_too_hot) + " of the candidate");
  }
  return c;
}

Comparability JudgeComparability(const store::Run& candidate,
                                 std::span<const store::Launch> candidate_launches,
                                 const store::Run& baseline,
                                 std::span<const store::Launch> baseline_launches) {
  Comparability c;
  auto blocking = [&c](std::string what) {
    c.comparable = false;
    c.differences.push_back(std::move(what));
  };
  if (candidate.package != baseline.package) {
    blocking("another package: " + baseline.package + " → " + candidate.package);
  }
  if (candidate.device_model != baseline.device_model) {
    blocking("another device model: " + Either(baseline.device_model) + " → " +
             Either(candidate.device_model));
  }
  if (candidate.mode != baseline.mode) {
    blocking("another launch mode: " + baseline.mode + " → " + candidate.mode);
  }
  if (candidate.fingerprint && baseline.fingerprint &&
      *candidate.fingerprint != *baseline.fingerprint) {
    blocking("the device's Android build changed (an OTA?): " + *baseline.fingerprint + " → " +
             *candidate.fingerprint);
  }
  c.candidate_compilation = MeasuredCompilation(candidate);
  c.baseline_compilation = MeasuredCompilation(baseline);
  if (c.candidate_compilation && c.baseline_compilation &&
      *c.candidate_compilation != *c.baseline_compilation) {
    blocking("another compilation state: " + *c.baseline_compilation + " → " +
             *c.candidate_compilation);
  }
  if (CompilationChanged(baseline)) {
    blocking("the compilation state changed during the baseline run (background dexopt?)");
  }
  if (CompilationChanged(candidate)) {
    blocking("the compilation state changed during this run (background dexopt?)");
  }
  const auto candidate_version = PreflightPackage<int64_t>(candidate, "version_code");
  const auto baseline_version = PreflightPackage<int64_t>(baseline, "version_code");
  if (candidate_version && baseline_version) {
    c.same_build = *candidate_version == *baseline_version;
  }
  c.candidate_launches_too_hot = LaunchesTooHot(candidate_launches, LimitsOf(candidate));
  c.baseline_launches_too_hot = LaunchesTooHot(baseline_launches, LimitsOf(baseline));
  if (c.candidate_launches_too_hot > 0 || c.baseline_launches_too_hot > 0) {
    c.differences.push_back("launches measured hotter than their run allowed: " +
                            std::to_string(c.baseline_launches_too_hot) + " in the baseline, " +
                            std::to_string(c.candidate_launches_too_hot) + " in this run");
  }
  return c;
}

int64_t LaunchesMeasuredTooHot(const store::Run& run, std::span<const store::Launch> launches) {
  return LaunchesTooHot(launches, LimitsOf(run));
}

}  // namespace droidlab::orchestrator
