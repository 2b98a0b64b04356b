// `cmd package compile -m FILTER [-f] PKG` and `cmd package delete-dexopt PKG` (also as `pm`),
// printed as each Android version prints them:
// - Android 7–13, PackageManagerShellCommand.runCompile: "Success", "Failure: package PKG could
//   not be compiled", or "Error: \"F\" is not a valid compilation filter." (DexFile
//   .isValidCompilerFilter, the names of that version's art/.../compiler_filter.cc);
// - Android 14+, ART Service's ArtShellCommand.handleCompile: "Success" or "Failure"; an unknown
//   package or a filter ART Service does not take throws (BasicShellCommandHandler prints
//   "Exception occurred while executing 'compile':" and the exception); handleDeleteDexopt prints
//   "Freed N bytes". ART Service compiles speed-profile without a profile as "verify" (its help).
#include <algorithm>
#include <array>
#include <string>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/compilation.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

constexpr int kArtServiceSdk = 34;

// compiler_filter.cc's names: Android 7 (SDK 24–25); Android 8–13 (26–33, "quicken" until 11)
// with the obsolete names still accepted; ART Service refuses assume-verified, extract, quicken.
bool ValidFilter(int sdk, std::string_view f) {
  static constexpr std::array<std::string_view, 12> kAndroid7 = {
      "verify-none", "verify-at-runtime", "verify-profile", "interpret-only",
      "space-profile", "space", "balanced", "time", "speed-profile", "speed",
      "everything-profile", "everything"};
  static constexpr std::array<std::string_view, 9> kModern = {
      "assume-verified", "extract", "verify", "space-profile", "space", "speed-profile", "speed",
      "everything-profile", "everything"};
  if (sdk < 26) return std::find(kAndroid7.begin(), kAndroid7.end(), f) != kAndroid7.end();
  if (sdk >= kArtServiceSdk && (f == "assume-verified" || f == "extract")) return false;
  if (f == "quicken") return sdk <= 30;
  if (sdk < kArtServiceSdk && (f == "verify-none" || f == "interpret-only" ||
                               f == "verify-profile" || f == "verify-at-runtime")) {
    return true;  // obsolete names, mapped below
  }
  return std::find(kModern.begin(), kModern.end(), f) != kModern.end();
}

// Android 8+ maps the obsolete names (CompilerFilter::ParseCompilerFilter).
std::string_view Canonical(int sdk, std::string_view f) {
  if (sdk < 26) return f;
  if (f == "verify-none") return "assume-verified";
  if (f == "interpret-only") return sdk <= 30 ? "quicken" : "verify";
  if (f == "verify-profile") return "verify";
  if (f == "verify-at-runtime") return "extract";
  return f;
}

bool ProfileGuided(std::string_view f) { return f.ends_with("-profile") && f != "verify-profile"; }

CommandOutput CompileFailure(int sdk, const std::string& package, const std::string& exception) {
  if (sdk >= kArtServiceSdk) {
    CommandOutput out;
    out.Err("Exception occurred while executing 'compile':\n" + exception + "\n");
    out.exit_code = 255;
    return out;
  }
  CommandOutput out;
  out.Out("Failure: package " + package + " could not be compiled\n");
  out.exit_code = 1;
  return out;
}

}  // namespace

CommandOutput RunPackageCompile(DeviceState& device, const Argv& args) {
  const int sdk = device.scenario.device.sdk;
  std::string filter;
  std::string package;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-m" && i + 1 < args.size()) {
      filter = args[++i];
    } else if (a == "-f" || a == "-c" || a == "-v") {
      continue;
    } else if (a.starts_with("-")) {
      return Error("Error: Unknown option: " + a + "\n", 1);
    } else {
      package = a;
    }
  }
  if (filter.empty()) {
    CommandOutput out;
    out.Out(
        "Must specify exactly one of compilation filter (\"-m\"), compilation reason (\"-r\"), "
        "or compile layouts (\"--compile-layouts\")\n");
    out.exit_code = 1;
    return out;
  }
  if (!ValidFilter(sdk, filter)) {
    if (sdk >= kArtServiceSdk) {
      return CompileFailure(sdk, package,
                            "java.lang.IllegalArgumentException: Invalid compiler filter '" +
                                filter + "'");
    }
    CommandOutput out;
    out.Out("Error: \"" + filter + "\" is not a valid compilation filter.\n");
    out.exit_code = 1;
    return out;
  }
  if (package.empty()) return Error("Error: package name not specified\n", 1);
  App* app = device.FindApp(package);
  if (app == nullptr) {
    return CompileFailure(sdk, package,
                          "java.lang.IllegalArgumentException: Package not found: " + package);
  }
  std::string reached(Canonical(sdk, filter));
  if (sdk >= kArtServiceSdk && ProfileGuided(reached) && !app->spec.has_profile) {
    reached = "verify";
  }
  app->spec.compiler_filter = reached;
  app->spec.compilation_reason = "cmdline";
  ScheduleBackgroundDexopt(device, *app);
  CommandOutput out;
  out.Out("Success\n");
  return out;
}

CommandOutput RunPackageDeleteDexopt(DeviceState& device, const Argv& args) {
  const int sdk = device.scenario.device.sdk;
  if (sdk < kArtServiceSdk) return Error("Unknown command: delete-dexopt\n", 255);
  if (args.empty()) return Error("Error: no package specified\n", 255);
  App* app = device.FindApp(args[0]);
  if (app == nullptr) {
    CommandOutput out;
    out.Err("Exception occurred while executing 'delete-dexopt':\n"
            "java.lang.IllegalArgumentException: Package not found: " +
            args[0] + "\n");
    out.exit_code = 255;
    return out;
  }
  const bool had_artifacts = app->spec.compiler_filter != "run-from-apk";
  app->spec.compiler_filter = "run-from-apk";
  app->spec.compilation_reason = "unknown";
  ScheduleBackgroundDexopt(device, *app);
  CommandOutput out;
  out.Out("Freed " + std::to_string(had_artifacts ? 6'291'456 : 0) + " bytes\n");
  return out;
}

double ColdLaunchFactor(std::string_view filter) {
  if (filter == "speed" || filter == "everything" || filter == "everything-profile") return 0.95;
  if (filter == "quicken") return 1.25;
  if (filter == "verify" || filter == "interpret-only" || filter == "verify-profile") return 1.35;
  if (filter == "extract" || filter == "run-from-apk" || filter == "assume-verified" ||
      filter == "verify-none" || filter == "verify-at-runtime") {
    return 1.6;
  }
  return 1.0;  // speed-profile, space-profile, space and names not known here
}

namespace {

// ART's order of filters, worst first (CompilerFilter::IsAsGoodAs).
int Rank(std::string_view f) {
  static constexpr std::array<std::string_view, 9> kOrder = {
      "run-from-apk", "assume-verified", "extract", "verify", "quicken", "space-profile",
      "space", "speed-profile", "speed"};
  const auto it = std::find(kOrder.begin(), kOrder.end(), f);
  return it == kOrder.end() ? static_cast<int>(kOrder.size()) : static_cast<int>(it - kOrder.begin());
}

}  // namespace

void ScheduleBackgroundDexopt(DeviceState& device, App& app) {
  app.bg_dexopt_at.reset();
  if (app.spec.bg_dexopt_after_s <= 0) return;
  app.bg_dexopt_at = device.Now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                        std::chrono::duration<double>(app.spec.bg_dexopt_after_s));
}

void RunBackgroundDexoptIfDue(DeviceState& device, App& app) {
  if (!app.bg_dexopt_at || device.Now() < *app.bg_dexopt_at) return;
  app.bg_dexopt_at.reset();
  if (!app.spec.has_profile || Rank(app.spec.compiler_filter) >= Rank("speed-profile")) return;
  app.spec.compiler_filter = "speed-profile";
  app.spec.compilation_reason = "bg-dexopt";
}

void CompileAtInstall(DeviceState& device, App& app) {
  const int sdk = device.scenario.device.sdk;
  if (sdk < 26) {
    app.spec.compiler_filter = "interpret-only";
  } else if (app.spec.has_profile && sdk >= 28) {
    app.spec.compiler_filter = "speed-profile";
  } else {
    app.spec.compiler_filter = sdk <= 30 ? "quicken" : "verify";
  }
  app.spec.compilation_reason = "install";
  ScheduleBackgroundDexopt(device, app);
}

}  // namespace droidlab::devsim
