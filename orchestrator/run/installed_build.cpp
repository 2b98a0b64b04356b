#include "orchestrator/run/installed_build.h"

#include <algorithm>
#include <vector>

#include "base/joined.h"
#include "orchestrator/run/device_commands.h"

namespace droidlab::orchestrator {

namespace {

// "a, b" → {"a", "b"}: builds.signature as written by ApkSignature::Text.
std::vector<std::string> SplitHashes(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(", ", start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 2;
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

InstalledBuild AlreadyInstalled(const store::Build& build) {
  InstalledBuild installed;
  installed.id = build.id;
  installed.sha256 = build.sha256;
  installed.version_code = build.version_code;
  installed.method = kAlreadyInstalled;
  return installed;
}

InstalledBuild InstallIntention(const store::Build& build) {
  InstalledBuild installed = AlreadyInstalled(build);
  installed.method = kInstalling;
  return installed;
}

std::optional<std::string> WhyInstall(const store::Build& build,
                                      const parsers::DumpsysPackage& installed,
                                      const std::optional<store::DeviceInstalledBuild>& last) {
  if (last && last->install_method == kInstalling) {
    return "droidlab's last install there (build " + std::to_string(last->build_id) + ", run " +
           std::to_string(last->run_id) + ") was not seen to finish, so what the phone has is unknown";
  }
  const std::optional<std::string> last_installed_sha256 =
      last ? last->sha256 : std::optional<std::string>();
  if (!installed.installed) return build.package + " is not installed";
  if (!installed.version_code) return "the installed versionCode cannot be read";
  if (*installed.version_code != build.version_code) {
    return "versionCode " + std::to_string(*installed.version_code) +
           " is installed, the build is " + std::to_string(build.version_code);
  }
  if (!build.signature) return "the build is not signed, so it matches nothing installed";
  if (!installed.signatures) return "the phone prints no signatures of the package";
  if (installed.signatures->identity_hashes) {
    return "the phone (Android 8.1 or older) prints no comparable signature";
  }
  std::vector<std::string> phone = installed.signatures->current;
  std::sort(phone.begin(), phone.end());
  const std::vector<std::string> ours = SplitHashes(*build.signature);
  if (phone != ours) {
    return "another signature is installed (" + Joined(phone, ", ") +
           "; the build's: " + Joined(ours, ", ") + ")";
  }
  if (!last_installed_sha256) {
    return "droidlab has not installed this package on the phone before (the same versionCode and "
           "key may hold other bytes)";
  }
  if (*last_installed_sha256 != build.sha256) {
    return "the last build droidlab installed there has other bytes (sha256 " +
           last_installed_sha256->substr(0, 12) + "…)";
  }
  return std::nullopt;
}

boost::asio::awaitable<CommandResult<parsers::DumpsysPackage>> ReadInstalledPackage(
    DeviceShell& shell, std::string package, adb::Deadline deadline) {
  auto dumpsys_package = shell.Run(DumpsysPackage(package), deadline);
  auto dumped = co_await std::move(dumpsys_package);
  if (!dumped) co_return dumped.error();
  auto parsed = parsers::ParseDumpsysPackage(dumped->out, package);
  if (!parsed) {
    CommandError error;
    error.message = "`dumpsys package " + package + "` cannot be read: " + parsed.error().message;
    co_return error;
  }
  co_return std::move(parsed).value();
}

boost::asio::awaitable<std::optional<std::string>> WhyInstallOnDevice(DeviceShell& shell,
                                                                      store::AsyncStore store,
                                                                      store::Build build,
                                                                      adb::Deadline deadline) {
  auto reading_history = store.InstalledBuildsOnDevice(shell.serial().str());
  auto history = co_await std::move(reading_history);
  if (!history) {
    co_return "what droidlab installed on the phone cannot be read: " + history.error().message;
  }
  std::optional<store::DeviceInstalledBuild> last;
  for (const auto& entry : *history) {
    if (entry.package == build.package) last = entry;
  }
  auto reading_package = ReadInstalledPackage(shell, build.package, deadline);
  auto installed = co_await std::move(reading_package);
  if (!installed) co_return installed.error().message;
  co_return WhyInstall(build, *installed, last);
}

}  // namespace droidlab::orchestrator
