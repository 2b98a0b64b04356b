// A large APK made at bench time (adb_install_bench, build_upload_bench): AndroidManifest.xml
// from a fixture's binary manifest and assets/blob.bin of random bytes, stored (not deflated) as
// a big app's resources are. Benchmark scaffolding only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace droidlab::bench {

// Writes `path` with libzip; the blob's bytes come from `seed`. Returns why not, or "".
std::string MakeApk(const std::string& path, const std::string& manifest, size_t blob_bytes,
                    uint64_t seed = 42);

}  // namespace droidlab::bench
