// How `adb install` gets one APK onto a phone, chosen the way adb's own client chooses
// (packages/modules/adb client/adb_install.cpp best_install_mode / install_app_streamed /
// install_app_legacy), without sockets:
//   abb_exec:package\0install\0-r\0-S\0SIZE   the device's features hold "abb_exec" (Android 10+)
//   exec:cmd package install -r -S SIZE       they hold "cmd" (Android 7+, SDK 24)
//   push to /data/local/tmp/NAME.apk over sync:, `pm install -r PATH`, `rm -f PATH`  (older)
// The streamed ways write the APK's bytes raw after the service's OKAY; the device answers
// "Success" or "Failure [CODE: reason]" (parsers/pm_install.h) and closes.
// Several files of one app (a base APK, its split APKs, a .dm beside the base) go through an
// install session, as `adb install-multiple` does (install_multiple_app_streamed): the same
// three ways carry the package manager's session commands (below).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/error.h"
#include "adb/features.h"

namespace droidlab::adb {

enum class InstallMethod { kPushThenPmInstall, kExecCmd, kAbbExec };

// "push+pm", "exec:cmd", "abb_exec": for logs and the bench.
std::string_view InstallMethodName(InstallMethod method);

struct InstallOptions {
  bool replace = true;           // -r: replace an installed package (adb's legacy path adds it)
  bool allow_downgrade = false;  // -d: accept a lower versionCode
  // The device's SDK (ro.build.version.sdk) when the caller knows it: below 24 the streamed
  // ways do not exist whatever the features say. nullopt: the features alone decide, as adb.
  std::optional<int> sdk;
  // Force a way (tests, benches); nullopt: ChooseInstallMethod.
  std::optional<InstallMethod> method;
};

// abb_exec when the features hold it, else exec:cmd when they hold "cmd", else the push; an
// SDK below 24 always pushes.
InstallMethod ChooseInstallMethod(const FeatureSet& features, std::optional<int> sdk);

// pm's options for `options`: {"-r"}, {"-r", "-d"}, ...
std::vector<std::string> InstallFlags(const InstallOptions& options);

// Where the push way puts the file: "/data/local/tmp/" + the local file's base name
// (install_app_legacy). Errors: kInvalidArgument when the base name is empty, "." or "..".
Result<std::string> LegacyInstallPath(std::string_view local_path);

// One file of a session: the local file and the name it is written under. The package manager
// keeps the name only to pair a .dm with its APK (DexMetadataHelper.findDexMetadataForFile:
// "base.dm" goes with "base.apk"); it names the staged APKs itself from their manifests.
struct SessionFile {
  std::string local_path;
  std::string name;  // "base.apk", "split_config.arm64_v8a.apk", "base.dm"
};

// A session file's name: letters, digits, '.', '_', '-' (FileUtils.isValidExtFilename's
// spirit, and nothing a shell or a path reads), at most 200 bytes, ending in ".apk" or ".dm".
// Errors: kInvalidArgument saying why.
Result<void> CheckSessionFileName(std::string_view name);

// The session's steps as the package manager's arguments (after `cmd package`, `pm` or abb's
// `package`), in PackageManagerShellCommand's syntax (runInstallCreate, runInstallWrite,
// runInstallCommit, runInstallAbandon; Android 5–6: Pm.java's, the same words):
//   {"install-create", "-r", "-S", "2048"}             -> "Success: created install session [N]"
//   {"install-write", "-S", "1187", "N", "base.apk", "-"} the bytes on stdin ("-") or a path on
//                                                          the phone -> "Success: streamed 1187 bytes"
//   {"install-commit", "N"}                            -> "Success" or "Failure [CODE: reason]"
//   {"install-abandon", "N"}                           -> "Success"
std::vector<std::string> InstallCreateArgs(const InstallOptions& options, uint64_t total_size);
std::vector<std::string> InstallWriteArgs(int64_t session, uint64_t size, std::string_view name,
                                          std::string_view source);
std::vector<std::string> InstallCommitArgs(int64_t session);
std::vector<std::string> InstallAbandonArgs(int64_t session);

// Where the push way stages a session file: "/data/local/tmp/" + its (checked) name.
std::string LegacySessionPath(std::string_view name);

}  // namespace droidlab::adb
