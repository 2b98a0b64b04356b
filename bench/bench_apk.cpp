#include "bench/bench_apk.h"

#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

namespace droidlab::bench {

std::string MakeApk(const std::string& path, const std::string& manifest, size_t blob_bytes,
                    uint64_t seed) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (archive == nullptr) return "cannot create " + path;
  std::vector<char> blob(blob_bytes);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i + 8 <= blob.size(); i += 8) {
    const uint64_t word = rng();
    std::memcpy(blob.data() + i, &word, 8);
  }
  zip_source_t* manifest_source = zip_source_buffer(archive, manifest.data(), manifest.size(), 0);
  zip_source_t* blob_source = zip_source_buffer(archive, blob.data(), blob.size(), 0);
  const zip_int64_t manifest_index =
      zip_file_add(archive, "AndroidManifest.xml", manifest_source, ZIP_FL_OVERWRITE);
  const zip_int64_t blob_index =
      zip_file_add(archive, "assets/blob.bin", blob_source, ZIP_FL_OVERWRITE);
  if (manifest_index < 0 || blob_index < 0 ||
      zip_set_file_compression(archive, static_cast<zip_uint64_t>(blob_index), ZIP_CM_STORE, 0) !=
          0) {
    const std::string why = zip_strerror(archive);
    zip_discard(archive);
    return why;
  }
  if (zip_close(archive) != 0) {  // writes the archive; the buffers must live until here
    const std::string why = zip_strerror(archive);
    zip_discard(archive);
    return why;
  }
  return "";
}

bool ParseApkBenchFlags(int argc, char** argv, const char* name, ApkBenchFlags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      flags.mb = 5;
      flags.reps = 1;
    } else if (arg == "--mb" && i + 1 < argc) {
      flags.mb = static_cast<size_t>(std::atoi(argv[++i]));
    } else if (arg == "--reps" && i + 1 < argc) {
      flags.reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--mb N] [--reps R]\n", name);
      return false;
    }
  }
  return true;
}

std::optional<TempApk> MakeTempApk(const char* name, const std::string& manifest_path, size_t mb,
                                   std::string* why) {
  std::ifstream manifest_file(manifest_path, std::ios::binary);
  const std::string manifest((std::istreambuf_iterator<char>(manifest_file)),
                             std::istreambuf_iterator<char>());
  if (manifest.empty()) {
    *why = "cannot read " + manifest_path;
    return std::nullopt;
  }
  const char* tmp = std::getenv("TMPDIR");
  TempApk made;
  made.dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + name + "-XXXXXX";
  if (::mkdtemp(made.dir.data()) == nullptr) {
    *why = "cannot make a temporary folder";
    return std::nullopt;
  }
  made.apk = made.dir + "/big.apk";
  if (std::string error = MakeApk(made.apk, manifest, mb << 20); !error.empty()) {
    *why = std::move(error);
    ::unlink(made.apk.c_str());
    ::rmdir(made.dir.c_str());
    return std::nullopt;
  }
  std::ifstream sized(made.apk, std::ios::binary | std::ios::ate);
  made.file_mb = static_cast<double>(sized.tellg()) / 1e6;
  return made;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace droidlab::bench
