#include "bench/bench_apk.h"

#include <zip.h>

#include <cstring>
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

}  // namespace droidlab::bench
