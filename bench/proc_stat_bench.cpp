// ParseProcPidStat against a minimal reference parser, measured in the same run.
//
// Both parse the same ~1,000,000 generated /proc/<pid>/stat lines (52 fields, as a 3.5+ kernel
// prints them; fixed seed; comm varied with spaces, ')' and 15-char truncation). The reference
// finds the last ')' with memrchr and from_chars only utime, stime, num_threads, starttime and
// rss: the floor for any parser that is correct about comm. Ours parses and checks every field.
// Best of 5 runs each. `--quick` uses 50,000 lines (CI smoke run).
#include <algorithm>
#include <chrono>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/proc_stat.h"

namespace {

using droidlab::parsers::ParseProcPidStat;

constexpr const char* kComms[] = {
    "com.google.android.gm", "zygote64", "Binder:1234_1", "kworker/0:1H", "surfaceflinger",
    "RenderThread", "ndroid.systemui", "system_server", "a) b", "my app (beta)", "()",
    "HwBinder:812_2", "com.android.chrome:sandboxed_process0", "init", "ksoftirqd/3",
    "Jit thread pool", "FinalizerDaemon", "kworker/u16:2", "ogle.android.gm", "x) S 1 2 3",
};

std::vector<std::string> GenerateLines(size_t count) {
  std::mt19937_64 rng(20240611);
  auto r = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  std::vector<std::string> lines;
  lines.reserve(count);
  const char states[] = {'S', 'S', 'S', 'R', 'D', 'Z', 'T'};
  char buf[1024];
  for (size_t i = 0; i < count; ++i) {
    const uint64_t pid = r(1, 32767);
    const char* comm = kComms[r(0, std::size(kComms) - 1)];
    const int nice = static_cast<int>(r(0, 39)) - 20;
    const int len = std::snprintf(
        buf, sizeof buf,
        "%llu (%s) %c %llu %llu 0 0 -1 %llu %llu 0 %llu 0 %llu %llu 0 0 %d %d %llu 0 %llu %llu "
        "%llu 18446744073709551615 %llu %llu %llu 0 0 0 4612 1 1073775864 0 0 0 17 %llu 0 0 0 0 "
        "0 %llu %llu %llu %llu %llu %llu %llu 0",
        static_cast<unsigned long long>(pid), comm, states[r(0, std::size(states) - 1)],
        static_cast<unsigned long long>(r(1, 2000)), static_cast<unsigned long long>(r(1, 2000)),
        static_cast<unsigned long long>(r(0, 1) ? 1077952832 : 4194560),
        static_cast<unsigned long long>(r(0, 500000)), static_cast<unsigned long long>(r(0, 9000)),
        static_cast<unsigned long long>(r(0, 200000)), static_cast<unsigned long long>(r(0, 90000)),
        nice + 20, nice, static_cast<unsigned long long>(r(1, 180)),
        static_cast<unsigned long long>(r(100, 90000000)),
        static_cast<unsigned long long>(r(1000000, 20000000000ULL)),
        static_cast<unsigned long long>(r(0, 400000)),
        static_cast<unsigned long long>(r(0x5500000000ULL, 0x5600000000ULL)),
        static_cast<unsigned long long>(r(0x5600000000ULL, 0x5700000000ULL)),
        static_cast<unsigned long long>(r(0x7ff0000000ULL, 0x7fff000000ULL)),
        static_cast<unsigned long long>(r(0, 7)),
        static_cast<unsigned long long>(r(0x5700000000ULL, 0x5800000000ULL)),
        static_cast<unsigned long long>(r(0x5800000000ULL, 0x5900000000ULL)),
        static_cast<unsigned long long>(r(0x5900000000ULL, 0x5a00000000ULL)),
        static_cast<unsigned long long>(r(0x7ff0000000ULL, 0x7fffff0000ULL)),
        static_cast<unsigned long long>(r(0x7ff0000000ULL, 0x7fffff0000ULL)),
        static_cast<unsigned long long>(r(0x7ff0000000ULL, 0x7fffff0000ULL)),
        static_cast<unsigned long long>(r(0x7ff0000000ULL, 0x7fffff0000ULL)));
    lines.emplace_back(buf, static_cast<size_t>(len));
    lines.back().push_back('\n');
  }
  return lines;
}

// The reference: the least a correct parser must do.
struct MinimalStat {
  uint64_t utime = 0, stime = 0, starttime = 0;
  int64_t num_threads = 0, rss = 0;
};

bool MinimalParse(std::string_view line, MinimalStat& out) {
  const char* begin = line.data();
  const char* end = begin + line.size();
  const auto* close = static_cast<const char*>(memrchr(begin, ')', line.size()));
  if (close == nullptr) return false;
  const char* p = close + 2;  // at field 3 (state)
  int field = 3;
  auto next = [&]() {
    while (p < end && *p != ' ') ++p;
    ++p;
    ++field;
  };
  while (field < 14 && p < end) next();
  if (std::from_chars(p, end, out.utime).ec != std::errc()) return false;
  next();
  if (std::from_chars(p, end, out.stime).ec != std::errc()) return false;
  while (field < 20 && p < end) next();
  if (std::from_chars(p, end, out.num_threads).ec != std::errc()) return false;
  while (field < 22 && p < end) next();
  if (std::from_chars(p, end, out.starttime).ec != std::errc()) return false;
  while (field < 24 && p < end) next();
  return std::from_chars(p, end, out.rss).ec == std::errc();
}

template <class Fn>
double BestLinesPerSecond(const std::vector<std::string_view>& lines, Fn&& parse_all) {
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    parse_all(lines);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    best = std::max(best, static_cast<double>(lines.size()) / dt.count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string_view(argv[1]) == "--quick";
  const size_t count = quick ? 50'000 : 1'000'000;
  const std::vector<std::string> storage = GenerateLines(count);
  const std::vector<std::string_view> lines(storage.begin(), storage.end());

  uint64_t ref_sum = 0;
  uint64_t our_sum = 0;
  uint64_t failures = 0;
  const double ref = BestLinesPerSecond(lines, [&](const std::vector<std::string_view>& ls) {
    MinimalStat st;
    for (std::string_view l : ls) {
      if (!MinimalParse(l, st)) ++failures;
      ref_sum += st.utime + st.stime + st.starttime + static_cast<uint64_t>(st.num_threads + st.rss);
    }
  });
  const double ours = BestLinesPerSecond(lines, [&](const std::vector<std::string_view>& ls) {
    for (std::string_view l : ls) {
      auto st = ParseProcPidStat(l);
      if (!st.ok()) {
        ++failures;
        continue;
      }
      our_sum += st->utime + st->stime + st->starttime +
                 static_cast<uint64_t>(st->num_threads + st->rss);
    }
  });

  std::printf("proc_stat_bench: %zu lines (52 fields), best of 5\n", count);
  std::printf("reference (memrchr + from_chars of 5 fields): %.0f lines/s\n", ref);
  std::printf("ParseProcPidStat (all 52 fields):             %.0f lines/s\n", ours);
  std::printf("ratio ours/reference: %.2f\n", ours / ref);
  if (failures != 0 || ref_sum != our_sum) {
    std::printf("MISMATCH: %llu failures, checksums %llu vs %llu\n",
                static_cast<unsigned long long>(failures),
                static_cast<unsigned long long>(ref_sum),
                static_cast<unsigned long long>(our_sum));
    return 1;
  }
  return 0;
}
