#include "store/pg/serving_lock.h"

#include <utility>

namespace droidlab::store::pg {

namespace {

// Who holds the lock, as far as the server says (another role may not see the details: then
// only that it is held).
std::string Holder(Connection& connection) {
  Params params;
  params.Int64(kServingLockKey);
  auto holder = connection.Query(
      "SELECT coalesce(host(a.client_addr), 'a local socket') || ', ' ||"
      " coalesce(nullif(a.application_name, ''), 'an unnamed client') || ', connected since ' ||"
      " coalesce(to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || ' UTC',"
      " 'an unknown time') AS who"
      " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
      " WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM"
      " pg_database WHERE datname = current_database())"
      " AND ((l.classid::bigint << 32) | l.objid::bigint) = $1",
      params, "finding who holds the serving lock");
  if (!holder || holder->rows() == 0) return "";
  auto who = holder->Text(0, "who");
  return who ? *who : "";
}

}  // namespace

StoreResult<ServingLock> ServingLock::Take(std::string_view url) {
  auto connection = Connection::Open(url);
  if (!connection) return connection.error();
  Params params;
  params.Int64(kServingLockKey);
  auto taken = connection->Query("SELECT pg_try_advisory_lock($1) AS taken", params,
                                 "taking the serving lock");
  if (!taken) return taken.error();
  auto yes = taken->Bool(0, "taken");
  if (!yes) return yes.error();
  if (!*yes) {
    const std::string who = Holder(*connection);
    return MakeStoreError(
        StoreErrorCode::kLocked,
        "another droidlab daemon is serving " + connection->redacted_url() +
            (who.empty() ? std::string() : " (" + who + ")") +
            "; one daemon per database until hosts share one: stop it first, or give this one "
            "another --db");
  }
  return ServingLock(std::move(connection).value());
}

}  // namespace droidlab::store::pg
