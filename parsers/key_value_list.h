// Settings values in android.util.KeyValueListParser's format
// (frameworks/base/core/java/android/util/KeyValueListParser.java), above all the
// looper_stats setting that LooperStatsService reads:
//
//   $ settings get global looper_stats
//   enabled=true,sampling_interval=1000,track_screen_state=false,ignore_battery_status=true
//
// KeyValueListParser.setString splits on ',' with TextUtils.SimpleStringSplitter (a trailing
// ',' adds nothing; ",," or a leading ',' gives an empty piece), cuts each piece at its first
// '=', and trims key and value (String.trim: every char <= ' '). A piece without '=' makes it
// throw and drop every value: LooperStatsService then logs "Bad looper_stats settings" and runs
// on its defaults. A key given twice keeps its last value (ArrayMap.put).
//
// `settings get` (SettingsService's shell command) prints the value and a newline, or "null" when
// the setting does not exist. A setting whose value is the text "null" cannot be told from an
// unset one: the format has no way to say it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

struct KeyValuePair {
  std::string key;    // trimmed as KeyValueListParser trims
  std::string value;  // trimmed
};

struct KeyValueList {
  std::vector<KeyValuePair> pairs;      // in input order; unknown keys and repeats kept
  std::vector<std::string> malformed;   // pieces without '=', verbatim

  // False when KeyValueListParser would throw on this value (a piece without '='), i.e. the
  // device ignores the whole setting and runs on defaults.
  bool AcceptedByAndroid() const { return malformed.empty(); }

  // The value Android sees for `key`: the last occurrence; nullopt when absent.
  std::optional<std::string_view> Get(std::string_view key) const;
  // KeyValueListParser.getBoolean: Boolean.parseBoolean, so "true" in any case is true and any
  // other present value ("1", "yes") is false, not `def`; `def` only when the key is absent.
  bool GetBool(std::string_view key, bool def) const;
  // KeyValueListParser.getInt / getLong: Integer/Long.parseLong (an optional leading '+' or
  // '-', decimal, in range); `def` when absent or not a number.
  int32_t GetInt(std::string_view key, int32_t def) const;
  int64_t GetLong(std::string_view key, int64_t def) const;

  // Sets `key` to `value`: the last occurrence is updated in place and earlier repeats removed,
  // so the order of the other keys is kept; appended when absent.
  void Set(std::string_view key, std::string_view value);
  // Removes every occurrence; false when there was none.
  bool Remove(std::string_view key);

  // "k1=v1,k2=v2" for `settings put`, pairs in order, malformed pieces left out. Equal to the
  // parsed text when that text was already in this form (no spaces around keys and values, no
  // empty or malformed pieces, no trailing ','). To put back a previous value exactly, use
  // SettingsValue::value verbatim instead.
  std::string Serialize() const;
};

// Never fails: an empty value is an empty list; pieces without '=' go to `malformed`, empty
// ones (",," or a leading ',') too, as KeyValueListParser rejects them; a trailing ',' adds
// nothing.
KeyValueList ParseKeyValueList(std::string_view value);

// What `settings get NAMESPACE KEY` printed.
struct SettingsValue {
  // nullopt: the setting is unset ("null") — restore with `settings delete`; otherwise the value
  // exactly as stored — restore with `settings put` of this string.
  std::optional<std::string> value;

  bool unset() const { return !value.has_value(); }
};

// Thread-safe (pure function). Strips the one line end `settings` adds ("\n", "\r\n", "\r\r\n");
// everything before it is the value, inner newlines included.
// Errors: kEmpty when the output is empty (settings always prints a line, so the command did not
// run).
Result<SettingsValue> ParseSettingsGet(std::string_view output);

}  // namespace droidlab::parsers
