#include "orchestrator/stderr_log.h"

#include <iostream>
#include <mutex>

namespace droidlab::orchestrator {

std::function<void(std::string_view)> StderrLog(std::string prefix) {
  return [prefix = std::move(prefix)](std::string_view line) {
    static std::mutex mutex;  // one line at a time across every logger
    std::lock_guard lock(mutex);
    std::cerr << prefix << ": " << line << '\n';
  };
}

}  // namespace droidlab::orchestrator
