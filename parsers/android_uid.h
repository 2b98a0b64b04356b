// Android uids as UserHandle.formatUid prints them (frameworks/base,
// core/java/android/os/UserHandle.java), in logcat's "Start proc 4321:com.pkg/u0a123" and in
// looper_stats' work_source_uid "com.pkg/u0a123".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace droidlab::parsers {

// "1000" -> 1000 (uids below FIRST_APPLICATION_UID print as plain numbers), "u0a123" -> 10123
// (user * 100000 + 10000 + app id), "u10a5" -> 1010005, "u10s1000" -> 1001000 (a system uid of
// user 10), "u0i5" -> 99005 (isolated), "u0ai3" -> 90003 (app-zygote isolated, Android 10+).
// Returns nullopt for anything else, including "-1" (Message.UID_NONE) and plain numbers of
// 10000 or more, which formatUid never prints. Pure; cheap enough to call per row.
std::optional<int64_t> ParseFormattedUid(std::string_view text);

}  // namespace droidlab::parsers
