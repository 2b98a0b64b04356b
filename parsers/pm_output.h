// Two package-manager shell commands a run uses before it starts
// (services/core/java/com/android/server/pm/PackageManagerShellCommand.java, Android 7+).
//
// `pm path PKG` (runPath -> displayPackageFilePath): "package:" + path, the base APK first, then
// one line per split; Android 11+ install directories carry the "~~…==" random prefix:
//
//   package:/data/app/~~kk1svdk5INu5m4M4-QsY2g==/com.viewer.comicscreen-PWjfAUbzQksNJTP1RBzzAg==/base.apk
//   package:/data/app/~~kk1svdk5INu5m4M4-QsY2g==/com.viewer.comicscreen-PWjfAUbzQksNJTP1RBzzAg==/split_config.arm64_v8a.apk
//
// A package that is not installed prints nothing and exits 1: empty output parses to no paths
// (installed() false); the caller should check the exit status too.
//
// `cmd package resolve-activity --brief PKG` (runResolveActivity -> printResolveInfo): two lines,
// the ResolveInfo's numbers then ComponentName.flattenToShortString():
//
//   priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false
//   com.malmstein.yahnac/.stories.NewsActivity
//
// or "No activity found" when nothing resolves. `--components` prints the component line alone.
// When several activities match and none is preferred, the answer is the system chooser,
// "android/com.android.internal.app.ResolverActivity" (is_chooser), not the app's activity.
// Lines that fit none of these are counted in skipped_lines. Line ends as LineSplitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

struct PmPath {
  std::vector<std::string> apk_paths;  // as printed after "package:", in order
  uint64_t skipped_lines = 0;

  bool installed() const { return !apk_paths.empty(); }
};

// Thread-safe (pure function).
// Errors: kNotThisFormat when the output has non-blank lines but no "package:" line (an error
// message, a shell's "pm: not found"). Empty output is not an error: no paths.
Result<PmPath> ParsePmPath(std::string_view output);

struct ResolvedActivity {
  std::optional<std::string> component;  // "com.pkg/.Main"; nullopt for "No activity found"
  bool is_chooser = false;               // component is the system's ResolverActivity
  std::optional<int> priority;
  std::optional<int> preferred_order;
  std::optional<uint32_t> match;         // "match=0x108000"
  std::optional<int> specific_index;
  std::optional<bool> is_default;
  uint64_t skipped_lines = 0;
};

// Thread-safe (pure function).
// Errors: kEmpty for empty or blank output; kNotThisFormat when there is neither a component
// line ("pkg/class", no spaces) nor "No activity found".
Result<ResolvedActivity> ParseResolveActivityBrief(std::string_view output);

}  // namespace droidlab::parsers
