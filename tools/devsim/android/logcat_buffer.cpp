#include "tools/devsim/android/logcat_buffer.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace droidlab::devsim {
namespace {

int PriorityRank(char priority) {
  constexpr std::string_view kOrder = "VDIWEFS";
  const std::size_t at = kOrder.find(priority);
  return at == std::string_view::npos ? 0 : static_cast<int>(at);
}

std::string_view BufferName(LogBufferId id) {
  switch (id) {
    case LogBufferId::kMain:
      return "main";
    case LogBufferId::kSystem:
      return "system";
    case LogBufferId::kCrash:
      return "crash";
    case LogBufferId::kEvents:
      return "events";
  }
  return "main";
}

}  // namespace

std::string FormatLogLine(const LogEntry& entry, LogFormat format) {
  using namespace std::chrono;
  if (entry.raw) return entry.message + "\n";
  const auto since_epoch = entry.time.time_since_epoch();
  const std::time_t seconds = duration_cast<std::chrono::seconds>(since_epoch).count();
  const long millis = static_cast<long>(duration_cast<milliseconds>(since_epoch).count() % 1000);
  char stamp[40];
  if (format == LogFormat::kEpoch) {
    std::snprintf(stamp, sizeof stamp, "%19lld", static_cast<long long>(seconds));
  } else {
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    std::strftime(stamp, sizeof stamp, "%m-%d %H:%M:%S", &tm);
  }
  // logprint.cpp: timeBuf ".%03ld", then "%s %s%5d %5d %c %-8.*s: " then the message.
  char head[160];
  std::snprintf(head, sizeof head, "%s.%03ld %5d %5d %c %-8s: ", stamp, millis, entry.pid,
                entry.tid, entry.priority, entry.tag.c_str());
  return std::string(head) + entry.message + "\n";
}

std::string FormatThreadtime(const LogEntry& entry) {
  return FormatLogLine(entry, LogFormat::kThreadtime);
}

bool LogFilter::Allows(const LogEntry& entry) const {
  if ((buffers & LogBufferBit(entry.buffer)) == 0) return false;
  if (since && entry.time < *since) return false;
  if (entry.raw) return true;
  auto it = tag_min.find(entry.tag);
  if (it == tag_min.end()) it = tag_min.find("*");
  if (it == tag_min.end()) return true;
  return PriorityRank(entry.priority) >= PriorityRank(it->second);
}

void LogcatBuffer::Add(LogEntry entry) {
  for (const auto& [id, subscription] : subscribers_) {
    if (subscription.filter.Allows(entry)) subscription.subscriber(entry);
  }
  const auto at =
      std::upper_bound(entries_.begin(), entries_.end(), entry.time,
                       [](const auto& time, const LogEntry& other) { return time < other.time; });
  entries_.insert(at, std::move(entry));
  while (entries_.size() > kCapacity) entries_.pop_front();
}

std::string LogcatBuffer::Dump(const LogFilter& filter, std::size_t tail, LogFormat format,
                              std::optional<std::chrono::system_clock::time_point> until) const {
  std::vector<const LogEntry*> shown;
  for (const auto& entry : entries_) {
    if (until && entry.time > *until) break;
    if (filter.Allows(entry)) shown.push_back(&entry);
  }
  if (tail > 0 && shown.size() > tail)
    shown.erase(shown.begin(), shown.end() - static_cast<long>(tail));
  std::string out;
  bool seen[4] = {false, false, false, false};
  for (const LogEntry* entry : shown) {
    bool& buffer_seen = seen[static_cast<int>(entry->buffer)];
    if (!buffer_seen) {
      out += "--------- beginning of ";
      out += BufferName(entry->buffer);
      out += "\n";
      buffer_seen = true;
    }
    out += FormatLogLine(*entry, format);
  }
  return out;
}

std::uint64_t LogcatBuffer::Subscribe(LogFilter filter, Subscriber subscriber) {
  const std::uint64_t id = next_subscription_++;
  subscribers_[id] = Subscription{std::move(filter), std::move(subscriber)};
  return id;
}

}  // namespace droidlab::devsim
