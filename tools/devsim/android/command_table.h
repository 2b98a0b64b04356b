// Command name -> handler: what the device's shell finds on its PATH.
#pragma once

#include <string_view>

#include "tools/devsim/android/command_handlers.h"

namespace droidlab::devsim {

using CommandHandler = CommandOutput (*)(DeviceState& device, const Argv& argv);

// The handler of `name` (argv[0]; a /system/bin/ or /system/xbin/ prefix is dropped), or
// nullptr: the shell then reports the command as not found.
CommandHandler FindCommand(std::string_view name);

}  // namespace droidlab::devsim
