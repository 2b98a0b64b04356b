// Polling for end-to-end tests, where the thing waited for happens in another process (adb,
// devsim, the daemon): checks `done` every `step` until it holds or `limit` passes.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace droidlab::testutil {

inline bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds limit,
                      std::chrono::milliseconds step = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(step);
  }
}

}  // namespace droidlab::testutil
