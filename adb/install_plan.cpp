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

Result<void> CheckSessionFileName(std::string_view name) {
  constexpr size_t kMaxName = 200;
  const auto refuse = [&](std::string_view why) {
    return MakeError(AdbErrc::kInvalidArgument,
                     "session file name '" + std::string(name) + "' " + std::string(why));
  };
  if (name.empty() || name.size() > kMaxName) return refuse("is empty or too long");
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return refuse("has a character other than letters, digits, '.', '_' and '-'");
  }
  if (name.front() == '.' || name.front() == '-') return refuse("starts with '.' or '-'");
  if (!name.ends_with(".apk") && !name.ends_with(".dm")) return refuse("ends in neither .apk nor .dm");
  return Result<void>();
}

std::vector<std::string> InstallCreateArgs(const InstallOptions& options, uint64_t total_size) {
  std::vector<std::string> args = {"install-create"};
  for (std::string& flag : InstallFlags(options)) args.push_back(std::move(flag));
  args.emplace_back("-S");
  args.push_back(std::to_string(total_size));
  return args;
}

std::vector<std::string> InstallWriteArgs(int64_t session, uint64_t size, std::string_view name,
                                          std::string_view source) {
  return {"install-write", "-S",           std::to_string(size), std::to_string(session),
          std::string(name), std::string(source)};
}

std::vector<std::string> InstallCommitArgs(int64_t session) {
  return {"install-commit", std::to_string(session)};
}

std::vector<std::string> InstallAbandonArgs(int64_t session) {
  return {"install-abandon", std::to_string(session)};
}

std::string LegacySessionPath(std::string_view name) {
  return "/data/local/tmp/" + std::string(name);
}

}  // namespace droidlab::adb
