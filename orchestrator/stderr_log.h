// The log every orchestrator part falls back on when its options leave `log` empty: one line on
// stderr. The daemon passes its own (spdlog); tests pass a collector.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace droidlab::orchestrator {

// A thread-safe logger writing "PREFIX: LINE" to stderr.
std::function<void(std::string_view)> StderrLog(std::string prefix);

}  // namespace droidlab::orchestrator
