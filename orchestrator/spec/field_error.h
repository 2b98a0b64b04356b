// What a request body's check says is wrong: the field, as a JSON path, and why. Shared by the
// run spec (run_spec.h) and its scenario (scenario.h).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>

namespace droidlab::orchestrator {

struct FieldError {
  std::string field;    // "iterations", "looper_stats.sampling_interval", "" for the body
  std::string message;  // "must be between 1 and 1000, got 0"
};

// The checks' shorthand: `return Error("iterations", "must be between 1 and 1000");`.
inline FieldError Error(std::string field, std::string message) {
  return FieldError{std::move(field), std::move(message)};
}

// An integer in [lo, hi] into `out`: JSON floats (even 3.0), booleans and strings are refused,
// as is a number beyond int64 (which nlohmann would otherwise wrap).
std::optional<FieldError> ReadIntField(const nlohmann::json& v, const std::string& field,
                                       int64_t lo, int64_t hi, int64_t& out);

}  // namespace droidlab::orchestrator
