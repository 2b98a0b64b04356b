// What the package manager's shell command prints for an install, in each of the three ways
// droidlab (like adb itself) installs: `cmd package install -S SIZE` (streamed, Android 7+; over
// `abb_exec` on 10+), the session commands `install-create` / `install-write` / `install-commit`
// (split APKs), and `pm install PATH` after a push (older phones).
// services/core/java/com/android/server/pm/PackageManagerShellCommand.java:
// - runInstallCreate: "Success: created install session [" + sessionId + "]" ("adb depends on
//   parsing this string");
// - runInstallWrite (doWriteSplit with logSuccess): "Success: streamed N bytes" (every version;
//   N the bytes copied on 7–9, the -S size from 10; the one-shot `install` passes logSuccess
//   false and prints only the commit's answer); a failed write: "Error: failed to write; …";
// - runInstallAbandon (doAbandonSession): "Success";
// - doCommitSession: "Success", or "Failure [" + EXTRA_STATUS_MESSAGE + "]", the message being
//   PackageManager.installStatusToString's code and the reason:
//     Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package com.zig.raylib signatures do
//     not match newer version; ignoring!] Failure [INSTALL_FAILED_ALREADY_EXISTS] (older phones, no
//     reason)
// - a bad argument: "Error: …" on stderr (merged by a pty or shell v1); an exception escaping the
//   command (Android 11+, BasicShellCommandHandler): "Exception occurred while executing
//   'install-write':" then the Java exception and its stack.
// Android 4–6's `pm install` (cmds/pm/.../Pm.java runInstall) printed "\tpkg: PATH" on stderr
// before its answer; lines that are none of these are skipped. Line ends as LineSplitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct PmInstallOutcome {
  bool success = false;
  std::optional<int64_t> session_id;  // install-create's new session
  std::string code;                   // a failure's INSTALL_… code ("" when it gave none)
  std::string reason;  // what follows the code, "Error: …"'s text, or the exception's line
};

// The last answer line decides (Success…, Failure […], Error:, Exception occurred…). Thread-safe
// (pure function). Errors: kEmpty for no output; kNotThisFormat when no line is an answer (the
// caller then shows the output itself); kMalformed for "Success: created install session" with
// no number in its brackets.
Result<PmInstallOutcome> ParsePmInstallOutput(std::string_view output);

// Words an operator can act on for a failure code ("the phone has a newer versionCode
// installed…"); "" for a code not known here (the device's reason then stands alone).
std::string_view InstallFailureAdvice(std::string_view code);

}  // namespace droidlab::parsers
