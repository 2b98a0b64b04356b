// An app's compilation state on the simulated phone: what `cmd package compile` and
// `cmd package delete-dexopt` leave (compile_commands.cpp), what a background dexopt job
// changes later (PackageSpec.bg_dexopt_after_s), and what it does to a cold launch.
#pragma once

#include <string_view>

namespace droidlab::devsim {

struct App;
struct DeviceState;

// A cold launch's time multiplied by this under `filter`: compiled code starts fastest, an app
// only verified interprets its startup path, one with no artifacts at all also verifies at run
// time. A simulation's numbers (the order is ART's; the sizes are typical, not measured here).
double ColdLaunchFactor(std::string_view filter);

// Background dexopt (BackgroundDexOptService / ART Service's BackgroundDexoptJob) runs when
// its time has come: an app below speed-profile that has a profile is compiled to speed-profile
// with reason "bg-dexopt". Called before the state is shown or used.
void RunBackgroundDexoptIfDue(DeviceState& device, App& app);

// What an install leaves (PackageManagerService's dexopt with reason "install": the filter of
// pm.dexopt.install, speed-profile on Android 9+, which without a profile is verify — quicken on
// Android 8–11, interpret-only on 7). Schedules the background job again.
void CompileAtInstall(DeviceState& device, App& app);

// From now, the job comes for `app` after its PackageSpec.bg_dexopt_after_s (0: never).
void ScheduleBackgroundDexopt(DeviceState& device, App& app);

}  // namespace droidlab::devsim
