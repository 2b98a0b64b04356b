// What every orchestrator part falls back on when its options leave them empty: the wall clock
// and a log line on stderr. The daemon passes its own (spdlog); tests pin the clock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace droidlab::orchestrator {

// Milliseconds since the Unix epoch (system_clock).
int64_t WallNowMs();
// A thread-safe logger writing "PREFIX: LINE" to stderr.
std::function<void(std::string_view)> StderrLog(std::string prefix);

}  // namespace droidlab::orchestrator
