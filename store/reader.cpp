// The Reader interface's one out-of-line member, the keyset cursors both backends issue, the
// device labels both aggregate, and the limits both check.
#include "store/reader.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "base/parse_int.h"

namespace droidlab::store {

namespace {

constexpr std::string_view kRunCursorPrefix = "r1";
constexpr std::string_view kAlertCursorPrefix = "a1";
constexpr size_t kHexDigits = 16;

}  // namespace

Reader::~Reader() = default;

StoreResult<int64_t> AuditPageStart(int64_t limit, std::string_view cursor) {
  if (limit < 1 || limit > 1000) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "limit must be between 1 and 1000, got " + std::to_string(limit));
  }
  if (cursor.empty()) return std::numeric_limits<int64_t>::max();
  int64_t id = 0;
  if (!DecodeKeyCursor(cursor, "u1", std::span<int64_t>(&id, 1))) {
    return NotACursorOfThisList(cursor);
  }
  return id;
}

void CutAuditPage(int64_t limit, AuditPage& page) {
  if (page.entries.size() <= static_cast<size_t>(limit)) return;
  page.entries.pop_back();
  const int64_t last = page.entries.back().id;
  page.next_cursor = EncodeKeyCursor("u1", std::span<const int64_t>(&last, 1));
}

Status CheckDeviceHistoryLimit(int64_t limit) {
  if (limit < 1 || limit > 10000) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "limit must be between 1 and 10000, got " + std::to_string(limit));
  }
  return OkStatus();
}

std::vector<std::string> SplitDeviceLabels(const std::optional<std::string>& joined) {
  std::vector<std::string> labels;
  if (!joined || joined->empty()) return labels;
  std::string_view rest = *joined;
  while (true) {
    const size_t end = rest.find('\n');
    labels.emplace_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::string EncodeKeyCursor(std::string_view prefix, std::span<const int64_t> keys) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string cursor(prefix);
  for (int64_t key : keys) {
    const auto value = static_cast<uint64_t>(key);
    for (int shift = 60; shift >= 0; shift -= 4) cursor += kDigits[(value >> shift) & 0xf];
  }
  return cursor;
}

bool DecodeKeyCursor(std::string_view cursor, std::string_view prefix, std::span<int64_t> keys) {
  if (cursor.size() != prefix.size() + kHexDigits * keys.size() ||
      cursor.substr(0, prefix.size()) != prefix) {
    return false;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::optional<uint64_t> key =
        ParseInt<uint64_t>(cursor.substr(prefix.size() + kHexDigits * k, kHexDigits), 16);
    if (!key) return false;
    keys[k] = static_cast<int64_t>(*key);
  }
  return true;
}

StoreError NotACursorOfThisList(std::string_view cursor) {
  return MakeStoreError(StoreErrorCode::kInvalidArgument,
                        "cursor \"" + std::string(cursor) +
                            "\" is not one of this list: pass next_cursor as returned");
}

std::string EncodeRunCursor(int64_t created_at, int64_t id) {
  const int64_t keys[] = {created_at, id};
  return EncodeKeyCursor(kRunCursorPrefix, keys);
}

bool DecodeRunCursor(std::string_view cursor, int64_t& created_at, int64_t& id) {
  int64_t keys[2] = {0, 0};
  if (!DecodeKeyCursor(cursor, kRunCursorPrefix, keys)) return false;
  created_at = keys[0];
  id = keys[1];
  return true;
}

std::string EncodeAlertCursor(int64_t id) {
  const int64_t keys[] = {id};
  return EncodeKeyCursor(kAlertCursorPrefix, keys);
}

std::optional<int64_t> DecodeAlertCursor(std::string_view cursor) {
  int64_t keys[1] = {0};
  if (!DecodeKeyCursor(cursor, kAlertCursorPrefix, keys) || keys[0] < 0) return std::nullopt;
  return keys[0];
}

}  // namespace droidlab::store
