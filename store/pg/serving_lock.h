// ServingLock: one daemon per PostgreSQL database, as the lock file beside a SQLite file keeps
// one per file (daemon/db_lock.h) — until several hosts share a database (issue 17 §2: hosts,
// leases, runs claimed), a second daemon on it would interrupt the first one's running runs at
// start-up and start its queued runs on phones it does not hold. A session-level advisory lock,
// held on a connection of its own for the lock's life; the server drops it when that connection
// ends — the daemon's exit, kill -9, or a network cut (then the next daemon may take over).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/error.h"
#include "store/pg/connection.h"

namespace droidlab::store::pg {

// The advisory lock's key, "drls" (migrate.h's migration lock is "drlb").
inline constexpr int64_t kServingLockKey = 0x64726c73;

class ServingLock {
 public:
  // Takes the lock on the database `url` names, never waiting. kLocked when another session
  // holds it (the message names its client address, application and since when, as
  // pg_stat_activity has them, and the URL redacted); the errors of Connection::Open.
  static StoreResult<ServingLock> Take(std::string_view url);

  ServingLock(ServingLock&&) noexcept = default;
  ServingLock& operator=(ServingLock&&) noexcept = default;
  ServingLock(const ServingLock&) = delete;
  ServingLock& operator=(const ServingLock&) = delete;
  ~ServingLock() = default;  // closing the connection releases the lock

 private:
  explicit ServingLock(Connection connection) : connection_(std::move(connection)) {}
  Connection connection_;
};

}  // namespace droidlab::store::pg
