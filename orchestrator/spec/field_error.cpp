#include "orchestrator/spec/field_error.h"

#include <limits>
#include <nlohmann/json.hpp>

namespace droidlab::orchestrator {

std::optional<FieldError> ReadIntField(const nlohmann::json& v, const std::string& field,
                                       int64_t lo, int64_t hi, int64_t& out) {
  const std::string range = "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
  if (!v.is_number_integer()) {
    return FieldError{field, std::string("must be an integer, got ") + v.type_name()};
  }
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return FieldError{field, range + ", got " + v.dump()};
  }
  const int64_t n = v.get<int64_t>();
  if (n < lo || n > hi) return FieldError{field, range + ", got " + std::to_string(n)};
  out = n;
  return std::nullopt;
}

}  // namespace droidlab::orchestrator
