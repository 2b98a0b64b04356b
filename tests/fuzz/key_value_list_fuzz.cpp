#include <cstddef>
#include <cstdint>

#include "parsers/key_value_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
