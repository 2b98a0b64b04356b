// What the package manager's shell command prints when droidlab sets an app's compilation state.
//
// Android 7–13, PackageManagerShellCommand.runCompile (`cmd package compile -m FILTER -f PKG`):
//   "Success"; "Failure: package PKG could not be compiled" (dexopt failed, or no such package);
//   "Error: \"FILTER\" is not a valid compilation filter." for a filter that version does not know.
// Android 14+, ART Service's ArtShellCommand (art/libartservice/service/java/com/android/server/
// art/ArtShellCommand.java), which `cmd package compile` reaches: handleCompile prints "Success"
// or "Failure" (printDexoptResult, one package, not verbose); "Warning: …" lines may come first.
// An unknown package or filter throws: "Exception occurred while executing 'compile':" then the
// Java exception's line (BasicShellCommandHandler). `pm delete-dexopt PKG` (14+) prints
// "Freed N bytes".
// Lines that are none of these are skipped; the last answer line decides. Line ends as
// LineSplitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct PmCompileOutcome {
  bool success = false;
  std::string reason;                 // a failure's words: the Failure/Error line or exception
  std::optional<int64_t> freed_bytes;  // delete-dexopt's "Freed N bytes"
};

// Thread-safe (pure function). Errors: kEmpty for no output (or only blank lines); kNotThisFormat when no line is an
// answer (the caller shows the output itself).
Result<PmCompileOutcome> ParsePmCompileOutput(std::string_view output);

}  // namespace droidlab::parsers
