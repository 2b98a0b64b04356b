// Parsing the service string of an OPEN message, as adbd's services.cpp does for "shell".
//   "shell:getprop"                         v1: raw bytes, no exit code
//   "shell,v2,raw:getprop ro.product.model" v2 packets; args before ':' separated by ','
//   "shell,v2,TERM=xterm:export ...; exec logcat -d"
// adbd's defaults: pty when the command is empty, raw otherwise; TERM "dumb".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::devsim {

struct ShellRequest {
  bool shell_protocol = false;  // "v2" given
  bool pty = false;
  std::string term = "dumb";
  std::string command;  // empty: an interactive shell
};

// nullopt when the service is not a shell service ("sync:", "reverse:", …).
std::optional<ShellRequest> ParseShellService(std::string_view service);

// A streamed install (packages/modules/adb client/adb_install.cpp install_app_streamed):
//   "exec:cmd package install -r -S 1234"       adbd runs the command line (services.cpp exec:)
//   "abb_exec:package\0install\0-r\0-S\01234"   adbd's abb gets the NUL-separated args
struct InstallServiceRequest {
  std::vector<std::string> argv;  // as one command line: {"cmd", "package", "install", …}
                                  // or {"cmd", "package", "install-write", …}
  std::uint64_t size = 0;         // -S: the bytes that follow on the stream
  bool abb = false;
};
// Also an install session's steps on the same services (client/adb_install.cpp
// install_multiple_app_streamed): "… install-write -S N ID NAME -" takes N bytes like install;
// install-create, install-commit, install-abandon (and install-write from a path) take none
// (size 0).
// nullopt when the service is none of these, or install / install-write - has no -S SIZE.
std::optional<InstallServiceRequest> ParseInstallService(std::string_view service);

// "sync:" (the file sync protocol, tools/devsim/sync_service.h).
bool IsSyncService(std::string_view service);

// adbd's services that take the transport down (packages/modules/adb/daemon/services.cpp):
// "reconnect" (reconnect_service) and "reboot:" with an optional target (reboot_device).
enum class AdbdService { kNone, kReconnect, kReboot };
AdbdService ParseAdbdService(std::string_view service);

}  // namespace droidlab::devsim
