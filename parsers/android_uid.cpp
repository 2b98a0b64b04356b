#include "parsers/android_uid.h"

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

// android.os.Process / UserHandle constants behind UserHandle.formatUid.
constexpr int64_t kPerUserRange = 100000;
constexpr int64_t kFirstApplicationUid = 10000;
constexpr int64_t kFirstAppZygoteIsolatedUid = 90000;
constexpr int64_t kFirstIsolatedUid = 99000;

}  // namespace

std::optional<int64_t> ParseFormattedUid(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  int64_t value = 0;
  if (p == end) return std::nullopt;
  if (*p != 'u') {
    // "-1" (UID_NONE) has no digit first, so it is refused here.
    const char* stop = ScanNonNegativeInt64(p, end, value);
    if (stop != end || value >= kFirstApplicationUid) return std::nullopt;
    return value;
  }
  int64_t user = 0;
  p = ScanNonNegativeInt64(p + 1, end, user);
  // UserHandle user ids fit an int uid: user * 100000 + app id <= INT32_MAX.
  if (p == nullptr || p == end || user > 21473) return std::nullopt;
  int64_t base = 0;
  int64_t limit = 0;  // exclusive bound of the number after the letter(s)
  if (*p == 'a' && p + 1 < end && p[1] == 'i') {
    base = kFirstAppZygoteIsolatedUid;
    limit = kFirstIsolatedUid - kFirstAppZygoteIsolatedUid + 1;
    p += 2;
  } else if (*p == 'a') {
    base = kFirstApplicationUid;
    limit = kFirstAppZygoteIsolatedUid - kFirstApplicationUid;
    ++p;
  } else if (*p == 'i') {
    base = kFirstIsolatedUid;
    limit = kPerUserRange - kFirstIsolatedUid;
    ++p;
  } else if (*p == 's') {
    base = 0;
    limit = kFirstApplicationUid;
    ++p;
  } else {
    return std::nullopt;
  }
  const char* stop = ScanNonNegativeInt64(p, end, value);
  if (stop != end || value >= limit) return std::nullopt;
  return user * kPerUserRange + base + value;
}

}  // namespace droidlab::parsers
