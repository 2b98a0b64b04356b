// DatabaseLock: one daemon per SQLite database. An exclusive flock(2) on a lock file beside the
// database (DB path + ".lock"), held for as long as the lock object lives — the daemon's life;
// for a postgresql:// database, which several hosts share, one daemon per host name: an
// advisory lock on the server (store/pg/serving_lock.h).
// The kernel drops it when the process ends, however it ends (kill -9 included), so a stale
// lock file never keeps the next daemon out. The file holds the holder's pid, for the message a
// second daemon prints.
//
//   auto lock = DatabaseLock::Acquire(config.db, host_name);
//   if (!lock) { fprintf(err, "droidlab serve: %s\n", lock.error().c_str()); return 1; }
#pragma once

#include <memory>
#include <string>

#include "base/result.h"

namespace droidlab::store::pg {
class ServingLock;
}  // namespace droidlab::store::pg

namespace droidlab::daemon {

class DatabaseLock {
 public:
  // The lock of `db_path`, or why not: held by another process (naming its pid when the file
  // says it), or the lock file cannot be created (a missing folder, permissions). Never waits.
  static BasicResult<DatabaseLock, std::string> Acquire(const std::string& db_path,
                                                        const std::string& host_name);

  // Whether this daemon does the lab's chores now (fires schedules, delivers alerts): always on
  // SQLite (one daemon); on PostgreSQL whichever daemon holds the chores lock, taken here when
  // free (ServingLock::TryLead). Blocking: call it off the io_context thread. `why_not` gets the
  // server's error when the lock's connection broke.
  bool TryLead(std::string* why_not);

  DatabaseLock(DatabaseLock&& other) noexcept;
  DatabaseLock& operator=(DatabaseLock&& other) noexcept;
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;
  ~DatabaseLock();  // releases the lock (the file stays: removing it would race a new holder)

  const std::string& path() const { return path_; }

 private:
  DatabaseLock(int fd, std::string path);
  explicit DatabaseLock(std::unique_ptr<store::pg::ServingLock> server_lock);
  int fd_ = -1;
  std::string path_;
  std::unique_ptr<store::pg::ServingLock> server_lock_;
};

}  // namespace droidlab::daemon
