// What happens on a device while nobody types: system_server's looper messages, background log
// lines ("noise") and the scenario's scheduled faults, each generated for the time that passed
// since the last call, from the device's one random generator.
#pragma once

#include <chrono>

namespace droidlab::devsim {

struct DeviceState;

// Brings the device up to `now`; an earlier or equal time does nothing.
void AdvanceDeviceTo(DeviceState& device, std::chrono::system_clock::time_point now);

}  // namespace droidlab::devsim
