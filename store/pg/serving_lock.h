// ServingLock: one daemon per host name on a PostgreSQL database (issue 17 §2: several hosts
// share one, each claiming its own runs). Two daemons under one host name would each take the
// other's claims for their own — and end them at start-up — so the second is refused, as the
// lock file beside a SQLite file refuses a second daemon on it (daemon/db_lock.h). A
// session-level advisory lock keyed by the host name, held on a connection of its own for the
// lock's life; the server drops it when that connection ends — the daemon's exit, kill -9, or a
// network cut (then the next daemon may take over).
//
// The same connection may hold the lab's chores lock (TryLead): one daemon of the lab fires the
// schedules and delivers the alerts, whichever took it first; when its connection ends, another
// daemon's next TryLead takes it over.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/error.h"
#include "store/pg/connection.h"

namespace droidlab::store::pg {

// The advisory locks' keys: "drls" with the host name's hash for serving, "drll" for the lab's
// chores (migrate.h's migration lock is "drlb").
inline constexpr int64_t kServingLockKey = 0x64726c73;
inline constexpr int64_t kChoresLockKey = 0x64726c6c;

class ServingLock {
 public:
  // Takes the lock of `host` on the database `url` names, never waiting. kLocked when another
  // session holds it (the message names the host, the holder's client address, application and
  // since when, as pg_stat_activity has them, and the URL redacted); the errors of
  // Connection::Open.
  static StoreResult<ServingLock> Take(std::string_view url, std::string_view host);

  // Whether this daemon does the lab's chores: takes the chores lock if no other session holds
  // it (true while held). Blocking (one round trip): never on an io_context thread. An error
  // when the connection broke (the locks went with it).
  StoreResult<bool> TryLead();

  ServingLock(ServingLock&&) noexcept = default;
  ServingLock& operator=(ServingLock&&) noexcept = default;
  ServingLock(const ServingLock&) = delete;
  ServingLock& operator=(const ServingLock&) = delete;
  ~ServingLock() = default;  // closing the connection releases the lock

 private:
  explicit ServingLock(Connection connection) : connection_(std::move(connection)) {}
  Connection connection_;
  bool leading_ = false;
};

}  // namespace droidlab::store::pg
