#include "daemon/build_groups.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>

#include "orchestrator/builds/apk_reader.h"

namespace droidlab::daemon {

namespace {

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

bool IsDexMetadata(const std::string& path) {
  return std::filesystem::path(path).extension() == ".dm";
}

}  // namespace

BasicResult<std::vector<std::vector<std::string>>, std::string> GroupBuildFiles(
    const std::vector<std::string>& files) {
  struct Group {
    std::string package;
    int64_t version_code = 0;
    std::vector<std::string> files;
  };
  std::vector<Group> groups;
  for (const std::string& file : files) {
    if (IsDexMetadata(file)) continue;
    auto manifest = orchestrator::ReadApkManifest(file);
    if (!manifest) {
      // Not an APK here: sent alone, so that the daemon answers it as before (its reason, 400).
      groups.push_back(Group{"", -1, {file}});
      continue;
    }
    const int64_t version_code = static_cast<int64_t>(manifest->version_code);
    auto same = [&](const Group& g) {
      return g.package == manifest->package && g.version_code == version_code;
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back(Group{manifest->package, version_code, {}});
      it = groups.end() - 1;
    }
    it->files.push_back(file);
  }
  for (const std::string& file : files) {
    if (!IsDexMetadata(file)) continue;
    bool placed = false;
    for (Group& g : groups) {
      for (const std::string& apk : g.files) {
        if (!placed && Stem(apk) == Stem(file)) {
          g.files.push_back(file);
          placed = true;
        }
      }
    }
    if (!placed) {
      return file + ": no APK of the same name (" + Stem(file) +
             ".apk) is given with it: Android pairs a .dm with its APK by name";
    }
  }
  std::vector<std::vector<std::string>> out;
  for (Group& g : groups) out.push_back(std::move(g.files));
  return out;
}

std::string JoinedNames(const std::vector<std::string>& files) {
  std::string names;
  for (const std::string& file : files) {
    if (!names.empty()) names += " + ";
    names += std::filesystem::path(file).filename().string();
  }
  return names;
}

}  // namespace droidlab::daemon
