#include "tools/devsim/android/command_table.h"

#include <utility>

#include "tools/devsim/android/fault_injection.h"

namespace droidlab::devsim {
namespace {

constexpr std::pair<std::string_view, CommandHandler> kCommands[] = {
    {"getprop", RunGetprop},
    {"setprop", RunSetprop},
    {"settings", RunSettings},
    {"pidof", RunPidof},
    {"cat", RunCat},
    {"devsim-stats", RunDevsimStats},
    {"am", RunAm},
    {"pm", RunPm},
    {"logcat", RunLogcat},
    {"input", RunInput},
    {"wm", RunWm},
    {"dumpsys", RunDumpsys},
    {"cmd", RunCmd},
    {"ps", RunPs},
    {"date", RunDate},
    {"getconf", RunGetconf},
    {"rm", RunRm},
    {"sha1sum", RunSha1sum},
    {"devsim-fault", RunDevsimFault},
    {"devsim-input-log", RunDevsimInputLog},
    {"monkey", RunMonkey},
};

}  // namespace

CommandHandler FindCommand(std::string_view name) {
  for (std::string_view prefix : {"/system/bin/", "/system/xbin/"}) {
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  }
  for (const auto& [command, handler] : kCommands) {
    if (command == name) return handler;
  }
  return nullptr;
}

}  // namespace droidlab::devsim
