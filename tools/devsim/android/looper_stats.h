// LooperStats as system_server keeps it (frameworks/base core/java/com/android/internal/os/
// LooperStats.java, services/core/java/com/android/server/LooperStatsService.java): one entry
// per (work source uid, thread, handler class, message, interactive), counts exact, latency
// and CPU sampled 1 in sampling_interval, at most `entries_cap` entries and then an OVERFLOW
// row. Nothing is recorded while the device charges (CachedDeviceState.isCharging), unless
// ignore_battery_status is set on a release that honours it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>

namespace droidlab::devsim {

// First SDK whose LooperStatsService reads ignore_battery_status from the setting. Android 11
// (frameworks/base of that era) has only enabled, sampling_interval and track_screen_state; the
// Android 14 trees read here (an OEM tree and AOSP with LooperStats.DEFAULT_IGNORE_BATTERY_STATUS)
// have the fourth key. Android 12 and 13 were not confirmed from source: see the README.
inline constexpr int kLooperIgnoreBatteryStatusSinceSdk = 34;
// LooperStatsService exists from Android 10 (SDK 29); Android 9's dumpsys cannot find it.
inline constexpr int kLooperStatsSinceSdk = 29;

struct LooperMessageKind {
  int work_source_uid = -1;  // Message.UID_NONE
  std::string thread_name;
  std::string handler_class;
  std::string message_name;  // Handler.getMessageName: "0x21" or the callback's class name
};

class LooperStatsModel {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  LooperStatsModel(int sdk, int entries_cap, TimePoint now);

  // initFromSettings: parses the `looper_stats` global setting (null = all defaults) as
  // KeyValueListParser(',') does and applies each key, resetting where the service does.
  void ApplySetting(const std::optional<std::string>& value, TimePoint now);
  // `cmd looper_stats enable|disable|reset|sampling_interval N`.
  void SetEnabled(bool enabled, TimePoint now);
  void Reset(TimePoint now);
  void SetSamplingInterval(int interval);

  bool enabled() const { return enabled_; }
  int sampling_interval() const { return sampling_interval_; }
  bool ignore_battery_status() const { return ignore_battery_status_; }
  // LooperStats.deviceStateAllowsCollection, with the observer installed.
  bool Collecting(bool charging) const;

  // `count` messages of one kind were dispatched (with the observer installed and collection
  // allowed: callers check Collecting). Latency and CPU are drawn around the given means.
  void Dispatch(const LooperMessageKind& kind, long count, double mean_latency_us,
                bool screen_interactive, std::mt19937_64& rng);
  // Time passes: the battery stopwatch (On battery time) runs while not charging.
  void AdvanceTime(std::chrono::milliseconds elapsed, bool charging);

  // The `dumpsys looper_stats` text. map_uid is AppIdToPackageMap.mapUid.
  std::string Dump(const std::function<std::string(int)>& map_uid) const;
  std::size_t entry_count() const { return entries_.size(); }

 private:
  struct Counters {
    long message_count = 0;
    long recorded_message_count = 0;
    long exception_count = 0;
    long total_latency_micros = 0;
    long max_latency_micros = 0;
    long cpu_micros = 0;
    long max_cpu_micros = 0;
    long recorded_delay_message_count = 0;
    long delay_millis = 0;
    long max_delay_millis = 0;
  };
  // Sorted as LooperStatsService.dump sorts: uid (as int), thread, handler class, message.
  using Key = std::tuple<int, std::string, std::string, std::string, bool>;

  void AddTo(Counters& counters, long count, double mean_latency_us, bool first_sampled,
             std::mt19937_64& rng);

  int sdk_;
  std::size_t entries_cap_;
  bool enabled_ = false;
  int sampling_interval_ = 1000;  // DEFAULT_SAMPLING_INTERVAL
  bool track_screen_interactive_ = false;
  bool ignore_battery_status_ = false;
  TimePoint start_time_;
  std::chrono::milliseconds battery_time_{0};
  std::map<Key, Counters> entries_;
  Counters overflow_;
  Counters hash_collision_;
};

}  // namespace droidlab::devsim
