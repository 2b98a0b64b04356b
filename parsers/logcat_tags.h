// Log tags both logcat readers match on (logcat.cpp: Displayed lines; logcat_faults.cpp: ANRs
// and crashes): ActivityManager logs both kinds.
#pragma once

#include <string_view>

namespace droidlab::parsers {

inline constexpr std::string_view kActivityManager = "ActivityManager";

}  // namespace droidlab::parsers
