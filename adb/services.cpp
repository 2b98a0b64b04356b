#include "adb/services.h"

#include "adb/protocol.h"

namespace droidlab::adb {

Service MakeService(std::string text) { return Service(std::move(text)); }

namespace {

Result<Service> Checked(std::string text) {
  if (text.size() > kMaxProtocolStringLength) {
    return MakeError(AdbErrc::kInvalidArgument,
                     "adb service of " + std::to_string(text.size()) +
                         " bytes is longer than 65535 (4 hex digits): '" + text.substr(0, 40) +
                         "...'");
  }
  return MakeService(std::move(text));
}

}  // namespace

std::string EncodeRequest(const Service& service) {
  // Every Service was built below within the limit, so this cannot fail.
  return std::move(EncodeProtocolString(service.str())).value();
}

Service HostVersion() { return MakeService("host:version"); }
Service HostDevices() { return MakeService("host:devices"); }
Service HostDevicesLong() { return MakeService("host:devices-l"); }
Service HostTrackDevices() { return MakeService("host:track-devices"); }
Service HostTrackDevicesLong() { return MakeService("host:track-devices-l"); }
Service HostFeatures() { return MakeService("host:features"); }

// Serials are at most 255 bytes, so these stay far below the limit.
Service HostSerialFeatures(const Serial& serial) {
  return MakeService("host-serial:" + serial.str() + ":features");
}
Service HostTransport(const Serial& serial) {
  return MakeService("host:transport:" + serial.str());
}
Service HostTportSerial(const Serial& serial) {
  return MakeService("host:tport:serial:" + serial.str());
}
Service HostTransportId(uint64_t transport_id) {
  return MakeService("host:transport-id:" + std::to_string(transport_id));
}

Result<Service> ShellV2Raw(const ShellCommand& command) {
  return Checked("shell,v2,raw:" + command.str());
}
Result<Service> ShellV1(const ShellCommand& command) { return Checked("shell:" + command.str()); }

}  // namespace droidlab::adb
