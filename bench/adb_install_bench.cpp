// Installing a large APK through adb::Client::Install, beside `adb -P PORT -s SERIAL install
// FILE` as a process, in one run against one real adb server on a private port and one devsim
// phone (Android 13: both install over abb_exec:), both started (and stopped) here.
//
//   adb_install_bench [--quick] [--mb N] [--reps R]
//
// The APK is made here, in a temporary folder, with libzip: the binary manifest of a fixture
// (tests/data/apk/major_aapt2.manifest.bin, org.example.major) and an N MB entry of random bytes,
// stored (not deflated) as a big app's resources are. Each repetition installs it with ours,
// then with adb; prints MB/s (file bytes over the whole install, the device's answer included)
// for the best and the median of each, and the ratio. Default N = 50, R = 3; --quick: N = 5,
// R = 1 (a CI smoke run). Without adb or devsim: says why and exits 0.
#include <unistd.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "adb/client.h"
#include "bench/bench_apk.h"
#include "bench/bench_lab.h"

namespace {

namespace asio = boost::asio;
namespace adb = droidlab::adb;
namespace bench = droidlab::bench;
using bench::Clock;

const std::string kAdb = DROIDLAB_ADB_PATH;
const std::string kDevsim = DROIDLAB_DEVSIM_PATH;
const std::string kManifest = std::string(DROIDLAB_TEST_DATA_DIR) + "/apk/major_aapt2.manifest.bin";

// One install through ours into `*out` (a free function with value parameters: g++ 12 and
// lambda coroutines with captures do not mix).
asio::awaitable<void> InstallOnce(adb::Client* client, adb::Serial serial, std::string apk,
                                  std::optional<adb::Result<adb::InstallResult>>* out) {
  auto install = client->Install(serial, apk, {}, {}, adb::DeadlineAfter(std::chrono::minutes(5)));
  out->emplace(co_await std::move(install));
}

}  // namespace

int main(int argc, char** argv) {
  bench::ApkBenchFlags flags;
  if (!bench::ParseApkBenchFlags(argc, argv, "adb_install_bench", flags)) return 2;
  const size_t mb = flags.mb;
  const int reps = flags.reps;
  auto lab =
      bench::AdbLab::Start({.adb = kAdb, .devsim = kDevsim, .count = 1, .devsim_args = {"--fast"}});
  if (!lab) {
    std::printf("adb_install_bench: %s\n", lab.why.c_str());
    return lab.skipped ? 0 : 1;
  }
  std::string why;
  const auto made = bench::MakeTempApk("adb_install_bench", kManifest, mb, &why);
  if (!made) {
    std::printf("adb_install_bench: %s\n", why.c_str());
    return 1;
  }
  const std::string& apk = made->apk;
  const std::string& dir = made->dir;
  const double file_mb = made->file_mb;

  const std::string serial_text = lab->serials().at(0);
  const adb::Serial serial = *adb::Serial::Parse(serial_text);
  asio::io_context io;
  adb::ClientOptions options;
  options.server.port = static_cast<uint16_t>(lab->port());
  options.adb_path = kAdb;
  adb::Client client(io.get_executor(), options);

  std::vector<double> ours_mbps, adb_mbps;
  int failures = 0;
  std::string method = "?";
  double cpu_us = 0;
  for (int rep = 0; rep < reps; ++rep) {
    std::optional<adb::Result<adb::InstallResult>> result;
    const double cpu_before = bench::CpuMicros();
    const auto start = Clock::now();
    asio::co_spawn(io, InstallOnce(&client, serial, apk, &result), [](std::exception_ptr e) {
      if (e) std::fprintf(stderr, "adb_install_bench: the install threw\n");
    });
    io.restart();
    io.run();
    const double ms = bench::MsSince(start);
    cpu_us += bench::CpuMicros() - cpu_before;
    if (result && result->ok() && (*result)->success) {
      ours_mbps.push_back(file_mb / (ms / 1000));
      method = std::string(adb::InstallMethodName((*result)->method));
    } else {
      ++failures;
      std::fprintf(stderr, "adb_install_bench: ours failed: %s\n",
                   !result         ? "no result"
                   : !result->ok() ? result->error().message.c_str()
                                   : (*result)->output.c_str());
    }
    const auto adb_start = Clock::now();
    const int status = lab->Adb({"-s", serial_text, "install", apk});
    const double adb_ms = bench::MsSince(adb_start);
    if (status == 0) {
      adb_mbps.push_back(file_mb / (adb_ms / 1000));
    } else {
      ++failures;
      std::fprintf(stderr, "adb_install_bench: adb install exited %d\n", status);
    }
  }
  ::unlink(apk.c_str());
  ::rmdir(dir.c_str());
  const int port = lab->port();
  lab.lab.reset();  // stops devsim and the adb server

  const double ours_best =
      ours_mbps.empty() ? 0 : *std::max_element(ours_mbps.begin(), ours_mbps.end());
  const double adb_best =
      adb_mbps.empty() ? 0 : *std::max_element(adb_mbps.begin(), adb_mbps.end());
  std::printf(
      "adb_install_bench: a %.1f MB APK (%zu MiB stored random entry), %d repetitions, "
      "adb server on port %d, devsim Android 13 (%s)\n",
      file_mb, mb, reps, port, method.c_str());
  std::printf(
      "  ours (adb::Client::Install)  best %.1f MB/s  median %.1f MB/s  CPU %.0f ms per install\n",
      ours_best, bench::Median(ours_mbps), cpu_us / 1000 / reps);
  std::printf("  adb install (process)        best %.1f MB/s  median %.1f MB/s\n", adb_best,
              bench::Median(adb_mbps));
  std::printf("  ours / adb = %.2fx (best), %.2fx (median)   failures %d\n",
              adb_best > 0 ? ours_best / adb_best : 0,
              bench::Median(adb_mbps) > 0 ? bench::Median(ours_mbps) / bench::Median(adb_mbps) : 0, failures);
  return failures == 0 ? 0 : 1;
}
