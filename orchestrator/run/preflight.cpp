#include "orchestrator/run/preflight.h"

#include <nlohmann/json.hpp>

#include "orchestrator/run/device_commands.h"
#include "parsers/device_properties.h"
#include "parsers/dumpsys_battery.h"
#include "parsers/dumpsys_package.h"
#include "parsers/dumpsys_thermal.h"
#include "parsers/pm_output.h"
#include "parsers/screen_state.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

template <class T>
nlohmann::json Opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json InstalledBuildJson(const InstalledBuild& build) {
  return {{"id", build.id},
          {"sha256", build.sha256},
          {"version_code", build.version_code},
          {"install_method", build.method},
          {"bytes", build.bytes},
          {"install_ms", build.install_ms}};
}

}  // namespace

// Why the device's screen makes a run worthless, if it does (a plain function: no `?:` over
// strings inside the coroutine, which g++ 12 mishandles).
std::optional<std::string> ScreenRefusal(const PreflightReport& report) {
  if (report.wakefulness && *report.wakefulness != "Awake") {
    return "the screen is not on (mWakefulness=" + *report.wakefulness +
           "): wake the device and keep it awake while plugged in (Developer options > Stay "
           "awake, or `svc power stayon usb`)";
  }
  if (report.keyguard_showing && *report.keyguard_showing) {
    return std::string(
        "the device is locked (the keyguard is showing): unlock it; lab phones are best left "
        "with no lock screen (Settings > Security > Screen lock > None)");
  }
  return std::nullopt;
}

asio::awaitable<CommandResult<PreflightReport>> RunPreflight(DeviceShell& shell,
                                                             const RunSpec& spec,
                                                             adb::Deadline deadline) {
  PreflightReport report;
  // pm path exits 1 for a package that is not installed: that is an answer, not a failure.
  auto pm_path = shell.Run(PmPath(spec.package), deadline, false);
  auto path = co_await std::move(pm_path);
  if (!path) co_return path.error();
  auto pm = parsers::ParsePmPath(path->out);
  if (!pm || !pm->installed()) {
    co_return CommandError{
        std::nullopt, "package " + spec.package + " is not installed on " + shell.serial().str()};
  }
  std::string component_text;
  if (spec.activity) {
    component_text = spec.package + "/" + *spec.activity;
  } else {
    auto resolve_activity = shell.Run(ResolveActivity(spec.package), deadline, false);
    auto resolved = co_await std::move(resolve_activity);
    if (!resolved) co_return resolved.error();
    auto parsed = parsers::ParseResolveActivityBrief(resolved->out);
    if (!parsed || !parsed->component || parsed->is_chooser) {
      co_return CommandError{std::nullopt,
                             "no launcher activity of " + spec.package +
                                 " resolves on the device; give \"activity\" in the run"};
    }
    component_text = *parsed->component;
  }
  // Device text too goes through the grammar before it reaches `am start -n`.
  auto component = adb::ComponentName::Parse(component_text);
  if (!component || component->package().str() != spec.package) {
    const std::string why = component ? std::string() : component.error().message;
    co_return CommandError{std::nullopt,
                           "component '" + component_text + "' is not valid" + IfAny(": ", why)};
  }
  report.component = component->str();
  report.activity_class = component->FullClassName();

  // The reads that do not depend on each other: one command (DeviceShell::RunJoined).
  std::vector<ShellPart> reads{{Getprop(), true},
                               {DumpsysBattery(), true},
                               {DumpsysThermalservice(), false},
                               {DumpsysPackage(spec.package), true},
                               {DumpsysPower(), false},
                               {DumpsysActivityActivities(), false}};
  auto reading = shell.RunJoined(std::move(reads), deadline);
  auto read = co_await std::move(reading);
  for (const CommandResult<adb::ShellResult>& r : read) {
    if (!r) co_return r.error();
  }
  if (auto parsed = parsers::ParseDeviceProperties(read[0]->out)) {
    report.fingerprint = parsed->fingerprint;
    report.model = parsed->model;
    report.sdk = parsed->sdk;
  }
  if (auto parsed = parsers::ParseDumpsysBattery(read[1]->out)) {
    report.battery_level = parsed->level;
    report.powered = parsed->IsCharging();
    report.battery_temperature_tenths_c = parsed->temperature_tenths_c;
  }
  if (auto parsed = parsers::ParseDumpsysThermal(read[2]->out)) {
    report.thermal_status = parsed->thermal_status;
  }
  if (auto parsed = parsers::ParseDumpsysPackage(read[3]->out, spec.package)) {
    report.version_code = parsed->version_code;
    report.app_id = parsed->app_id;
    if (const parsers::DexoptStatus* d = parsed->PrimaryDexopt()) {
      if (!d->compiler_filter.empty()) report.compiler_filter = d->compiler_filter;
    }
  }
  report.wakefulness = parsers::ParseWakefulness(read[4]->out);
  report.keyguard_showing = parsers::ParseKeyguardShowing(read[5]->out);
  if (auto refused = ScreenRefusal(report)) {
    CommandError error;
    error.message = std::move(*refused);
    co_return error;
  }

  if (report.battery_level && *report.battery_level < kMinBatteryLevel) {
    report.warnings.push_back("battery at " + std::to_string(*report.battery_level) + " % (below " +
                              std::to_string(kMinBatteryLevel) + " %)");
  }
  if (report.thermal_status && *report.thermal_status > kMaxThermalStatus) {
    report.warnings.push_back("thermal status " + std::to_string(*report.thermal_status) + " (" +
                              std::string(parsers::ThermalStatusName(*report.thermal_status)) +
                              "): the device throttles");
  }
  co_return report;
}

std::string PreflightJson(const PreflightReport& r, const DeviceClock* clock,
                          const LooperSession* looper, const CompilationRecord* compilation,
                          const InstalledBuild* build, const SideBySideRecord* side_by_side) {
  nlohmann::json j;
  j["component"] = r.component;
  j["fingerprint"] = Opt(r.fingerprint);
  j["model"] = Opt(r.model);
  j["sdk"] = Opt(r.sdk);
  j["battery"] = {{"level", Opt(r.battery_level)},
                  {"powered", Opt(r.powered)},
                  {"temperature_tenths_c", Opt(r.battery_temperature_tenths_c)}};
  j["thermal_status"] = Opt(r.thermal_status);
  j["package"] = {{"version_code", Opt(r.version_code)},
                  {"app_id", Opt(r.app_id)},
                  {"compiler_filter", Opt(r.compiler_filter)}};
  j["screen"] = {{"wakefulness", Opt(r.wakefulness)}, {"keyguard_showing", Opt(r.keyguard_showing)}};
  j["warnings"] = r.warnings;
  if (clock) {
    j["clock"] = {{"clk_tck", clock->clk_tck},
                  {"clk_tck_read", clock->clk_tck_read},
                  {"page_size", clock->page_size},
                  {"realtime_at_boot_ms", clock->realtime_at_boot_ms}};
  }
  if (build) j["build"] = InstalledBuildJson(*build);
  if (side_by_side) {
    nlohmann::json installs = nlohmann::json::array();
    for (const SideBySideInstall& i : side_by_side->installs) {
      nlohmann::json one = InstalledBuildJson(i.build);
      one["arm"] = ArmName(i.arm);
      one["compilation_reached"] = Opt(i.compilation_reached);
      one["before_iteration"] = i.before_iteration;
      installs.push_back(std::move(one));
    }
    j["side_by_side"] = {{"baseline_build", side_by_side->baseline_build},
                         {"candidate_build", side_by_side->candidate_build},
                         {"block", side_by_side->block},
                         {"installs", std::move(installs)}};
  }
  if (compilation) {
    const CompilationRecord& c = *compilation;
    j["compilation"] = {{"requested", CompilationName(c.requested)},
                        {"before", Opt(c.before)},
                        {"reached", Opt(c.reached)},
                        {"after", Opt(c.after)},
                        {"changed_during_run", c.ChangedDuringRun()},
                        {"command", c.command.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.command)},
                        {"warnings", c.warnings}};
  }
  if (looper) {
    nlohmann::json l;
    l["previous_setting"] =
        looper->previous_read ? Opt(looper->previous.value) : nlohmann::json(nullptr);
    l["setting"] = looper->value;
    l["charging_gate"] =
        looper->gate.empty() ? nlohmann::json(nullptr) : nlohmann::json(looper->gate);
    l["battery_unplugged"] = looper->unplugged;
    j["looper_stats"] = l;
  }
  return j.dump();
}

std::string InstalledBuildOnlyJson(const InstalledBuild& build) {
  nlohmann::json j;
  j["build"] = InstalledBuildJson(build);
  return j.dump();
}

}  // namespace droidlab::orchestrator
