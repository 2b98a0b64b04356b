// A tiny /system/bin/sh: enough of mksh for what adb clients send, not a real shell.
//   export ANDROID_LOG_TAGS="''"; exec logcat -d     (what `adb logcat` sends)
//   getprop ro.product.model
//   am force-stop com.x && am start -W -n com.x/.Main
//   exit 3
//   sh -c 'while :; do read -r u </proc/uptime; echo "$u"; sleep "$1"; done' n 0.1
// Supported: words with '…', "…" and \ quoting; $NAME / ${NAME} / $? / $0…$9 and $(…) command
// substitution, expanded when the command runs (not when the script is read: a loop sees its
// variables change); `;`, `&&`, `||`, `!`, newlines; `while LIST; do LIST; done`,
// `if LIST; then LIST; [else LIST;] fi`, `{ LIST; }`; the redirections 2>/dev/null, >/dev/null,
// 2>&1, </dev/null and <FILE for `read`; the builtins export, exec, exit, true, false, cd, echo,
// read, ':' and the commands sleep (toybox: fractions and the s/m/h/d suffixes) and
// `sh -c SCRIPT [NAME ARGS…]`. Pipes, globs, subshells, arithmetic, field splitting, `elif`,
// `for`, `case` and functions are not.
//
// A loop runs one iteration at a time: after each, the output so far is returned with `next`
// set (command_output.h), so a never-ending loop streams, paced by its `sleep`, until the host
// closes the stream.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tools/devsim/command_output.h"

namespace droidlab::devsim {

struct ShellEnvironment {
  std::map<std::string, std::string> variables;
  std::vector<std::string> positional{"/system/bin/sh"};  // $0, $1, …
};

// Runs `script` against `runner` up to its end or the end of a loop's first iteration (then
// the output's `next` goes on). `env` and `runner` must outlive every `next`. Errors are
// reported as mksh would, on stderr with an exit status (127 for a command that does not exist,
// 1 for a syntax error).
CommandOutput RunShellScript(std::string_view script, ShellEnvironment& env, CommandRunner& runner);

// The same, with every `next` followed at once up to `max_steps` iterations (then the output
// ends with an error): for callers that need a command's whole output (`$(…)`, tests).
CommandOutput RunShellScriptToEnd(std::string_view script, ShellEnvironment& env,
                                  CommandRunner& runner, int max_steps = 100'000);

}  // namespace droidlab::devsim
