// OwedRestores: looper-stats settings that a run could not put back because its device went
// away (unplugged, adb server gone) before the restore. The device owes them: they are put back
// as soon as the device is online again — by the device registry when it sees the device back,
// or by the device's next run before its preflight reads the setting, whichever comes first.
// Without this, an unplugged phone keeps sampling looper stats (and, after `dumpsys battery
// unplug`, reporting a fake battery) until somebody notices, and the next run records the
// run's value as "the device's setting".
//
// Kept in memory: a daemon restart forgets what is owed (the failed run's error and its
// preflight JSON still say what the setting was).
//
// Threading: Add/Take/Release are thread-safe; PayOwedRestore runs on the client's executor.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "adb/client.h"
#include "orchestrator/run/looper_session.h"

namespace droidlab::orchestrator {

class OwedRestores {
 public:
  // Remembers what `serial` owes. A device that owes already keeps its earlier debt: that one
  // holds the device's own setting, a later run only saw what the first one left.
  void Add(const std::string& serial, const LooperSession& session);
  // Takes the debt for paying: nullopt when there is none or another caller is paying it now
  // (then `busy` is set). Every Take that returned a session is followed by Release.
  std::optional<LooperSession> Take(const std::string& serial, bool* busy = nullptr);
  // After paying: `unpaid` puts the debt back (the restore failed again).
  void Release(const std::string& serial, std::optional<LooperSession> unpaid);
  bool Owes(const std::string& serial) const;
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, LooperSession> owed_;
  std::set<std::string> paying_;
};

// Puts back what `serial` owes, if anything. Waits (until `deadline`) while another caller is
// paying the same debt, so that a run never reads the setting halfway through a restore.
// Returns an error line when a debt exists and could not be paid (it stays owed).
boost::asio::awaitable<std::optional<std::string>> PayOwedRestore(
    OwedRestores& owed, adb::Client& client, std::string serial, adb::Deadline deadline,
    std::function<void(std::string_view)> log);

}  // namespace droidlab::orchestrator
