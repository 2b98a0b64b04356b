#include "orchestrator/builds/apk_reader.h"

#include <zip.h>

#include <memory>
#include <string_view>

#include "adb/names.h"
#include "orchestrator/builds/zip_handles.h"

namespace droidlab::orchestrator {

namespace {

constexpr char kManifestEntry[] = "AndroidManifest.xml";

std::string ZipOpenError(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

using Archive = ZipArchive;

// The zip at `path`, or why not ("not an APK", "not a .dm": `what`).
BasicResult<Archive, std::string> OpenZip(const std::string& path, std::string_view what) {
  int open_error = 0;
  Archive archive(zip_open(path.c_str(), ZIP_RDONLY, &open_error));
  if (!archive) {
    if (open_error == ZIP_ER_NOZIP || open_error == ZIP_ER_INCONS) {
      return path + ": " + std::string(what) + ": not a zip archive (" + ZipOpenError(open_error) +
             ")";
    }
    return path + ": cannot open: " + ZipOpenError(open_error);
  }
  return archive;
}

}  // namespace

BasicResult<void, std::string> CheckDexMetadata(const std::string& path) {
  auto archive = OpenZip(path, "not a .dm");
  if (!archive) return archive.error();
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive->get(), "primary.prof", 0, &stat) != 0) {
    return path + ": not a .dm: the archive has no primary.prof";
  }
  return {};
}

BasicResult<parsers::ApkManifest, std::string> ReadApkManifest(const std::string& path) {
  auto opened = OpenZip(path, "not an APK");
  if (!opened) return opened.error();
  Archive archive = std::move(*opened);
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive.get(), kManifestEntry, 0, &stat) != 0) {
    return path + ": not an APK: the archive has no AndroidManifest.xml";
  }
  if ((stat.valid & ZIP_STAT_SIZE) == 0 || stat.size > kMaxManifestBytes) {
    return path + ": AndroidManifest.xml is larger than " + std::to_string(kMaxManifestBytes) +
           " bytes: refused";
  }
  ZipEntry entry(zip_fopen(archive.get(), kManifestEntry, 0));
  if (!entry) {
    return path + ": AndroidManifest.xml cannot be read: " + zip_strerror(archive.get());
  }
  std::string bytes(static_cast<size_t>(stat.size), '\0');
  size_t have = 0;
  while (have < bytes.size()) {
    const zip_int64_t n = zip_fread(entry.get(), bytes.data() + have, bytes.size() - have);
    if (n < 0) {
      return path + ": AndroidManifest.xml cannot be inflated: " + zip_file_strerror(entry.get());
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  if (have != bytes.size()) {
    return path + ": AndroidManifest.xml is cut short (" + std::to_string(have) + " of " +
           std::to_string(bytes.size()) + " bytes)";
  }
  auto manifest = parsers::ParseApkManifest(bytes);
  if (!manifest) return path + ": " + manifest.error().message;
  auto package = adb::PackageName::Parse(manifest->package);
  if (!package) return path + ": the manifest's " + package.error().message;
  return std::move(*manifest);
}

}  // namespace droidlab::orchestrator
