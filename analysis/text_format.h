// printf into a std::string, for the verdicts' and change points' words (analysis/ has no other
// formatting needs; up to 511 bytes, cut beyond).
#pragma once

#include <string>

namespace droidlab::analysis {

__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...);

}  // namespace droidlab::analysis
