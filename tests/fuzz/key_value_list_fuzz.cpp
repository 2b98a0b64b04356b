// libFuzzer target for ParseKeyValueList and ParseSettingsGet. Invariants: Serialize is a fixed
// point (parse(serialize(x)) serializes the same), a list Android accepts keeps every key,
// getters never crash, Set then Get returns what was set, and `settings get` keeps the value
// verbatim.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/key_value_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  using droidlab::parsers::ParseKeyValueList;

  auto kv = ParseKeyValueList(input);
  const std::string once = kv.Serialize();
  auto again = ParseKeyValueList(once);
  // Keys and values come out trimmed; a key or value holding ',' or (in a key) '=' cannot
  // survive the text format, so the fixed point is checked only when none does.
  bool representable = true;
  for (const auto& p : kv.pairs) {
    if (p.key.find_first_of(",=") != std::string::npos ||
        p.value.find(',') != std::string::npos) {
      representable = false;
    }
  }
  if (representable) {
    if (again.Serialize() != once) std::abort();
    if (again.pairs.size() != kv.pairs.size()) std::abort();
    if (!again.AcceptedByAndroid()) std::abort();
  }
  for (const auto& p : kv.pairs) {
    (void)kv.GetBool(p.key, false);
    (void)kv.GetInt(p.key, 0);
    (void)kv.GetLong(p.key, 0);
    if (!kv.Get(p.key)) std::abort();
  }
  kv.Set("enabled", "true");
  if (kv.Get("enabled") != "true") std::abort();
  kv.Remove("enabled");
  if (kv.Get("enabled")) std::abort();

  auto got = droidlab::parsers::ParseSettingsGet(input);
  if (!got.ok()) {
    if (!input.empty() || got.error().message.empty()) std::abort();
    return 0;
  }
  if (got->value && got->value->size() > input.size()) std::abort();
  if (got->value && input.substr(0, got->value->size()) != *got->value) std::abort();
  return 0;
}
