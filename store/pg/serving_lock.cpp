#include "store/pg/serving_lock.h"

#include <utility>

namespace droidlab::store::pg {

namespace {

// Who holds the lock, as far as the server says (another role may not see the details: then
// only that it is held).
std::string Holder(Connection& connection, std::string_view host) {
  Params params;
  params.Int64(kServingLockKey).Text(host);
  auto holder = connection.Query(
      "SELECT coalesce(host(a.client_addr), 'a local socket') || ', ' ||"
      " coalesce(nullif(a.application_name, ''), 'an unnamed client') || ', connected since ' ||"
      " coalesce(to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC',"
      " 'an unknown time') AS who"
      " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
      " WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM"
      " pg_database WHERE datname = current_database())"
      " AND l.objsubid = 2 AND l.classid::bigint = $1 AND l.objid::int = hashtext($2)",
      params, "finding who holds the serving lock");
  if (!holder || holder->rows() == 0) return "";
  auto who = holder->Text(0, "who");
  return who ? *who : "";
}

}  // namespace

StoreResult<ServingLock> ServingLock::Take(std::string_view url, std::string_view host) {
  auto connection = Connection::Open(url);
  if (!connection) return connection.error();
  Params params;
  params.Int64(kServingLockKey).Text(host);
  // The two-int form: (key, the host name's hash); a hash collision only refuses a daemon.
  auto taken = connection->Query("SELECT pg_try_advisory_lock($1::int, hashtext($2)) AS taken",
                                 params, "taking the serving lock");
  if (!taken) return taken.error();
  auto yes = taken->Bool(0, "taken");
  if (!yes) return yes.error();
  if (!*yes) {
    const std::string who = Holder(*connection, host);
    return MakeStoreError(
        StoreErrorCode::kLocked,
        "another droidlab daemon is serving host " + std::string(host) + " on " +
            connection->redacted_url() + (who.empty() ? std::string() : " (" + who + ")") +
            "; one daemon per host name: stop it first, or give this one another --host-name");
  }
  return ServingLock(std::move(connection).value());
}

StoreResult<bool> ServingLock::TryLead() {
  Params params;
  params.Int64(kChoresLockKey);
  // Taken again while held, a session lock counts twice: ask only until it is ours.
  if (leading_) {
    auto alive = connection_.Query("SELECT 1", "checking the chores lock's connection");
    if (!alive) {
      leading_ = false;
      return alive.error();
    }
    return true;
  }
  auto taken = connection_.Query("SELECT pg_try_advisory_lock($1) AS taken", params,
                                 "taking the lab's chores lock");
  if (!taken) return taken.error();
  auto yes = taken->Bool(0, "taken");
  if (!yes) return yes.error();
  leading_ = *yes;
  return leading_;
}

}  // namespace droidlab::store::pg
