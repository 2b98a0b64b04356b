#include <cstddef>
#include <cstdint>

#include "parsers/pm_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
