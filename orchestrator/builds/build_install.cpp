#include "orchestrator/builds/build_install.h"

#include <filesystem>
#include <utility>

#include "base/parse_int.h"
#include "orchestrator/builds/build_library.h"
#include "orchestrator/builds/multipart.h"

namespace droidlab::orchestrator {

namespace {

// The session name of an APK of the build.
std::string SessionApkName(const store::BuildFile& file) {
  return file.kind == "base" ? std::string("base.apk")
                             : "split_" + file.split.value_or("") + ".apk";
}

bool HasDexMetadata(const store::Build& build) {
  for (const store::BuildFile& file : build.files) {
    if (file.kind == "dm") return true;
  }
  return false;
}

}  // namespace

std::vector<adb::SessionFile> SessionFilesOf(const std::string& builds_dir,
                                             const store::Build& build) {
  std::vector<adb::SessionFile> files;
  for (const store::BuildFile& file : build.files) {
    if (file.kind == "dm") continue;
    files.push_back({KeptFilePath(builds_dir, file), SessionApkName(file)});
  }
  for (const store::BuildFile& dm : build.files) {
    if (dm.kind != "dm") continue;
    for (const store::BuildFile& apk : build.files) {
      if (apk.kind != "dm" && NameStem(apk.name) == NameStem(dm.name)) {
        files.push_back(
            {KeptFilePath(builds_dir, dm), std::string(NameStem(SessionApkName(apk))) + ".dm"});
        break;
      }
    }
  }
  return files;
}

boost::asio::awaitable<adb::Result<adb::InstallResult>> InstallKeptBuild(
    adb::Client& client, adb::Serial serial, std::string builds_dir, store::Build build,
    adb::InstallOptions options, adb::ProgressCallback progress, adb::Deadline deadline) {
  std::vector<adb::SessionFile> files = SessionFilesOf(builds_dir, build);
  if (files.size() <= 1) {
    std::string path = KeptApkPath(builds_dir, build.sha256);  // a build kept before 0006
    if (!files.empty()) path = files.front().local_path;
    auto installing =
        client.Install(serial, std::move(path), options, std::move(progress), deadline);
    co_return co_await std::move(installing);
  }
  if (HasDexMetadata(build) && !options.sdk) {
    const std::vector<std::string> getprop = {"getprop", "ro.build.version.sdk"};
    auto asking = client.ShellArgv(serial, getprop, deadline);
    auto answer = co_await std::move(asking);
    if (!answer) co_return answer.error();
    std::string digits = answer->out;
    while (!digits.empty() && (digits.back() == '\n' || digits.back() == '\r')) digits.pop_back();
    if (auto sdk = ParseInt<int>(digits)) options.sdk = *sdk;
  }
  if (options.sdk && *options.sdk < kDexMetadataMinSdk) {
    std::erase_if(files, [](const adb::SessionFile& f) { return f.name.ends_with(".dm"); });
  }
  auto installing_all =
      client.InstallMultiple(serial, std::move(files), options, std::move(progress), deadline);
  co_return co_await std::move(installing_all);
}

}  // namespace droidlab::orchestrator
