// The wall clock as every module records it: milliseconds since the Unix epoch. One definition,
// so that a run's timestamps, a schedule's firing and a retention cut-off agree on the unit.
#pragma once

#include <chrono>
#include <cstdint>

namespace droidlab {

// Milliseconds since the Unix epoch (std::chrono::system_clock). Tests pin the clock by passing
// their own `now_ms` function where a module takes one; nothing here is mockable on purpose.
inline int64_t WallNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace droidlab
