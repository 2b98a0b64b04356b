#include <cstddef>
#include <cstdint>

#include "parsers/proc_stat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
