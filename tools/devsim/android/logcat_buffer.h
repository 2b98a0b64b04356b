// The device's log: entries as liblog keeps them, printed in logcat's threadtime format
// (system/logging/liblog/logprint.cpp):
//   11-22 01:02:03.456  1501  1534 I ActivityTaskManager: Displayed com.x/.Main: +797ms
// Device time is UTC. Entries may be dated in the future (a launch's Displayed line is written
// when am start is handled), so dumps order by time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace droidlab::devsim {

enum class LogBufferId { kMain, kSystem, kCrash, kEvents };

struct LogEntry {
  std::chrono::system_clock::time_point time;
  int pid = 0;
  int tid = 0;
  char priority = 'I';  // V D I W E F
  std::string tag;
  std::string message;
  LogBufferId buffer = LogBufferId::kMain;
};

std::string FormatThreadtime(const LogEntry& entry);

// Which entries a logcat invocation shows: filterspecs "TAG:P", "*:S" (logcat's syntax).
struct LogFilter {
  std::map<std::string, char> tag_min;  // "*" is the default rule
  bool Allows(const LogEntry& entry) const;
};

class LogcatBuffer {
 public:
  // Called for each new entry the filter allows, at once, even when the entry is dated later
  // (a launch logs its Displayed line ahead): the subscriber decides when to show it.
  using Subscriber = std::function<void(const LogEntry& entry)>;

  void Add(LogEntry entry);
  void Clear() { entries_.clear(); }
  // The `logcat -d` text: each buffer's first line is preceded by "--------- beginning of X".
  // `tail` > 0 keeps only the last `tail` entries (logcat -t N).
  std::string Dump(const LogFilter& filter, std::size_t tail = 0) const;

  // New entries are delivered to each subscriber until it is removed.
  std::uint64_t Subscribe(LogFilter filter, Subscriber subscriber);
  void Unsubscribe(std::uint64_t id) { subscribers_.erase(id); }

 private:
  std::vector<LogEntry> entries_;  // sorted by time
  struct Subscription {
    LogFilter filter;
    Subscriber subscriber;
  };
  std::map<std::uint64_t, Subscription> subscribers_;
  std::uint64_t next_subscription_ = 1;
};

}  // namespace droidlab::devsim
