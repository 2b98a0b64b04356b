// `Joined(parts, ", ")`: the parts with the separator between them, for messages and command
// lines shown to people.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace droidlab {

inline std::string Joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace droidlab
