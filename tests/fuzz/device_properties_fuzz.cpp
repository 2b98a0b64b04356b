// libFuzzer target for ParseDeviceProperties. Invariants: it succeeds exactly when ParseGetprop
// does, every fact it keeps is the non-empty value of its property, and the SDK is the property's
// text read by base/parse_int.h.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "base/parse_int.h"
#include "parsers/device_properties.h"
#include "parsers/getprop.h"

namespace {

void CheckFact(const droidlab::parsers::GetpropOutput& getprop, const char* name,
               const std::optional<std::string>& fact) {
  auto it = getprop.properties.find(name);
  const bool present = it != getprop.properties.end() && !it->second.empty();
  if (present != fact.has_value()) std::abort();
  if (fact && *fact != it->second) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto props = droidlab::parsers::ParseDeviceProperties(input);
  auto getprop = droidlab::parsers::ParseGetprop(input);
  if (props.ok() != getprop.ok()) std::abort();
  if (!props.ok()) {
    if (props.error().message.empty()) std::abort();
    return 0;
  }
  CheckFact(*getprop, "ro.product.model", props->model);
  CheckFact(*getprop, "ro.product.manufacturer", props->manufacturer);
  CheckFact(*getprop, "ro.build.version.release", props->release);
  CheckFact(*getprop, "ro.product.cpu.abi", props->abi);
  CheckFact(*getprop, "ro.build.fingerprint", props->fingerprint);
  CheckFact(*getprop, "ro.serialno", props->serialno);
  auto sdk = getprop->properties.find("ro.build.version.sdk");
  const std::optional<int64_t> want =
      sdk == getprop->properties.end() ? std::nullopt : droidlab::ParseInt<int64_t>(sdk->second);
  if (props->sdk != want) std::abort();
  return 0;
}
