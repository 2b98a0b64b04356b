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

// {"install", flags…, "-S", SIZE}: install_app_streamed's arguments.
Result<std::vector<std::string>> InstallArgs(const std::vector<std::string>& flags,
                                             uint64_t size) {
  if (auto checked = CheckInstallFlags(flags); !checked) return checked.error();
  std::vector<std::string> args = {"install"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.emplace_back("-S");
  args.push_back(std::to_string(size));
  return args;
}

// Words that pass through `sh -c` and abb unchanged.
Result<void> CheckPlainWords(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    bool plain = !arg.empty();
    for (const char c : arg) {
      plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '.' || c == '_' || c == '-' || c == ':' || c == '/' || c == '+' ||
                        c == ',' || c == '=');
    }
    if (!plain) {
      return MakeError(AdbErrc::kInvalidArgument,
                       "package manager argument '" + arg + "' is not a plain word");
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
Service HostSerialReconnect(const Serial& serial) {
  return MakeService("host-serial:" + serial.str() + ":reconnect");
}
Service HostConnect(const Serial& address) { return MakeService("host:connect:" + address.str()); }
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
Service DeviceReconnect() { return MakeService("reconnect"); }
Service Reboot() { return MakeService("reboot:"); }

Result<Service> ExecCmdPackage(const std::vector<std::string>& args) {
  if (auto checked = CheckPlainWords(args); !checked) return checked.error();
  std::string text = "exec:cmd package";
  for (const std::string& arg : args) text += " " + arg;
  return Checked(std::move(text));
}

Result<Service> AbbExecPackage(const std::vector<std::string>& args) {
  if (auto checked = CheckPlainWords(args); !checked) return checked.error();
  // ABB_ARG_DELIMETER (adb.h) is '\0'; the server forwards the whole string to adbd's abb.
  std::string text = "abb_exec:package";
  for (const std::string& arg : args) {
    text.push_back('\0');
    text += arg;
  }
  return Checked(std::move(text));
}

Result<Service> ExecCmdPackageInstall(const std::vector<std::string>& flags, uint64_t size) {
  auto args = InstallArgs(flags, size);
  if (!args) return args.error();
  return ExecCmdPackage(*args);
}

Result<Service> AbbExecPackageInstall(const std::vector<std::string>& flags, uint64_t size) {
  auto args = InstallArgs(flags, size);
  if (!args) return args.error();
  return AbbExecPackage(*args);
}

}  // namespace droidlab::adb
