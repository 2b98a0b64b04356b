// A tiny /system/bin/sh: enough of mksh for what adb clients send, not a real shell.
//   export ANDROID_LOG_TAGS="''"; exec logcat -d     (what `adb logcat` sends)
//   getprop ro.product.model
//   am force-stop com.x && am start -W -n com.x/.Main
//   exit 3
// Supported: words with '…', "…" and \ quoting, $NAME / ${NAME} / $? expansion, `;`, `&&`,
// `||`, newlines, the redirections 2>/dev/null, >/dev/null and 2>&1, and the builtins export,
// exec, exit, true, false, cd, sleep, echo, ':'. Pipes, globs, subshells and control flow are not.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

struct ShellEnvironment {
  std::map<std::string, std::string> variables;
};

// Runs `script` to completion against `runner`. Errors are reported as mksh would, on stderr
// with an exit status (127 for a command that does not exist, 1 for a syntax error).
CommandOutput RunShellScript(std::string_view script, ShellEnvironment& env, CommandRunner& runner);

}  // namespace droidlab::devsim
