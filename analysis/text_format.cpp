#include "analysis/text_format.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace droidlab::analysis {

std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (written < 0) return {};
  return std::string(buffer, std::min(static_cast<std::size_t>(written), sizeof buffer - 1));
}

}  // namespace droidlab::analysis
