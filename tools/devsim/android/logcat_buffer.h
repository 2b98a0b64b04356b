// The device's log: entries as liblog keeps them, printed in logcat's threadtime format
// (system/logging/liblog/logprint.cpp):
//   11-22 01:02:03.456  1501  1534 I ActivityTaskManager: Displayed com.x/.Main: +797ms
// Device time is UTC. Entries may be dated in the future (a launch's Displayed line is written
// when am start is handled), so dumps order by time.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
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
  bool raw = false;  // a fault's garbage bytes: printed as they are, with no header
};

enum class LogFormat { kThreadtime, kEpoch };

// logprint.cpp's threadtime layout "%s %5d %5d %c %-8.*s: "; with epoch the time is
// "%19lld.%03ld" (seconds since 1970, right-aligned) instead of "MM-DD HH:MM:SS.mmm".
std::string FormatLogLine(const LogEntry& entry, LogFormat format);
std::string FormatThreadtime(const LogEntry& entry);

constexpr unsigned LogBufferBit(LogBufferId id) { return 1u << static_cast<unsigned>(id); }
// logcat's default buffers: main, system and crash.
constexpr unsigned kDefaultLogBuffers =
    LogBufferBit(LogBufferId::kMain) | LogBufferBit(LogBufferId::kSystem) |
    LogBufferBit(LogBufferId::kCrash);
constexpr unsigned kAllLogBuffers = kDefaultLogBuffers | LogBufferBit(LogBufferId::kEvents);

// Which entries a logcat invocation shows: filterspecs "TAG:P", "*:S" (logcat's syntax).
struct LogFilter {
  std::map<std::string, char> tag_min;  // "*" is the default rule
  unsigned buffers = kDefaultLogBuffers;
  // -T/-t with a time: entries dated before are not shown.
  std::optional<std::chrono::system_clock::time_point> since;
  bool Allows(const LogEntry& entry) const;
};

class LogcatBuffer {
 public:
  // Called for each new entry the filter allows, at once, even when the entry is dated later
  // (a launch logs its Displayed line ahead): the subscriber decides when to show it.
  using Subscriber = std::function<void(const LogEntry& entry)>;

  // Keeps at most this many entries (the oldest go first), as logd's ring buffers do.
  static constexpr std::size_t kCapacity = 200000;

  void Add(LogEntry entry);
  void Clear() { entries_.clear(); }
  // The `logcat -d` text: each buffer's first line is preceded by "--------- beginning of X".
  // `tail` > 0 keeps only the last `tail` entries (logcat -t N). Entries dated after `until`
  // (a launch's lines written ahead) are not shown yet.
  std::string Dump(const LogFilter& filter, std::size_t tail = 0,
                   LogFormat format = LogFormat::kThreadtime,
                   std::optional<std::chrono::system_clock::time_point> until = {}) const;

  // New entries are delivered to each subscriber until it is removed.
  std::uint64_t Subscribe(LogFilter filter, Subscriber subscriber);
  void Unsubscribe(std::uint64_t id) { subscribers_.erase(id); }

 private:
  std::deque<LogEntry> entries_;  // sorted by time
  struct Subscription {
    LogFilter filter;
    Subscriber subscriber;
  };
  std::map<std::uint64_t, Subscription> subscribers_;
  std::uint64_t next_subscription_ = 1;
};

}  // namespace droidlab::devsim
