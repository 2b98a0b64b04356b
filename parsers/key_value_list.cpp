#include "parsers/key_value_list.h"

#include <algorithm>
#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

// java.lang.String.trim(): strips every char <= ' ' at both ends (control chars too), which is
// wider than Trim's blanks.
std::string_view JavaTrim(std::string_view s) {
  auto is_trimmed = [](char c) { return static_cast<unsigned char>(c) <= ' '; };
  while (!s.empty() && is_trimmed(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_trimmed(s.back())) s.remove_suffix(1);
  return s;
}

// Integer.parseInt / Long.parseLong accept one leading '+' or '-'; from_chars only '-'.
template <class Int>
std::optional<Int> ParseJavaInteger(std::string_view s) {
  if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  return ParseInt<Int>(s);
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}

}  // namespace

KeyValueList ParseKeyValueList(std::string_view value) {
  KeyValueList out;
  while (!value.empty()) {
    std::string_view piece = value;
    if (auto head = SplitFirst(value, ',')) {
      piece = *head;
    } else {
      value = {};
    }
    if (piece.empty()) {
      // SimpleStringSplitter yields it and KeyValueListParser rejects it; it has no '=' either.
      out.malformed.emplace_back();
      continue;
    }
    std::string_view val = piece;
    auto key = SplitFirst(val, '=');
    if (!key) {
      out.malformed.emplace_back(piece);
      continue;
    }
    out.pairs.push_back({std::string(JavaTrim(*key)), std::string(JavaTrim(val))});
  }
  return out;
}

std::optional<std::string_view> KeyValueList::Get(std::string_view key) const {
  for (auto it = pairs.rbegin(); it != pairs.rend(); ++it) {
    if (it->key == key) return std::string_view(it->value);
  }
  return std::nullopt;
}

bool KeyValueList::GetBool(std::string_view key, bool def) const {
  auto value = Get(key);
  if (!value) return def;
  return EqualsIgnoreAsciiCase(*value, "true");
}

int32_t KeyValueList::GetInt(std::string_view key, int32_t def) const {
  auto value = Get(key);
  if (!value) return def;
  return ParseJavaInteger<int32_t>(*value).value_or(def);
}

int64_t KeyValueList::GetLong(std::string_view key, int64_t def) const {
  auto value = Get(key);
  if (!value) return def;
  return ParseJavaInteger<int64_t>(*value).value_or(def);
}

void KeyValueList::Set(std::string_view key, std::string_view value) {
  size_t last = pairs.size();
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].key == key) last = i;
  }
  if (last == pairs.size()) {
    pairs.push_back({std::string(key), std::string(value)});
    return;
  }
  pairs[last].value.assign(value);
  // Drop earlier repeats so the list says one thing; the kept one stays where it was.
  std::vector<KeyValuePair> kept;
  kept.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == last || pairs[i].key != key) kept.push_back(std::move(pairs[i]));
  }
  pairs = std::move(kept);
}

bool KeyValueList::Remove(std::string_view key) {
  return std::erase_if(pairs, [key](const KeyValuePair& p) { return p.key == key; }) > 0;
}

std::string KeyValueList::Serialize() const {
  std::string out;
  for (const auto& p : pairs) {
    if (!out.empty()) out.push_back(',');
    out.append(p.key);
    out.push_back('=');
    out.append(p.value);
  }
  return out;
}

Result<SettingsValue> ParseSettingsGet(std::string_view output) {
  if (output.empty()) {
    return MakeError(ParseErrorCode::kEmpty,
                     "settings get: empty output (settings always prints a line)");
  }
  if (output.ends_with('\n')) {
    output.remove_suffix(1);
    while (output.ends_with('\r')) output.remove_suffix(1);
  }
  SettingsValue out;
  if (output != "null") out.value.emplace(output);
  return out;
}

}  // namespace droidlab::parsers
