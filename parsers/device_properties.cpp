#include "parsers/device_properties.h"

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

std::optional<std::string> Prop(const GetpropOutput& getprop, std::string_view name) {
  auto it = getprop.properties.find(name);
  if (it == getprop.properties.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

}  // namespace

DeviceProperties DevicePropertiesFrom(const GetpropOutput& getprop) {
  DeviceProperties p;
  p.model = Prop(getprop, "ro.product.model");
  p.manufacturer = Prop(getprop, "ro.product.manufacturer");
  if (auto sdk = Prop(getprop, "ro.build.version.sdk")) p.sdk = ParseInt<int64_t>(*sdk);
  p.release = Prop(getprop, "ro.build.version.release");
  p.abi = Prop(getprop, "ro.product.cpu.abi");
  p.fingerprint = Prop(getprop, "ro.build.fingerprint");
  p.serialno = Prop(getprop, "ro.serialno");
  return p;
}

Result<DeviceProperties> ParseDeviceProperties(std::string_view getprop_output) {
  auto parsed = ParseGetprop(getprop_output);
  if (!parsed) return parsed.error();
  return DevicePropertiesFrom(*parsed);
}

}  // namespace droidlab::parsers
