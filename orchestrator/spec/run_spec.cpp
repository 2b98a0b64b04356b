#include "orchestrator/spec/run_spec.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "adb/names.h"
#include "orchestrator/spec/json_body.h"

namespace droidlab::orchestrator {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 24> kKnownFields = {"serial",
                                                           "pool",
                                                           "package",
                                                           "activity",
                                                           "mode",
                                                           "iterations",
                                                           "looper_stats",
                                                           "proc_sample_interval_ms",
                                                           "slow_message_ms",
                                                           "launch_timeout_ms",
                                                           "fully_drawn_timeout_ms",
                                                           "on_launch_failure",
                                                           "preflight",
                                                           "warmup",
                                                           "max_thermal",
                                                           "max_battery_temp_c",
                                                           "cooldown_timeout_s",
                                                           "cooldown",
                                                           "compilation",
                                                           "build",
                                                           "baseline_build",
                                                           "block",
                                                           "kind",
                                                           "scenario"};

struct CompilationNameOf {
  Compilation value;
  const char* name;
};
constexpr CompilationNameOf kCompilationNames[] = {{Compilation::kAsIs, "as-is"},
                                                   {Compilation::kSpeedProfile, "speed-profile"},
                                                   {Compilation::kSpeed, "speed"},
                                                   {Compilation::kVerify, "verify"},
                                                   {Compilation::kNone, "none"}};

// PowerManager.THERMAL_STATUS_* by value, as a run spec names them.
constexpr std::array<std::string_view, 7> kThermalStatusNames = {
    "none", "light", "moderate", "severe", "critical", "emergency", "shutdown"};

std::string Range(int64_t lo, int64_t hi) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
}

const char* TypeName(const json& v) { return v.type_name(); }

std::optional<FieldError> ReadString(const json& v, const std::string& field, std::string& out) {
  if (!v.is_string()) return Error(field, std::string("must be a string, got ") + TypeName(v));
  out = v.get<std::string>();
  return std::nullopt;
}

bool IsJavaIdentifierStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsJavaIdentifierPart(char c) { return IsJavaIdentifierStart(c) || (c >= '0' && c <= '9'); }

// ".Main" or "com.example.app.Main": Java identifiers joined by '.', with one optional leading
// '.' (relative to the package). Narrower than Java: no '$' (a nested launcher activity is rare
// and '$' is the shell's expansion character) and ASCII only.
std::optional<std::string> ActivityProblem(std::string_view text) {
  if (text.empty()) return "must not be empty";
  if (text.size() > adb::kMaxClassNameLength) {
    return "is longer than " + std::to_string(adb::kMaxClassNameLength) + " bytes";
  }
  std::string_view rest = text;
  if (rest.front() == '.') rest.remove_prefix(1);
  size_t at = text.size() - rest.size();
  bool segment_start = true;
  for (char c : rest) {
    const bool ok = c == '.' ? !segment_start
                             : (segment_start ? IsJavaIdentifierStart(c) : IsJavaIdentifierPart(c));
    if (!ok) {
      const unsigned char u = static_cast<unsigned char>(c);
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", u);
      if (c == '.') return "has an empty segment at " + std::to_string(at);
      return std::string("is not a Java class name: bad byte ") + hex + " at " + std::to_string(at);
    }
    segment_start = c == '.';
    ++at;
  }
  if (segment_start) return "must not end with '.'";
  return std::nullopt;
}

}  // namespace

const char* LaunchModeName(LaunchMode mode) {
  switch (mode) {
    case LaunchMode::kCold:
      return "cold";
    case LaunchMode::kWarm:
      return "warm";
    case LaunchMode::kHot:
      return "hot";
  }
  return "cold";
}

std::optional<LaunchMode> LaunchModeFromName(std::string_view name) {
  if (name == "cold") return LaunchMode::kCold;
  if (name == "warm") return LaunchMode::kWarm;
  if (name == "hot") return LaunchMode::kHot;
  return std::nullopt;
}

std::optional<FieldError> ValidateRunSpec(const RunSpec& spec) {
  // A pool run has no serial until it is claimed, and then its phone's.
  if (!spec.pool || !spec.serial.empty()) {
    if (auto s = adb::Serial::Parse(spec.serial); !s) return Error("serial", s.error().message);
  }
  if (auto p = adb::PackageName::Parse(spec.package); !p) {
    return Error("package", p.error().message);
  }
  if (spec.activity) {
    if (auto problem = ActivityProblem(*spec.activity)) return Error("activity", *problem);
    // The component as `am start -n` will get it must pass adb's grammar too.
    if (auto c = adb::ComponentName::Parse(spec.package + "/" + *spec.activity); !c) {
      return Error("activity", c.error().message);
    }
  }
  if (spec.iterations < 1 || spec.iterations > kMaxIterations) {
    return Error("iterations",
                 Range(1, kMaxIterations) + ", got " + std::to_string(spec.iterations));
  }
  if (spec.looper_sampling_interval && (*spec.looper_sampling_interval < 1 ||
                                        *spec.looper_sampling_interval > kMaxSamplingInterval)) {
    return Error(
        "looper_stats.sampling_interval",
        Range(1, kMaxSamplingInterval) + ", got " + std::to_string(*spec.looper_sampling_interval));
  }
  if (spec.proc_sample_interval_ms && (*spec.proc_sample_interval_ms < kMinProcSampleIntervalMs ||
                                       *spec.proc_sample_interval_ms > kMaxProcSampleIntervalMs)) {
    return Error("proc_sample_interval_ms",
                 Range(kMinProcSampleIntervalMs, kMaxProcSampleIntervalMs) + ", got " +
                     std::to_string(*spec.proc_sample_interval_ms));
  }
  if (spec.slow_message_ms && (*spec.slow_message_ms < 1 ||
                               *spec.slow_message_ms > kMaxSlowMessageMs)) {
    return Error("slow_message_ms", Range(1, kMaxSlowMessageMs) + ", got " +
                                        std::to_string(*spec.slow_message_ms));
  }
  if (spec.launch_timeout_ms < 1 || spec.launch_timeout_ms > kMaxTimeoutMs) {
    return Error("launch_timeout_ms",
                 Range(1, kMaxTimeoutMs) + ", got " + std::to_string(spec.launch_timeout_ms));
  }
  if (spec.fully_drawn_timeout_ms < 0 || spec.fully_drawn_timeout_ms > kMaxTimeoutMs) {
    return Error("fully_drawn_timeout_ms",
                 Range(0, kMaxTimeoutMs) + ", got " + std::to_string(spec.fully_drawn_timeout_ms));
  }
  if (spec.warmup < 0 || spec.warmup > kMaxWarmup) {
    return Error("warmup", Range(0, kMaxWarmup) + ", got " + std::to_string(spec.warmup));
  }
  if (spec.max_thermal_status < 0 ||
      spec.max_thermal_status >= static_cast<int>(kThermalStatusNames.size())) {
    return Error("max_thermal", "must be a thermal status name");
  }
  if (spec.max_battery_temp_tenths_c < kMinBatteryTempLimit ||
      spec.max_battery_temp_tenths_c > kMaxBatteryTempLimit) {
    return Error("max_battery_temp_c", Range(kMinBatteryTempLimit / 10, kMaxBatteryTempLimit / 10));
  }
  if (spec.cooldown_timeout_s < 0 || spec.cooldown_timeout_s > kMaxCooldownTimeoutS) {
    return Error("cooldown_timeout_s", Range(0, kMaxCooldownTimeoutS) + ", got " +
                                           std::to_string(spec.cooldown_timeout_s));
  }
  if (spec.baseline_build && !spec.build) {
    return Error("baseline_build", "needs \"build\": the build measured against the baseline");
  }
  if (spec.block < 1 || spec.block > kMaxIterations) {
    return Error("block", Range(1, kMaxIterations) + ", got " + std::to_string(spec.block));
  }
  if (spec.block != kDefaultBlock && !spec.baseline_build) {
    return Error("block", "is only for a side-by-side run (\"baseline_build\")");
  }
  if (spec.calibration && !spec.build) {
    return Error("kind", "calibration needs \"build\": the build measured twice");
  }
  if (spec.calibration && spec.baseline_build != spec.build) {
    return Error("baseline_build",
                 "a calibration run measures its \"build\" against itself: leave baseline_build out");
  }
  return std::nullopt;
}

BasicResult<RunSpec, FieldError> ParseRunSpec(std::string_view text) {
  auto body = ParseJsonBody(text);
  if (!body) return body.error();
  return ParseRunSpecValue(*body);
}

BasicResult<RunSpec, FieldError> ParseRunSpecValue(const json& body) {
  if (!body.is_object()) {
    return Error("", std::string("must be a JSON object, got ") + TypeName(body));
  }
  for (const auto& [key, value] : body.items()) {
    bool known = false;
    for (std::string_view k : kKnownFields) known = known || k == key;
    if (!known) return Error(key, "is not a field of a run");
  }
  RunSpec spec;
  auto field = [&](const char* name) -> const json* {
    auto it = body.find(name);
    if (it == body.end()) return nullptr;
    return &*it;
  };
  auto missing = [](const char* name) { return Error(name, "is required"); };

  const json* v = field("serial");
  const json* pool = field("pool");
  if (pool && !pool->is_null()) {
    auto parsed = ParseDevicePool(*pool, "pool");
    if (!parsed) return parsed.error();
    spec.pool = std::move(*parsed);
    // A stored pool run's spec says "serial": null (RunSpecToJson).
    if (v && !v->is_null()) return Error("pool", "give a serial or a pool, not both");
  } else {
    if (!v) return missing("serial");
    if (auto e = ReadString(*v, "serial", spec.serial)) return *e;
    if (auto s = adb::Serial::Parse(spec.serial); !s) return Error("serial", s.error().message);
  }

  v = field("package");
  if (!v) return missing("package");
  if (auto e = ReadString(*v, "package", spec.package)) return *e;
  if (auto p = adb::PackageName::Parse(spec.package); !p) {
    return Error("package", p.error().message);
  }

  v = field("activity");
  if (v && !v->is_null()) {
    std::string activity;
    if (auto e = ReadString(*v, "activity", activity)) return *e;
    spec.activity = std::move(activity);
  }
  if (spec.activity) {
    if (auto problem = ActivityProblem(*spec.activity)) return Error("activity", *problem);
  }

  v = field("mode");
  if (!v) return missing("mode");
  std::string mode;
  if (auto e = ReadString(*v, "mode", mode)) return *e;
  auto parsed_mode = LaunchModeFromName(mode);
  if (!parsed_mode) return Error("mode", "must be \"cold\", \"warm\" or \"hot\", got " + v->dump());
  spec.mode = *parsed_mode;

  v = field("iterations");
  if (!v) return missing("iterations");
  if (auto e = ReadIntField(*v, "iterations", 1, kMaxIterations, spec.iterations)) return *e;

  v = field("looper_stats");
  if (v && !v->is_null()) {
    if (!v->is_object()) {
      return Error("looper_stats", std::string("must be an object, got ") + TypeName(*v));
    }
    for (const auto& [key, value] : v->items()) {
      if (key != "sampling_interval") {
        return Error("looper_stats." + key, "is not a field of looper_stats");
      }
    }
    auto it = v->find("sampling_interval");
    if (it == v->end()) return missing("looper_stats.sampling_interval");
    int64_t interval = 0;
    if (auto e =
            ReadIntField(*it, "looper_stats.sampling_interval", 1, kMaxSamplingInterval, interval)) {
      return *e;
    }
    spec.looper_sampling_interval = interval;
  }

  v = field("proc_sample_interval_ms");
  if (v && !v->is_null()) {
    int64_t interval = 0;
    if (auto e = ReadIntField(*v, "proc_sample_interval_ms", kMinProcSampleIntervalMs,
                         kMaxProcSampleIntervalMs, interval)) {
      return *e;
    }
    spec.proc_sample_interval_ms = interval;
  }

  v = field("slow_message_ms");
  if (v && !v->is_null()) {
    int64_t threshold = 0;
    if (auto e = ReadIntField(*v, "slow_message_ms", 1, kMaxSlowMessageMs, threshold)) {
      return *e;
    }
    spec.slow_message_ms = threshold;
  }

  if ((v = field("launch_timeout_ms"))) {
    if (auto e = ReadIntField(*v, "launch_timeout_ms", 1, kMaxTimeoutMs, spec.launch_timeout_ms)) {
      return *e;
    }
  }
  if ((v = field("fully_drawn_timeout_ms"))) {
    if (auto e =
            ReadIntField(*v, "fully_drawn_timeout_ms", 0, kMaxTimeoutMs, spec.fully_drawn_timeout_ms)) {
      return *e;
    }
  }
  if ((v = field("on_launch_failure"))) {
    std::string s;
    if (auto e = ReadString(*v, "on_launch_failure", s)) return *e;
    if (s == "continue") {
      spec.on_launch_failure = OnLaunchFailure::kContinue;
    } else if (s == "fail") {
      spec.on_launch_failure = OnLaunchFailure::kFail;
    } else {
      return Error("on_launch_failure", "must be \"continue\" or \"fail\", got " + v->dump());
    }
  }
  if ((v = field("preflight"))) {
    std::string s;
    if (auto e = ReadString(*v, "preflight", s)) return *e;
    if (s == "enforce") {
      spec.preflight_enforce = true;
    } else if (s == "warn") {
      spec.preflight_enforce = false;
    } else {
      return Error("preflight", "must be \"enforce\" or \"warn\", got " + v->dump());
    }
  }
  if ((v = field("warmup"))) {
    if (auto e = ReadIntField(*v, "warmup", 0, kMaxWarmup, spec.warmup)) return *e;
  }
  if ((v = field("max_thermal"))) {
    std::string s;
    if (auto e = ReadString(*v, "max_thermal", s)) return *e;
    bool found = false;
    for (size_t i = 0; i < kThermalStatusNames.size() && !found; ++i) {
      if (kThermalStatusNames[i] == s) {
        spec.max_thermal_status = static_cast<int>(i);
        found = true;
      }
    }
    if (!found) {
      return Error("max_thermal",
                   "must be one of none, light, moderate, severe, critical, emergency, shutdown; "
                   "got " + v->dump());
    }
  }
  if ((v = field("max_battery_temp_c"))) {
    // A number of °C, kept in tenths: 37.5 is allowed.
    if (!v->is_number()) {
      return Error("max_battery_temp_c",
                   std::string("must be a number of degrees Celsius, got ") + TypeName(*v));
    }
    const double c = v->get<double>();
    if (!(c >= kMinBatteryTempLimit / 10.0 && c <= kMaxBatteryTempLimit / 10.0)) {
      return Error("max_battery_temp_c",
                   Range(kMinBatteryTempLimit / 10, kMaxBatteryTempLimit / 10) + ", got " +
                       v->dump());
    }
    spec.max_battery_temp_tenths_c = std::llround(c * 10);
  }
  if ((v = field("cooldown_timeout_s"))) {
    if (auto e = ReadIntField(*v, "cooldown_timeout_s", 0, kMaxCooldownTimeoutS,
                         spec.cooldown_timeout_s)) {
      return *e;
    }
  }
  if ((v = field("cooldown"))) {
    std::string s;
    if (auto e = ReadString(*v, "cooldown", s)) return *e;
    if (s == "wait") {
      spec.cooldown_fail = false;
    } else if (s == "fail") {
      spec.cooldown_fail = true;
    } else {
      return Error("cooldown", "must be \"wait\" or \"fail\", got " + v->dump());
    }
  }
  if ((v = field("compilation"))) {
    std::string s;
    if (auto e = ReadString(*v, "compilation", s)) return *e;
    auto c = CompilationFromName(s);
    if (!c) {
      return Error("compilation",
                   "must be \"as-is\", \"speed-profile\", \"speed\", \"verify\" or \"none\", got " +
                       v->dump());
    }
    spec.compilation = *c;
  }
  if ((v = field("build")) && !v->is_null()) {
    int64_t id = 0;
    if (auto e = ReadIntField(*v, "build", 1, std::numeric_limits<int64_t>::max(), id)) return *e;
    spec.build = id;
  }
  if ((v = field("baseline_build")) && !v->is_null()) {
    int64_t id = 0;
    if (auto e = ReadIntField(*v, "baseline_build", 1, std::numeric_limits<int64_t>::max(), id)) {
      return *e;
    }
    spec.baseline_build = id;
  }
  bool block_given = false;
  if ((v = field("block"))) {
    if (auto e = ReadIntField(*v, "block", 1, kMaxIterations, spec.block)) return *e;
    block_given = true;
  }
  if ((v = field("kind")) && !v->is_null()) {
    if (!v->is_string() || (*v != "launch" && *v != "calibration")) {
      return Error("kind", "must be \"launch\" or \"calibration\", got " + v->dump());
    }
    spec.calibration = *v == "calibration";
  }
  if ((v = field("scenario")) && !v->is_null()) {
    auto steps = ParseScenario(*v);
    if (!steps) return steps.error();
    spec.scenario = std::move(*steps);
  }
  if (spec.calibration && spec.build) {
    // An A/A: the build against itself, by default in two halves, like two runs back to back.
    if (!spec.baseline_build) spec.baseline_build = spec.build;
    if (!block_given) spec.block = spec.iterations;
  }
  if (auto e = ValidateRunSpec(spec)) return *e;
  return spec;
}

std::string RunSpecToJson(const RunSpec& spec) {
  json j = json::object();
  j["serial"] = spec.pool ? json(nullptr) : json(spec.serial);
  j["pool"] = spec.pool ? DevicePoolToJson(*spec.pool) : json(nullptr);
  j["package"] = spec.package;
  j["activity"] = spec.activity ? json(*spec.activity) : json(nullptr);
  j["mode"] = LaunchModeName(spec.mode);
  j["iterations"] = spec.iterations;
  j["looper_stats"] = spec.looper_sampling_interval
                          ? json{{"sampling_interval", *spec.looper_sampling_interval}}
                          : json(nullptr);
  j["proc_sample_interval_ms"] =
      spec.proc_sample_interval_ms ? json(*spec.proc_sample_interval_ms) : json(nullptr);
  j["slow_message_ms"] = spec.slow_message_ms ? json(*spec.slow_message_ms) : json(nullptr);
  j["launch_timeout_ms"] = spec.launch_timeout_ms;
  j["fully_drawn_timeout_ms"] = spec.fully_drawn_timeout_ms;
  j["on_launch_failure"] = spec.on_launch_failure == OnLaunchFailure::kFail ? "fail" : "continue";
  j["preflight"] = spec.preflight_enforce ? "enforce" : "warn";
  j["warmup"] = spec.warmup;
  j["max_thermal"] = kThermalStatusNames.at(static_cast<size_t>(spec.max_thermal_status));
  j["max_battery_temp_c"] = static_cast<double>(spec.max_battery_temp_tenths_c) / 10;
  j["cooldown_timeout_s"] = spec.cooldown_timeout_s;
  j["cooldown"] = spec.cooldown_fail ? "fail" : "wait";
  j["compilation"] = CompilationName(spec.compilation);
  j["build"] = spec.build ? json(*spec.build) : json(nullptr);
  j["baseline_build"] = spec.baseline_build ? json(*spec.baseline_build) : json(nullptr);
  j["block"] = spec.block;
  j["kind"] = spec.calibration ? "calibration" : "launch";
  j["scenario"] = ScenarioToJson(spec.scenario);
  return j.dump();
}

std::string_view ThermalStatusLowerName(int status) {
  if (status < 0 || status >= static_cast<int>(kThermalStatusNames.size())) return "unknown";
  return kThermalStatusNames[static_cast<size_t>(status)];
}

bool operator==(const RunSpec& a, const RunSpec& b) {
  return a.serial == b.serial && a.pool == b.pool && a.package == b.package &&
         a.activity == b.activity && a.mode == b.mode && a.iterations == b.iterations &&
         a.looper_sampling_interval == b.looper_sampling_interval &&
         a.proc_sample_interval_ms == b.proc_sample_interval_ms &&
         a.slow_message_ms == b.slow_message_ms && a.launch_timeout_ms == b.launch_timeout_ms &&
         a.fully_drawn_timeout_ms == b.fully_drawn_timeout_ms &&
         a.on_launch_failure == b.on_launch_failure && a.preflight_enforce == b.preflight_enforce &&
         a.warmup == b.warmup && a.max_thermal_status == b.max_thermal_status &&
         a.max_battery_temp_tenths_c == b.max_battery_temp_tenths_c &&
         a.cooldown_timeout_s == b.cooldown_timeout_s && a.cooldown_fail == b.cooldown_fail &&
         a.compilation == b.compilation && a.build == b.build &&
         a.baseline_build == b.baseline_build && a.block == b.block &&
         a.calibration == b.calibration && a.scenario == b.scenario;
}

const char* CompilationName(Compilation c) {
  for (const auto& n : kCompilationNames) {
    if (n.value == c) return n.name;
  }
  return "as-is";
}

std::optional<Compilation> CompilationFromName(std::string_view name) {
  for (const auto& n : kCompilationNames) {
    if (name == n.name) return n.value;
  }
  return std::nullopt;
}

}  // namespace droidlab::orchestrator
