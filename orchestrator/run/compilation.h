// The compilation state a run measures under (issue 14 §2): forced before the first iteration,
// read back, and read again after the last, because launch time depends on it more than on most
// regressions (an app only verified starts far slower than one compiled from its profile) and
// background dexopt changes it overnight.
//
// Forcing, per Android version (PackageManagerShellCommand.runCompile; ART Service's
// ArtShellCommand.handleCompile / handleDeleteDexopt from Android 14):
//   SDK 24–25  cmd package compile -m FILTER -f PKG   filters of Android 7: "verify" is
//              "interpret-only", "none" is "verify-at-runtime"; the dexopt dump is not read
//              (parsers/dumpsys_package.h), so the state reached is unknown: a warning, no check.
//   SDK 26–33  the same command; "none" is "extract".
//   SDK 34+    the same command for speed-profile / speed / verify (ART Service accepts only
//              those); "none" is `cmd package delete-dexopt PKG`, leaving "run-from-apk".
//   SDK < 24   nothing: Android 6 and older compile at install; a warning.
// Reading: `dumpsys package PKG`, the primary code path's primary-ABI status
// (DumpsysPackage::PrimaryDexopt). A state that differs from the one asked fails the run, with
// what to do (speed-profile without a profile ends as "verify"). A state that cannot be read (an
// OEM dump) is a warning and is recorded as null.
// Compiling changes the phone for good, as the user asked: it is recorded with the run, not undone.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/run/device_shell.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

struct CompilationRecord {
  Compilation requested = Compilation::kAsIs;
  std::optional<std::string> before;   // the compiler filter when the run began (preflight)
  std::optional<std::string> reached;  // read back after forcing (as-is: the same read)
  std::optional<std::string> after;    // read after the last iteration
  std::string command;                 // what was sent, space-joined; "" when nothing was
  std::vector<std::string> warnings;   // not forced, or not readable

  // The state changed between the forcing and the run's end (background dexopt ran).
  bool ChangedDuringRun() const { return reached && after && *reached != *after; }
};

// The argv that forces `wanted` on a phone of `sdk` (unknown: Android 8–13's forms); empty for
// "as-is" and for SDK < 24.
std::vector<std::string> CompileCommand(std::string_view package, Compilation wanted,
                                        std::optional<int64_t> sdk);

// Why the state reached is not the one asked for, in words an operator can act on; nullopt when
// it is, when "as-is" was asked, or when nothing could be read (a warning of the record then).
std::optional<std::string> CompilationMismatch(const CompilationRecord& record,
                                               std::optional<int64_t> sdk);

// The primary compiler filter `dumpsys package PKG` shows; nullopt when the dump has none.
boost::asio::awaitable<CommandResult<std::optional<std::string>>> ReadCompilerFilter(
    DeviceShell& shell, std::string package, std::chrono::milliseconds timeout);

// Sends CompileCommand (its own deadline: compiling a large app at "speed" takes a minute) and
// reads back the state reached. `record` comes with requested and before set. Errors: a command
// that failed (the device's words, parsers/pm_compile.h), the device gone, cancelled.
boost::asio::awaitable<CommandResult<CompilationRecord>> ForceCompilation(
    DeviceShell& shell, std::string package, CompilationRecord record, std::optional<int64_t> sdk,
    std::chrono::milliseconds compile_timeout, std::chrono::milliseconds command_timeout);

}  // namespace droidlab::orchestrator
