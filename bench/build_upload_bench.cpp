// Uploading a large APK to POST /api/v1/builds with curl, beside the same curl upload to a
// minimal sink in the same run: a plain blocking server here that reads the body (256 KiB reads)
// into a file and answers 201 — what any HTTP endpoint that takes a file must at least do.
//
//   build_upload_bench [--quick] [--mb N] [--reps R]
//
// The APK is made here (bench_apk.h: a fixture's manifest and N MB of random bytes, stored).
// `droidlab serve` (this build's binary) runs on a private port with a temporary database; each
// repetition uploads to it (then DELETEs the build, so the next one is kept anew: hashed, manifest
// read, synced, moved, stored), then to the sink. Prints MB/s (file bytes over curl's total
// time) best and median for each and the ratio ours/sink; and the daemon's peak RSS (VmHWM)
// before and after, against the file's size: streamed to disk, never held whole. Default N = 50,
// R = 5; --quick: N = 5, R = 1 (a CI smoke run). Without curl: says why and exits 0.
// DROIDLAB_BENCH_DAEMON=PATH runs that droidlab binary instead (another build, side by side).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_apk.h"
#include "bench/bench_lab.h"

namespace {

namespace bench = droidlab::bench;

const char* const kDaemonOverride = std::getenv("DROIDLAB_BENCH_DAEMON");
const std::string kDroidlab = kDaemonOverride != nullptr ? kDaemonOverride : DROIDLAB_BINARY;
const std::string kManifest = std::string(DROIDLAB_TEST_DATA_DIR) + "/apk/app_aapt2.manifest.bin";

// VmHWM (peak resident set) of `pid`, in KiB; -1 when unreadable.
long PeakRssKb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// The sink: one connection at a time; the header up to its blank line, Content-Length bytes to
// `file`, then "201". Enough for curl, nothing more.
class Sink {
 public:
  // `hash`: the sink also computes the body's SHA-256 (OpenSSL's, as the daemon), in its one
  // thread — the least any content-addressed store pays, to read our figure against.
  Sink(std::string file, bool hash) : file_(std::move(file)), hash_(hash) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~Sink() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  void Serve() {
    std::vector<char> buffer(256 * 1024);
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string head;
      size_t body_start = std::string::npos;
      while (body_start == std::string::npos) {
        const ssize_t n = ::read(c, buffer.data(), buffer.size());
        if (n <= 0) break;
        head.append(buffer.data(), static_cast<size_t>(n));
        body_start = head.find("\r\n\r\n");
      }
      if (body_start == std::string::npos) {
        ::close(c);
        continue;
      }
      const size_t at = head.find("Content-Length: ");
      long long left = at == std::string::npos ? 0 : std::atoll(head.c_str() + at + 16);
      std::FILE* out = std::fopen(file_.c_str(), "wb");
      EVP_MD_CTX* sha = EVP_MD_CTX_new();
      EVP_DigestInit_ex(sha, EVP_sha256(), nullptr);
      const std::string already = head.substr(body_start + 4);
      std::fwrite(already.data(), 1, already.size(), out);
      if (hash_) EVP_DigestUpdate(sha, already.data(), already.size());
      left -= static_cast<long long>(already.size());
      while (left > 0) {
        const ssize_t n = ::read(c, buffer.data(), buffer.size());
        if (n <= 0) break;
        std::fwrite(buffer.data(), 1, static_cast<size_t>(n), out);
        if (hash_) EVP_DigestUpdate(sha, buffer.data(), static_cast<size_t>(n));
        left -= n;
      }
      std::fclose(out);
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned digest_size = 0;
      EVP_DigestFinal_ex(sha, digest, &digest_size);
      EVP_MD_CTX_free(sha);
      const char answer[] = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)!::write(c, answer, sizeof answer - 1);
      ::close(c);
    }
  }

  std::string file_;
  bool hash_ = false;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// curl's total time for one upload of `apk` to `url`, in seconds; nullopt when it failed.
std::optional<double> Upload(const std::string& url, const std::string& apk, std::string* body) {
  auto out = bench::Capture({"/usr/bin/curl", "-sS", "-X", "POST", "--data-binary", "@" + apk, "-H",
                             "Content-Type: application/vnd.android.package-archive", "-H",
                             "Expect:", "-o", "/dev/stdout", "-w", "\n%{time_total} %{http_code}",
                             url});
  if (!out) return std::nullopt;
  const size_t nl = out->rfind('\n');
  if (body) *body = out->substr(0, nl);
  const std::string tail = out->substr(nl + 1);
  const int code = std::atoi(tail.c_str() + tail.find(' ') + 1);
  if (code != 200 && code != 201) return std::nullopt;
  return std::atof(tail.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bench::ApkBenchFlags flags;
  flags.reps = 5;
  if (!bench::ParseApkBenchFlags(argc, argv, "build_upload_bench", flags)) return 2;
  const int reps = flags.reps;
  if (::access("/usr/bin/curl", X_OK) != 0) {
    std::printf("build_upload_bench: skipped: /usr/bin/curl is not installed\n");
    return 0;
  }
  std::string why;
  const auto made = bench::MakeTempApk("build_upload_bench", kManifest, flags.mb, &why);
  if (!made) {
    std::printf("build_upload_bench: %s\n", why.c_str());
    return 1;
  }
  const std::string& apk = made->apk;
  const std::string& dir = made->dir;
  const double file_mb = made->file_mb;

  const int port = bench::FreeLoopbackPort();
  const pid_t daemon = bench::Spawn({kDroidlab, "serve", "--listen", "127.0.0.1:" + std::to_string(port),
                                     "--db", dir + "/bench.db", "--adb-server", "tcp:127.0.0.1:1",
                                     "--log-level", "warn"},
                                    -1);
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    up = bench::Capture({"/usr/bin/curl", "-sf", base + "/api/v1/health"}).has_value();
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (daemon < 0 || !up) {
    std::printf("build_upload_bench: droidlab serve did not answer on %s\n", base.c_str());
    if (daemon > 0) ::kill(daemon, SIGKILL);
    return 1;
  }
  Sink sink(dir + "/sink.apk", false);
  const std::string sink_url = "http://127.0.0.1:" + std::to_string(sink.port()) + "/sink";
  Sink hashing_sink(dir + "/hashing-sink.apk", true);
  const std::string hashing_url = "http://127.0.0.1:" + std::to_string(hashing_sink.port()) + "/sink";

  const long rss_before = PeakRssKb(daemon);
  std::vector<double> ours_mbps, sink_mbps, hashing_mbps;
  int failures = 0;
  for (int rep = 0; rep < reps; ++rep) {
    std::string body;
    if (auto t = Upload(base + "/api/v1/builds", apk, &body)) {
      ours_mbps.push_back(file_mb / *t);
      const size_t id_at = body.find("\"id\":");
      if (id_at != std::string::npos) {
        bench::Capture({"/usr/bin/curl", "-sf", "-X", "DELETE",
                        base + "/api/v1/builds/" + std::to_string(std::atol(body.c_str() + id_at + 5))});
      }
    } else {
      ++failures;
    }
    if (auto t = Upload(sink_url, apk, nullptr)) {
      sink_mbps.push_back(file_mb / *t);
    } else {
      ++failures;
    }
    if (auto t = Upload(hashing_url, apk, nullptr)) {
      hashing_mbps.push_back(file_mb / *t);
    } else {
      ++failures;
    }
  }
  const long rss_after = PeakRssKb(daemon);
  ::kill(daemon, SIGTERM);
  bench::Wait(daemon);
  std::system(("rm -rf '" + dir + "'").c_str());

  if (ours_mbps.empty() || sink_mbps.empty() || hashing_mbps.empty()) {
    std::printf("build_upload_bench: uploads failed (%d)\n", failures);
    return 1;
  }
  const double ours_best = *std::max_element(ours_mbps.begin(), ours_mbps.end());
  const double sink_best = *std::max_element(sink_mbps.begin(), sink_mbps.end());
  std::printf("build_upload_bench: %.1f MB APK, %d repetition(s), curl to each\n", file_mb, reps);
  std::printf("  POST /api/v1/builds   best %7.1f MB/s  median %7.1f MB/s\n", ours_best,
              bench::Median(ours_mbps));
  std::printf("  minimal file sink     best %7.1f MB/s  median %7.1f MB/s\n", sink_best,
              bench::Median(sink_mbps));
  std::printf("  ratio ours/sink       best %.2f  median %.2f   (goal >= 0.8)\n", ours_best / sink_best,
              bench::Median(ours_mbps) / bench::Median(sink_mbps));
  const double hashing_best = *std::max_element(hashing_mbps.begin(), hashing_mbps.end());
  std::printf("  sink + SHA-256        best %7.1f MB/s  median %7.1f MB/s\n", hashing_best,
              bench::Median(hashing_mbps));
  std::printf("  ratio ours/(sink+SHA) best %.2f  median %.2f\n", ours_best / hashing_best,
              bench::Median(ours_mbps) / bench::Median(hashing_mbps));
  std::printf("  daemon peak RSS       %ld KiB before, %ld KiB after (file %.0f KiB)\n", rss_before,
              rss_after, file_mb * 1e6 / 1024);
  return failures == 0 ? 0 : 1;
}
