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

// pm's install options as adb passes them: "-r", "-d", "-t", "-g"; nothing a shell or abb would
// read as more than one word.
Result<void> CheckInstallFlags(const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    bool plain = flag.size() >= 2 && flag[0] == '-';
    for (size_t i = 1; plain && i < flag.size(); ++i) {
      const char c = flag[i];
      plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
    }
    if (!plain) {
      return MakeError(AdbErrc::kInvalidArgument, "install option '" + flag + "' is not an option");
    }
  }
  return Result<void>();
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

Service Sync() { return MakeService("sync:"); }

Result<Service> ExecCmdPackageInstall(const std::vector<std::string>& flags, uint64_t size) {
  if (auto checked = CheckInstallFlags(flags); !checked) return checked.error();
  std::string text = "exec:cmd package install";
  for (const std::string& flag : flags) text += " " + flag;
  return Checked(text + " -S " + std::to_string(size));
}

Result<Service> AbbExecPackageInstall(const std::vector<std::string>& flags, uint64_t size) {
  if (auto checked = CheckInstallFlags(flags); !checked) return checked.error();
  // ABB_ARG_DELIMETER (adb.h) is '\0'; the server forwards the whole string to adbd's abb.
  std::string text = "abb_exec:package";
  text.push_back('\0');
  text += "install";
  for (const std::string& flag : flags) {
    text.push_back('\0');
    text += flag;
  }
  text.push_back('\0');
  text += "-S";
  text.push_back('\0');
  return Checked(text + std::to_string(size));
}

}  // namespace droidlab::adb
