// ParseLooperStats against a minimal reference parser, over the same generated dump, same run.
//
// The dump looks like LooperStatsService.dump output on a busy device: "Start time:", "On battery
// time (ms):", the 15-column header, then rows sorted by work_source_uid with system_server thread
// names, handler classes, hex `what` codes and lambda callback names, and skewed counts. The
// reference splits on memchr(',') / memchr('\n') and from_chars the numbers into a plain struct,
// with no header handling, no validation of field counts beyond what it needs, no uid split: the
// floor for any parser of this text. Ours does all of that; the ratio says what it costs.
//
//   looper_stats_bench [--quick]     (--quick: 10,000 rows instead of 100,000, for CI smoke runs)
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/looper_stats.h"

namespace {

using droidlab::parsers::LooperStatsDump;
using droidlab::parsers::ParseLooperStats;
using droidlab::parsers::Result;

constexpr const char* kHeader =
    "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
    "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
    "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
    "exception_count";

std::string GenerateDump(size_t rows) {
  std::mt19937_64 rng(0x100b5);
  const std::vector<std::string> threads = {
      "ActivityManager", "PowerManagerService",  "android.anim",      "android.bg",
      "android.display", "android.fg",           "android.io",        "android.ui",
      "OomAdjuster",     "batterystats-handler", "WifiHandlerThread", "binder:1673_3",
      "NetworkStats",    "AlarmManager",         "PackageManager"};
  const std::vector<std::string> handlers = {
      "android.os.Handler",
      "com.android.server.am.ActivityManagerService$MainHandler",
      "com.android.server.am.BroadcastQueue$BroadcastHandler",
      "android.view.Choreographer$FrameHandler",
      "com.android.server.wm.WindowManagerService$H",
      "com.android.server.display.DisplayPowerController$DisplayControllerHandler",
      "com.android.server.job.JobSchedulerService$JobHandler",
      "com.android.wifi.x.com.android.internal.util.StateMachine$SmHandler",
      "com.android.server.AlarmManagerService$AlarmHandler"};
  const std::vector<std::string> callbacks = {
      "android.view.Choreographer$FrameDisplayEventReceiver",
      "com.android.server.power.PowerManagerService$$ExternalSyntheticLambda3",
      "android.app.LoadedApk$ReceiverDispatcher$Args$$ExternalSyntheticLambda0",
      "com.android.server.display.DisplayPowerState$4",
      "com.android.server.wm.-$$Lambda$WindowManagerService$fE-GqTiC3fJ3xRwrFVwVbbTVWvs"};
  const std::vector<std::string> packages = {
      "com.google.android.gms", "com.android.systemui", "com.android.chrome",
      "com.tencent.mm",         "com.example.lab",      "com.google.android.apps.maps",
      "com.android.phone",      "com.whatsapp"};

  std::string out = "Start time: 2024-03-18 09:41:07\nOn battery time (ms): 612904\n";
  out += kHeader;
  out += '\n';
  out.reserve(rows * 150);
  char buf[512];
  for (size_t i = 0; i < rows; ++i) {
    std::string wsu;
    const uint64_t kind = rng() % 10;
    if (kind < 4) {
      wsu = "-1";
    } else if (kind < 5) {
      wsu = "shared:android.uid.system/1000";
    } else if (kind < 9) {
      wsu = packages[rng() % packages.size()] + "/u0a" + std::to_string(100 + rng() % 300);
    } else {
      wsu = "u0a" + std::to_string(100 + rng() % 300);
    }
    const std::string& thread = threads[rng() % threads.size()];
    const std::string& handler = handlers[rng() % handlers.size()];
    std::string message;
    if (rng() % 3 == 0) {
      message = callbacks[rng() % callbacks.size()];
    } else {
      std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(rng() % 0x30000));
      message = buf;
    }
    // Skewed counts: most entries see a handful of messages, a few see hundreds of thousands.
    const uint64_t count = 1 + (rng() % 1000) * (rng() % 1000) / (1 + rng() % 50);
    const uint64_t recorded = 1 + count / 1000;
    const uint64_t max_latency = 50 + rng() % 40000;
    const uint64_t total_latency = max_latency * recorded;
    const uint64_t max_cpu = max_latency * 3 / 4;
    const uint64_t delay_count = recorded - rng() % (recorded + 1) / 2;
    std::snprintf(
        buf, sizeof(buf), ",%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
        rng() % 4 == 0 ? "true" : "false", static_cast<unsigned long long>(count),
        static_cast<unsigned long long>(recorded), static_cast<unsigned long long>(total_latency),
        static_cast<unsigned long long>(max_latency),
        static_cast<unsigned long long>(max_cpu * recorded),
        static_cast<unsigned long long>(max_cpu), static_cast<unsigned long long>(delay_count),
        static_cast<unsigned long long>(rng() % 200), static_cast<unsigned long long>(rng() % 40),
        static_cast<unsigned long long>(rng() % 500 == 0 ? 1 : 0));
    out += wsu;
    out += ',';
    out += thread;
    out += ',';
    out += handler;
    out += ',';
    out += message;
    out += buf;
  }
  return out;
}

struct ReferenceRow {
  std::string_view work_source_uid, thread_name, handler_class, message_name;
  bool is_interactive;
  int64_t numbers[10];
};

// The floor: find the header line by skipping three lines, then per row memchr the fields and
// from_chars the ten numbers.
size_t ReferenceParse(std::string_view text, std::vector<ReferenceRow>& rows) {
  rows.clear();
  const char* p = text.data();
  const char* const end = p + text.size();
  for (int skip = 0; skip < 3; ++skip) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))) + 1;
  }
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (nl == nullptr) nl = end;
    ReferenceRow row;
    std::string_view* text_fields[4] = {&row.work_source_uid, &row.thread_name, &row.handler_class,
                                        &row.message_name};
    const char* f = p;
    for (std::string_view* field : text_fields) {
      const char* c = static_cast<const char*>(std::memchr(f, ',', static_cast<size_t>(nl - f)));
      *field = std::string_view(f, static_cast<size_t>(c - f));
      f = c + 1;
    }
    row.is_interactive = *f == 't';
    f = static_cast<const char*>(std::memchr(f, ',', static_cast<size_t>(nl - f))) + 1;
    for (int64_t& number : row.numbers) {
      auto [ptr, ec] = std::from_chars(f, nl, number);
      (void)ec;
      f = ptr + 1;
    }
    rows.push_back(row);
    p = nl + 1;
  }
  return rows.size();
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string_view(argv[1]) == "--quick";
  const size_t rows = quick ? 10000 : 100000;
  const std::string text = GenerateDump(rows);
  constexpr int kRuns = 5;

  // Runs alternate, reference then ours, so that load from other processes on a shared machine
  // hits both alike; the best of each is kept.
  double reference_best = 1e9;
  double ours_best = 1e9;
  size_t reference_count = 0;
  size_t ours_count = 0;
  uint64_t checksum = 0;
  for (int run = 0; run < kRuns; ++run) {
    auto start = std::chrono::steady_clock::now();
    {
      // A fresh result per run, as ParseLooperStats returns one: both pay for their memory.
      std::vector<ReferenceRow> reference_rows;
      reference_rows.reserve(rows);
      reference_count = ReferenceParse(text, reference_rows);
      checksum += static_cast<uint64_t>(reference_rows.back().numbers[0]);
    }
    reference_best = std::min(reference_best, Seconds(std::chrono::steady_clock::now() - start));

    start = std::chrono::steady_clock::now();
    {
      Result<LooperStatsDump> dump = ParseLooperStats(text);
      if (!dump.ok() || dump->skipped_lines != 0) {
        std::fprintf(stderr, "looper_stats_bench: parse failed\n");
        return 1;
      }
      ours_count = dump->entries.size();
      checksum += static_cast<uint64_t>(dump->entries.back().message_count.value_or(0));
    }
    ours_best = std::min(ours_best, Seconds(std::chrono::steady_clock::now() - start));
  }
  if (ours_count != rows || reference_count != rows) {
    std::fprintf(stderr, "looper_stats_bench: row counts differ: ours %zu reference %zu want %zu\n",
                 ours_count, reference_count, rows);
    return 1;
  }

  const double reference_rate = static_cast<double>(rows) / reference_best;
  const double ours_rate = static_cast<double>(rows) / ours_best;
  std::printf("looper_stats: %zu rows, %.1f MB, best of %d runs (checksum %llu)\n", rows,
              static_cast<double>(text.size()) / 1e6, kRuns,
              static_cast<unsigned long long>(checksum));
  std::printf("reference (memchr + from_chars): %.2f M rows/s\n", reference_rate / 1e6);
  std::printf("ours (ParseLooperStats):         %.2f M rows/s\n", ours_rate / 1e6);
  std::printf("ratio ours/reference: %.2f\n", ours_rate / reference_rate);
  return 0;
}
