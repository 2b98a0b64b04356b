#include <cstddef>
#include <cstdint>

#include "parsers/logcat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
