#include "adb/install_plan.h"

namespace droidlab::adb {

std::string_view InstallMethodName(InstallMethod method) {
  switch (method) {
    case InstallMethod::kPushThenPmInstall:
      return "push+pm";
    case InstallMethod::kExecCmd:
      return "exec:cmd";
    case InstallMethod::kAbbExec:
      return "abb_exec";
  }
  return "?";
}

InstallMethod ChooseInstallMethod(const FeatureSet& features, std::optional<int> sdk) {
  // `cmd` (and so `exec:cmd package install -S`) came with Android 7 (SDK 24).
  constexpr int kStreamedInstallMinSdk = 24;
  if (sdk && *sdk < kStreamedInstallMinSdk) return InstallMethod::kPushThenPmInstall;
  if (HasFeature(features, kFeatureAbbExec)) return InstallMethod::kAbbExec;
  if (HasFeature(features, kFeatureCmd)) return InstallMethod::kExecCmd;
  return InstallMethod::kPushThenPmInstall;
}

std::vector<std::string> InstallFlags(const InstallOptions& options) {
  std::vector<std::string> flags;
  if (options.replace) flags.emplace_back("-r");
  if (options.allow_downgrade) flags.emplace_back("-d");
  return flags;
}

Result<std::string> LegacyInstallPath(std::string_view local_path) {
  const size_t slash = local_path.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? local_path : local_path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    return MakeError(AdbErrc::kInvalidArgument,
                     "install: '" + std::string(local_path) + "' names no file");
  }
  return "/data/local/tmp/" + std::string(name);
}

}  // namespace droidlab::adb
