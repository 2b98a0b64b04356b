#include "orchestrator/defaults.h"

#include <chrono>
#include <iostream>
#include <mutex>

namespace droidlab::orchestrator {

int64_t WallNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::function<void(std::string_view)> StderrLog(std::string prefix) {
  return [prefix = std::move(prefix)](std::string_view line) {
    static std::mutex mutex;  // one line at a time across every logger
    std::lock_guard lock(mutex);
    std::cerr << prefix << ": " << line << '\n';
  };
}

}  // namespace droidlab::orchestrator
