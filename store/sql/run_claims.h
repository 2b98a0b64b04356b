// The SQL of runs claimed by hosts (schema/0018_run_claims.sql): claims, leases, their expiry,
// a cancel asked of another host's run. Internal to store/; PostgreSQL's is pg/sql/run_claims.h.
#pragma once

namespace droidlab::store::sql {

// What a phone (?2) must be to take a queued run: not quarantined (schema 0019), and the run's
// serial or every one of the pool's criteria (its model, SDK level and labels, as the devices
// table and device_labels have them).
#define DROIDLAB_CLAIMABLE_BY_PHONE                                                                \
  " r.status = 'queued' AND r.host IS NULL AND r.cancel_requested = 0"                             \
  " AND NOT EXISTS (SELECT 1 FROM devices q WHERE q.serial = ?2 AND q.quarantined_at IS NOT NULL)" \
  " AND ((r.pool = 0 AND r.serial = ?2) OR (r.pool = 1"                                            \
  " AND (r.pool_model IS NULL OR r.pool_model = (SELECT model FROM devices WHERE serial = ?2))"    \
  " AND (r.pool_sdk IS NULL OR r.pool_sdk = (SELECT sdk FROM devices WHERE serial = ?2))"          \
  " AND NOT EXISTS (SELECT 1 FROM run_pool_labels l WHERE l.run_id = r.id"                         \
  " AND NOT EXISTS (SELECT 1 FROM device_labels d WHERE d.serial = ?2 AND d.label = l.label))))"

// The oldest queued run phone ?2 may take, claimed by host ?1 until ?3. A pool run takes the
// phone's serial and model; a run for the serial takes the model when it was queued without one
// (a schedule fired on another host than the phone's). The one writer makes it atomic
// (PostgreSQL's locks the row).
inline constexpr char kClaimRunForPhone[] =
    "UPDATE runs SET host = ?1, lease_until = ?3, serial = ?2,"
    " device_model = CASE WHEN pool = 1 THEN (SELECT model FROM devices WHERE serial = ?2)"
    " ELSE coalesce(device_model, (SELECT model FROM devices WHERE serial = ?2)) END"
    " WHERE id = (SELECT r.id FROM runs r WHERE" DROIDLAB_CLAIMABLE_BY_PHONE
    " ORDER BY r.id LIMIT 1) AND status = 'queued' AND host IS NULL RETURNING id";
#undef DROIDLAB_CLAIMABLE_BY_PHONE

// Run ?2 (a run for a serial), claimed by host ?1 until ?3 if it is queued and unclaimed.
inline constexpr char kClaimRunById[] =
    "UPDATE runs SET host = ?1, lease_until = ?3 WHERE id = ?2 AND status = 'queued'"
    " AND host IS NULL AND cancel_requested = 0 AND pool = 0 RETURNING id";

// Host ?1's runs, their leases moved to ?2.
inline constexpr char kRenewLeases[] =
    "UPDATE runs SET lease_until = ?2 WHERE host = ?1 AND status IN ('queued', 'running')"
    " RETURNING id, cancel_requested";

// Whose claim has lapsed at ?1: a lease that ran out, or every claim of host ?2, the host that
// is starting again (NULL: none). Runs running then, and runs that were running when this
// schema came (no host), end interrupted: ?3 says why for host ?2's and the hostless.
#define DROIDLAB_CLAIM_LAPSED " (lease_until < ?1 OR host = ?2)"
inline constexpr char kCancelLapsedRequested[] =
    "UPDATE runs SET status = 'cancelled', error = 'cancelled before it started', finished_at = ?1"
    " WHERE status = 'queued' AND host IS NOT NULL AND cancel_requested = 1 AND"
    DROIDLAB_CLAIM_LAPSED;
inline constexpr char kReleaseLapsedClaims[] =
    "UPDATE runs SET host = NULL, lease_until = NULL,"
    " serial = CASE WHEN pool = 1 THEN '' ELSE serial END,"
    " device_model = CASE WHEN pool = 1 THEN NULL ELSE device_model END"
    " WHERE status = 'queued' AND host IS NOT NULL AND" DROIDLAB_CLAIM_LAPSED;
inline constexpr char kInterruptLapsed[] =
    "UPDATE runs SET status = 'interrupted', finished_at = ?1,"
    " error = CASE WHEN host IS NULL OR host = ?2 THEN ?3 ELSE 'host ' || host ||"
    " ' stopped renewing its claim on the run (its daemon died or lost the database)' END"
    " WHERE status = 'running' AND (" DROIDLAB_CLAIM_LAPSED
    " OR (host IS NULL AND ?2 IS NOT NULL)) RETURNING id, pool, cancel_requested";
#undef DROIDLAB_CLAIM_LAPSED

// Pool run ?1 queued again as a new run, created at ?2 (ids as kInsertRun gives them), with its
// labels; the old run's error says which.
inline constexpr char kRequeuePoolRun[] =
    "INSERT INTO runs (id, spec, serial, device_model, package, activity, mode, iterations,"
    " status, created_at, schedule_id, pool, pool_model, pool_sdk) SELECT "
    "max(coalesce((SELECT max(id) FROM runs), 0),"
    " coalesce((SELECT id FROM id_high_water WHERE name = 'runs'), 0)) + 1,"
    " spec, '', NULL, package, activity, mode, iterations, 'queued', ?2, schedule_id, 1,"
    " pool_model, pool_sdk FROM runs WHERE id = ?1";
inline constexpr char kCopyPoolLabels[] =
    "INSERT INTO run_pool_labels (run_id, label) SELECT ?2, label FROM run_pool_labels"
    " WHERE run_id = ?1";
inline constexpr char kNoteRequeued[] =
    "UPDATE runs SET error = error || '; queued again as run ' || ?2 WHERE id = ?1";

// A cancel asked through any daemon: an unclaimed queued run ends at once; one a host holds is
// flagged for that host.
inline constexpr char kCancelUnclaimed[] =
    "UPDATE runs SET status = 'cancelled', error = ?2, finished_at = ?3"
    " WHERE id = ?1 AND status = 'queued' AND host IS NULL";
inline constexpr char kRequestCancel[] =
    "UPDATE runs SET cancel_requested = 1 WHERE id = ?1 AND status IN ('queued', 'running')";
inline constexpr char kRunExists[] = "SELECT 1 FROM runs WHERE id = ?1";

// A claimed run host ?2 has not started, given back: unclaimed again (a pool run's phone and
// model forgotten) for any host, or this one later, to claim.
inline constexpr char kReleaseClaim[] =
    "UPDATE runs SET host = NULL, lease_until = NULL,"
    " serial = CASE WHEN pool = 1 THEN '' ELSE serial END,"
    " device_model = CASE WHEN pool = 1 THEN NULL ELSE device_model END"
    " WHERE id = ?1 AND host = ?2 AND status = 'queued'";

}  // namespace droidlab::store::sql
