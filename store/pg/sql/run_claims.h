// The PostgreSQL form of ../../sql/run_claims.h: the same statements with $n parameters, typed
// where PostgreSQL cannot infer them. A claim locks the run it takes and skips runs another
// host's claim has locked (FOR UPDATE SKIP LOCKED): two hosts never take one run, and neither
// waits on the other. Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

#define DROIDLAB_PG_CLAIMABLE_BY_PHONE                                                             \
  " r.status = 'queued' AND r.host IS NULL AND r.cancel_requested = 0"                             \
  " AND NOT EXISTS (SELECT 1 FROM devices q WHERE q.serial = $2 AND q.quarantined_at IS NOT NULL)" \
  " AND ((r.pool = 0 AND r.serial = $2) OR (r.pool = 1"                                            \
  " AND (r.pool_model IS NULL OR r.pool_model = (SELECT model FROM devices WHERE serial = $2))"    \
  " AND (r.pool_sdk IS NULL OR r.pool_sdk = (SELECT sdk FROM devices WHERE serial = $2))"          \
  " AND NOT EXISTS (SELECT 1 FROM run_pool_labels l WHERE l.run_id = r.id"                         \
  " AND NOT EXISTS (SELECT 1 FROM device_labels d WHERE d.serial = $2 AND d.label = l.label))))"

inline constexpr const char* kClaimRunForPhone =
    "UPDATE runs SET host = $1, lease_until = $3, serial = $2,"
    " device_model = CASE WHEN pool = 1 THEN (SELECT model FROM devices WHERE serial = $2)"
    " ELSE coalesce(device_model, (SELECT model FROM devices WHERE serial = $2)) END"
    " WHERE id = (SELECT r.id FROM runs r WHERE" DROIDLAB_PG_CLAIMABLE_BY_PHONE
    " ORDER BY r.id LIMIT 1 FOR UPDATE SKIP LOCKED) AND status = 'queued' AND host IS NULL"
    " RETURNING id";
#undef DROIDLAB_PG_CLAIMABLE_BY_PHONE

inline constexpr const char* kClaimRunById =
    "UPDATE runs SET host = $1, lease_until = $3 WHERE id = $2 AND status = 'queued'"
    " AND host IS NULL AND cancel_requested = 0 AND pool = 0 RETURNING id";

inline constexpr const char* kRenewLeases =
    "UPDATE runs SET lease_until = $2 WHERE host = $1 AND status IN ('queued', 'running')"
    " RETURNING id, cancel_requested";

#define DROIDLAB_PG_CLAIM_LAPSED " (lease_until < $1 OR host = $2::text)"
inline constexpr const char* kCancelLapsedRequested =
    "UPDATE runs SET status = 'cancelled', error = 'cancelled before it started', finished_at = $1"
    " WHERE status = 'queued' AND host IS NOT NULL AND cancel_requested = 1 AND"
    DROIDLAB_PG_CLAIM_LAPSED;
inline constexpr const char* kReleaseLapsedClaims =
    "UPDATE runs SET host = NULL, lease_until = NULL,"
    " serial = CASE WHEN pool = 1 THEN '' ELSE serial END,"
    " device_model = CASE WHEN pool = 1 THEN NULL ELSE device_model END"
    " WHERE status = 'queued' AND host IS NOT NULL AND" DROIDLAB_PG_CLAIM_LAPSED;
inline constexpr const char* kInterruptLapsed =
    "UPDATE runs SET status = 'interrupted', finished_at = $1,"
    " error = CASE WHEN host IS NULL OR host = $2::text THEN $3::text ELSE 'host ' || host ||"
    " ' stopped renewing its claim on the run (its daemon died or lost the database)' END"
    " WHERE status = 'running' AND (" DROIDLAB_PG_CLAIM_LAPSED
    " OR (host IS NULL AND $2::text IS NOT NULL)) RETURNING id, pool, cancel_requested";
#undef DROIDLAB_PG_CLAIM_LAPSED

// Pool run $1 queued again as a new run created at $2, with its labels; the old run's error
// says which. One statement: the CTEs see one snapshot, and the new id comes from the first.
inline constexpr const char* kRequeuePoolRun =
    "WITH again AS (INSERT INTO runs (spec, serial, device_model, package, activity, mode,"
    " iterations, status, created_at, schedule_id, pool, pool_model, pool_sdk)"
    " SELECT spec, '', NULL, package, activity, mode, iterations, 'queued', $2, schedule_id, 1,"
    " pool_model, pool_sdk FROM runs WHERE id = $1 RETURNING id),"
    " labels AS (INSERT INTO run_pool_labels (run_id, label)"
    " SELECT again.id, l.label FROM again, run_pool_labels l WHERE l.run_id = $1),"
    " noted AS (UPDATE runs SET error = error || '; queued again as run ' || (SELECT id FROM again)"
    " WHERE id = $1)"
    " SELECT id FROM again";

inline constexpr const char* kCancelUnclaimed =
    "UPDATE runs SET status = 'cancelled', error = $2, finished_at = $3"
    " WHERE id = $1 AND status = 'queued' AND host IS NULL";
inline constexpr const char* kRequestCancel =
    "UPDATE runs SET cancel_requested = 1 WHERE id = $1 AND status IN ('queued', 'running')";
inline constexpr const char* kRunExists = "SELECT 1 FROM runs WHERE id = $1";
inline constexpr const char* kReleaseClaim =
    "UPDATE runs SET host = NULL, lease_until = NULL,"
    " serial = CASE WHEN pool = 1 THEN '' ELSE serial END,"
    " device_model = CASE WHEN pool = 1 THEN NULL ELSE device_model END"
    " WHERE id = $1 AND host = $2 AND status = 'queued'";

}  // namespace droidlab::store::pg::sql
