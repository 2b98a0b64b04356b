// Parsing the service string of an OPEN message, as adbd's services.cpp does for "shell".
//   "shell:getprop"                         v1: raw bytes, no exit code
//   "shell,v2,raw:getprop ro.product.model" v2 packets; args before ':' separated by ','
//   "shell,v2,TERM=xterm:export ...; exec logcat -d"
// adbd's defaults: pty when the command is empty, raw otherwise; TERM "dumb".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace droidlab::devsim {

struct ShellRequest {
  bool shell_protocol = false;  // "v2" given
  bool pty = false;
  std::string term = "dumb";
  std::string command;  // empty: an interactive shell
};

// nullopt when the service is not a shell service ("sync:", "reverse:", …).
std::optional<ShellRequest> ParseShellService(std::string_view service);

}  // namespace droidlab::devsim
