// An app's own faults from the scenario (PackageSpec::crash_on_launch / anr_on_launch /
// native_crash_on_launch): on the package's Nth launch it crashes (AndroidRuntime's FATAL
// EXCEPTION in the crash buffer, am_crash in the events buffer, the process gone), stops
// responding (ActivityManager's "ANR in" lines, am_anr) or dies of a native crash (libc's "Fatal
// signal" line, debuggerd's tombstone head under DEBUG, the process gone). Called by `am start`
// once the launch is shown.
#pragma once

#include <chrono>

namespace droidlab::devsim {

struct App;
struct DeviceState;

// `launch` counts the package's launches from devsim's start (1 for the first); `shown_at` is when
// its activity was displayed.
void ApplyLaunchFaults(DeviceState& device, App& app, int launch,
                       std::chrono::system_clock::time_point shown_at);

}  // namespace droidlab::devsim
