// What a request body's check says is wrong: the field, as a JSON path, and why. Shared by the
// run spec (run_spec.h) and its scenario (scenario.h).
#pragma once

#include <string>

namespace droidlab::orchestrator {

struct FieldError {
  std::string field;    // "iterations", "looper_stats.sampling_interval", "" for the body
  std::string message;  // "must be between 1 and 1000, got 0"
};

}  // namespace droidlab::orchestrator
