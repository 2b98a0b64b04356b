// A large APK made at bench time (adb_install_bench, build_upload_bench): AndroidManifest.xml
// from a fixture's binary manifest and assets/blob.bin of random bytes, stored (not deflated) as
// a big app's resources are; and what those two benchmarks share around it (their flags, a
// temporary folder, the median). Benchmark scaffolding only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace droidlab::bench {

// Writes `path` with libzip; the blob's bytes come from `seed`. Returns why not, or "".
std::string MakeApk(const std::string& path, const std::string& manifest, size_t blob_bytes,
                    uint64_t seed = 42);

// The flags both APK benchmarks take: --quick (5 MiB, one repetition), --mb N, --reps R.
struct ApkBenchFlags {
  size_t mb = 50;
  int reps = 3;
};
// False (usage printed to stderr, naming `name`) for anything else.
bool ParseApkBenchFlags(int argc, char** argv, const char* name, ApkBenchFlags& flags);

// $TMPDIR/NAME-XXXXXX/big.apk, made from the binary manifest at `manifest_path` and `mb` MiB of
// random bytes. nullopt with *why set (and nothing left behind) when it could not be made.
struct TempApk {
  std::string dir;
  std::string apk;
  double file_mb = 0;  // its size in MB (10^6 bytes)
};
std::optional<TempApk> MakeTempApk(const char* name, const std::string& manifest_path, size_t mb,
                                   std::string* why);

double Median(std::vector<double> v);

}  // namespace droidlab::bench
