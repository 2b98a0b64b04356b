#include "tools/devsim/android/looper_stats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <vector>

namespace droidlab::devsim {
namespace {

// java.lang.String.trim: drops leading and trailing characters <= ' '.
std::string JavaTrim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && static_cast<unsigned char>(text[begin]) <= ' ') ++begin;
  while (end > begin && static_cast<unsigned char>(text[end - 1]) <= ' ') --end;
  return std::string(text.substr(begin, end - begin));
}

// KeyValueListParser.setString with ',' pairs and '=' values: pairs before a malformed one
// are kept (the service logs "Bad looper_stats settings" and reads what it has).
std::map<std::string, std::string> ParseKeyValueList(const std::string& text) {
  std::map<std::string, std::string> values;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    const std::string_view pair(text.data() + at, comma - at);
    // TextUtils.SimpleStringSplitter skips a trailing empty piece.
    if (!(pair.empty() && comma == text.size())) {
      const std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos) break;  // IllegalArgumentException
      const std::size_t second = pair.find('=', equals + 1);
      const std::string_view value =
          pair.substr(equals + 1, second == std::string_view::npos ? pair.npos
                                                                    : second - equals - 1);
      values[JavaTrim(pair.substr(0, equals))] = JavaTrim(value);
    }
    at = comma + 1;
  }
  return values;
}

// Boolean.parseBoolean: "true" in any case, everything else false.
bool JavaParseBoolean(const std::string& text) {
  if (text.size() != 4) return false;
  std::string lower = text;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "true";
}

std::optional<int> JavaParseInt(const std::string& text) {
  int value = 0;
  const char* begin = text.data();
  if (!text.empty() && text[0] == '+') ++begin;
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

LooperStatsModel::LooperStatsModel(int sdk, int entries_cap, TimePoint now)
    : sdk_(sdk), entries_cap_(static_cast<std::size_t>(entries_cap)), start_time_(now) {
  // PHASE_SYSTEM_SERVICES_READY: initFromSettings with whatever the setting holds (at boot:
  // nothing, so DEFAULT_ENABLED = true installs the observer).
  ApplySetting(std::nullopt, now);
}

void LooperStatsModel::ApplySetting(const std::optional<std::string>& value, TimePoint now) {
  const auto values = value ? ParseKeyValueList(*value) : std::map<std::string, std::string>{};
  auto get_bool = [&](const char* key, bool def) {
    const auto it = values.find(key);
    return it == values.end() ? def : JavaParseBoolean(it->second);
  };
  int interval = 1000;
  if (const auto it = values.find("sampling_interval"); it != values.end()) {
    interval = JavaParseInt(it->second).value_or(1000);
  }
  SetSamplingInterval(interval);
  const bool track = get_bool("track_screen_state", false);
  if (track != track_screen_interactive_) {
    track_screen_interactive_ = track;
    Reset(now);
  }
  if (sdk_ >= kLooperIgnoreBatteryStatusSinceSdk) {
    const bool ignore = get_bool("ignore_battery_status", false);
    if (ignore != ignore_battery_status_) {
      ignore_battery_status_ = ignore;
      Reset(now);
    }
  }
  SetEnabled(get_bool("enabled", true), now);
}

void LooperStatsModel::SetEnabled(bool enabled, TimePoint now) {
  if (enabled_ == enabled) return;
  enabled_ = enabled;
  Reset(now);
}

void LooperStatsModel::Reset(TimePoint now) {
  entries_.clear();
  overflow_ = {};
  hash_collision_ = {};
  start_time_ = now;
  battery_time_ = std::chrono::milliseconds(0);
}

void LooperStatsModel::SetSamplingInterval(int interval) {
  // "Ignored invalid sampling interval (value must be positive)"
  if (interval > 0) sampling_interval_ = interval;
}

bool LooperStatsModel::Collecting(bool charging) const {
  if (!enabled_) return false;
  if (ignore_battery_status_) return true;
  return !charging;
}

void LooperStatsModel::AddTo(Counters& c, long count, double mean_latency_us, bool first_sampled,
                             std::mt19937_64& rng) {
  c.message_count += count;
  // shouldCollectDetailedData: 1 in sampling_interval, at random.
  long sampled = count;
  if (sampling_interval_ > 1) {
    const long rest = first_sampled ? count - 1 : count;
    std::binomial_distribution<long> pick(rest, 1.0 / sampling_interval_);
    sampled = pick(rng) + (first_sampled ? 1 : 0);
  }
  std::lognormal_distribution<double> spread(0.0, 0.5);
  for (long i = 0; i < sampled; ++i) {
    const long latency = std::max(1L, std::lround(mean_latency_us * spread(rng)));
    const long cpu = std::max(1L, std::lround(latency * 0.8));
    const long delay = std::lround(std::max(0.0, spread(rng) - 1.0) * 2);
    c.recorded_message_count += 1;
    c.total_latency_micros += latency;
    c.max_latency_micros = std::max(c.max_latency_micros, latency);
    c.cpu_micros += cpu;
    c.max_cpu_micros = std::max(c.max_cpu_micros, cpu);
    // Messages with a dispatch time (all but a few posted at the front of the queue).
    c.recorded_delay_message_count += 1;
    c.delay_millis += delay;
    c.max_delay_millis = std::max(c.max_delay_millis, delay);
  }
}

void LooperStatsModel::Dispatch(const LooperMessageKind& kind, long count, double mean_latency_us,
                                bool screen_interactive, std::mt19937_64& rng) {
  if (count <= 0) return;
  const bool interactive = track_screen_interactive_ && screen_interactive;
  Key key{kind.work_source_uid, kind.thread_name, kind.handler_class, kind.message_name,
          interactive};
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    AddTo(it->second, count, mean_latency_us, false, rng);
    return;
  }
  // findEntry(msg, allowCreateNew = sampled): an unsampled message of a kind with no entry yet
  // is not counted anywhere, so a new kind's count starts at its first sampled message.
  if (sampling_interval_ > 1) {
    std::geometric_distribution<long> unsampled_before(1.0 / sampling_interval_);
    count -= unsampled_before(rng);
    if (count <= 0) return;
  }
  // At the cap, totals of new kinds go to OVERFLOW.
  Counters& target = entries_.size() >= entries_cap_
                         ? overflow_
                         : entries_.emplace(std::move(key), Counters{}).first->second;
  AddTo(target, count, mean_latency_us, true, rng);
}

void LooperStatsModel::AdvanceTime(std::chrono::milliseconds elapsed, bool charging) {
  if (!charging) battery_time_ += elapsed;
}

std::string LooperStatsModel::Dump(const std::function<std::string(int)>& map_uid) const {
  std::string out = "Start time: ";
  {
    // DateFormat.format("yyyy-MM-dd HH:mm:ss", …) in the device's zone (UTC here).
    const std::time_t seconds = std::chrono::system_clock::to_time_t(start_time_);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    out += stamp;
  }
  out += "\nOn battery time (ms): " + std::to_string(battery_time_.count()) + "\n";
  out +=
      "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
      "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
      "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
      "exception_count\n";
  struct Row {
    Key key;
    const Counters* counters;
  };
  std::vector<Row> rows;
  for (const auto& [key, counters] : entries_) rows.push_back({key, &counters});
  // getEntries adds the special entries only when they have data; they sort by their uid
  // (-1) and empty thread and handler names, so they come first.
  auto special = [&](const Counters& counters, const char* name) {
    if (counters.message_count > 0 || counters.exception_count > 0) {
      rows.push_back({Key{-1, "", "", name, false}, &counters});
    }
  };
  special(overflow_, "OVERFLOW");
  special(hash_collision_, "HASH_COLLISION");
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(std::get<0>(a.key), std::get<1>(a.key), std::get<2>(a.key),
                    std::get<3>(a.key)) < std::tie(std::get<0>(b.key), std::get<1>(b.key),
                                                   std::get<2>(b.key), std::get<3>(b.key));
  });
  for (const Row& row : rows) {
    const Counters& c = *row.counters;
    out += map_uid(std::get<0>(row.key)) + "," + std::get<1>(row.key) + "," +
           std::get<2>(row.key) + "," + std::get<3>(row.key) + "," +
           (std::get<4>(row.key) ? "true" : "false");
    for (const long value :
         {c.message_count, c.recorded_message_count, c.total_latency_micros, c.max_latency_micros,
          c.cpu_micros, c.max_cpu_micros, c.recorded_delay_message_count, c.delay_millis,
          c.max_delay_millis, c.exception_count}) {
      out += "," + std::to_string(value);
    }
    out += "\n";
  }
  return out;
}

}  // namespace droidlab::devsim
