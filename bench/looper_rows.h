// What the store benchmarks ingest: looper-stats rows with a dump's realistic mix of uids,
// threads, handlers and messages (system_server's, as `dumpsys looper_stats` prints them), made
// from a fixed seed so every benchmark and every run writes the same rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "store/records.h"

namespace droidlab::bench {

inline std::vector<store::LooperStatsRow> GenerateRows(size_t count, int64_t run_id) {
  std::mt19937_64 rng(0x5703e);
  const std::vector<std::string> uids = {"-1",
                                         "1000",
                                         "com.google.android.gms/u0a146",
                                         "com.android.systemui/u0a139",
                                         "com.example.app/u0a201",
                                         "shared:android.uid.system/1000"};
  const std::vector<std::string> threads = {
      "ActivityManager",     "android.ui",        "android.fg",   "android.display",
      "PowerManagerService", "WifiHandlerThread", "binder:1673_3"};
  const std::vector<std::string> handlers = {
      "android.os.Handler", "com.android.server.am.ActivityManagerService$MainHandler",
      "android.view.Choreographer$FrameHandler", "com.android.server.wm.WindowManagerService$H",
      "com.android.wifi.x.com.android.internal.util.StateMachine$SmHandler"};
  const std::vector<std::string> messages = {
      "0x2", "0x20053", "android.view.Choreographer$FrameDisplayEventReceiver",
      "com.android.server.power.PowerManagerService$$ExternalSyntheticLambda3"};
  std::vector<store::LooperStatsRow> rows(count);
  for (auto& row : rows) {
    const auto& uid = uids[rng() % uids.size()];
    row.run_id = run_id;
    row.work_source_uid = uid;
    if (auto slash = uid.find('/'); slash != std::string::npos) {
      row.package = uid.substr(0, slash);
      row.uid = 10000 + static_cast<int64_t>(rng() % 300);
    } else if (uid != "-1") {
      row.uid = 1000;
    }
    row.is_app = row.package == std::string("com.example.app");
    row.thread_name = threads[rng() % threads.size()];
    row.handler_class = handlers[rng() % handlers.size()];
    row.message_name = messages[rng() % messages.size()];
    row.is_interactive = rng() % 2 == 0;
    const int64_t count_value = static_cast<int64_t>(rng() % 100000);
    row.message_count = count_value;
    row.recorded_message_count = count_value / 100;
    row.total_latency_micros = static_cast<int64_t>(rng() % 10000000);
    row.max_latency_micros = static_cast<int64_t>(rng() % 100000);
    row.total_cpu_micros = static_cast<int64_t>(rng() % 10000000);
    row.max_cpu_micros = static_cast<int64_t>(rng() % 100000);
    row.recorded_delay_message_count = count_value / 100;
    row.total_delay_millis = static_cast<int64_t>(rng() % 100000);
    row.max_delay_millis = static_cast<int64_t>(rng() % 1000);
    row.exception_count = 0;
  }
  return rows;
}

}  // namespace droidlab::bench
