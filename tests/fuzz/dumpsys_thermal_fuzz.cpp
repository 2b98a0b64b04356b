#include <cstddef>
#include <cstdint>

#include "parsers/dumpsys_thermal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
