// Service strings of the adb host protocol (packages/modules/adb SERVICES.TXT), built here and
// only here. A Service holds checked text that fits in one request; EncodeRequest() frames it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adb/error.h"
#include "adb/names.h"
#include "adb/shell_quote.h"

namespace droidlab::adb {

// Made only by the builders below (MakeService is internal to services.cpp).
class Service {
 public:
  const std::string& str() const { return text_; }

 private:
  friend Service MakeService(std::string text);
  explicit Service(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// "host:version" -> "000chost:version". Cannot fail: every Service fits in 0xffff bytes.
std::string EncodeRequest(const Service& service);

// Host services: answered by the adb server itself.
Service HostVersion();           // "host:version"   -> OKAY + "0029" (adb.cpp)
Service HostDevices();           // "host:devices"   -> OKAY + "serial\tstate\n"...
Service HostDevicesLong();       // "host:devices-l" -> OKAY + long lines (device_list.h)
Service HostTrackDevices();      // "host:track-devices"   -> OKAY + a list per change
Service HostTrackDevicesLong();  // "host:track-devices-l" -> OKAY + a long list per change
// (the server sends the current list at once, then one per change: transport.cpp
// device_tracker_ready / update_transports; decode with ProtocolStringDecoder)
Service HostFeatures();  // "host:features": of the one device (FAIL when 0 or 2+)
// "host-serial:emulator-5554:features" -> OKAY + "shell_v2,cmd,stat_v2,...".
Service HostSerialFeatures(const Serial& serial);
// "host:transport:emulator-5554" -> OKAY, then the socket talks to that device's adbd.
// FAIL texts (transport.cpp acquire_one_transport): "device 'emulator-5554' not found",
// "device offline", "device unauthorized.\n...", "device still connecting" (ClassifyFailText).
Service HostTransport(const Serial& serial);
// "host:tport:serial:emulator-5554" -> OKAY + 8-byte transport id (TransportIdReplyDecoder);
// what adb's own client sends since adb 1.0.41 (client/adb_client.cpp switch_socket_transport).
Service HostTportSerial(const Serial& serial);
// "host:transport-id:3": the device by the transport_id of host:devices-l.
Service HostTransportId(uint64_t transport_id);
// "host-serial:emulator-5554:reconnect" -> OKAY + "reconnecting emulator-5554 [device]\n" (OKAY
// + "device 'emulator-5554' not found" when it has no such device): the
// server kicks that device's transport, which connects again (adb.cpp handle_host_request;
// `adb -s SERIAL reconnect`). Only that device's transport: never the server.
Service HostSerialReconnect(const Serial& serial);
// "host:connect:127.0.0.1:5555" -> OKAY + "connected to 127.0.0.1:5555" (or "already connected
// to …", or "failed to connect to …": adb.cpp answers OKAY with connect_device's words either
// way), as `adb connect`. For a phone on the network, whose serial is its address.
Service HostConnect(const Serial& address);

// Local services, sent after a host:transport switch.
// "shell,v2,raw:pm path com.example.app": shell protocol v2 (stdout, stderr and the exit code
// in packets, shell_protocol.h), no pty. Only for devices whose features hold "shell_v2".
// Errors: kInvalidArgument when the service would pass 0xffff bytes.
Result<Service> ShellV2Raw(const ShellCommand& command);
// "shell:pm path com.example.app": raw stdout+stderr mixed, the exit code is lost (old devices).
Result<Service> ShellV1(const ShellCommand& command);
// "sync:": the file sync protocol (adb/sync_protocol.h) on this socket until QUIT.
Service Sync();
// "reconnect": adbd writes "done" and drops its end of the transport
// (packages/modules/adb/daemon/services.cpp reconnect_service; `adb -s SERIAL reconnect device`).
Service DeviceReconnect();
// "reboot:": adbd runs /system/bin/reboot (packages/modules/adb/daemon/services.cpp reboot_device;
// `adb reboot`); the stream ends as the device goes down.
Service Reboot();
// A streamed install of `size` bytes (client/adb_install.cpp install_app_streamed): the APK's
// bytes follow the OKAY raw, and the device answers "Success" or "Failure [...]" and closes.
//   "exec:cmd package install -r -S 1234"          Android 7+ (feature "cmd"), args joined by ' '
//   "abb_exec:package\0install\0-r\0-S\01234"      Android 10+ (feature "abb_exec"), NUL-joined
// `flags` are pm's install options ("-r", "-d"); each must be a plain option word (a '-' then
// letters), else kInvalidArgument.
Result<Service> ExecCmdPackageInstall(const std::vector<std::string>& flags, uint64_t size);
Result<Service> AbbExecPackageInstall(const std::vector<std::string>& flags, uint64_t size);
// The package manager's shell command with `args` (what follows "package"), as adb's
// send_command sends it (client/adb_install.cpp): an install session's steps.
//   "exec:cmd package install-create -r -S 2048"       Android 7+, args joined by ' '
//   "abb_exec:package\0install-create\0-r\0-S\02048"   Android 10+, NUL-joined
// Each arg must be a plain word of letters, digits and `._-:/+,=` (nothing a shell splits,
// quotes or expands, no NUL), else kInvalidArgument: exec: runs its line through sh -c.
Result<Service> ExecCmdPackage(const std::vector<std::string>& args);
Result<Service> AbbExecPackage(const std::vector<std::string>& args);

}  // namespace droidlab::adb
