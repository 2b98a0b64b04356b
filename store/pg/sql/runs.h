// The PostgreSQL form of ../../sql/runs.h: every statement the PostgreSQL store runs on `runs`
// (schema/postgresql/0001_init.sql). Internal to store/. Where it differs from SQLite's: $n for
// ?n, ->> for json_extract (spec is JSON, always valid, so no json_valid), IS [NOT]
// DISTINCT FROM for IS [NOT], no unary + (SQLite's index hint), and ids from the identity.
#pragma once

namespace droidlab::store::pg::sql {

#define DROIDLAB_PG_RUN_COLUMNS                                                          \
  "id, spec, serial, device_model, package, activity, mode, iterations, status, error, " \
  "created_at, started_at, finished_at, schedule_id, fingerprint, preflight, host, "     \
  "lease_until, cancel_requested, pool"

// ---- Writes.

// The identity numbers it: its sequence never gives an id twice, deleted runs' included
// (SQLite's max(id, id_high_water) + 1; 0003_kept_ids.sql).
inline constexpr const char* kInsertRun =
    "INSERT INTO runs (spec, serial, device_model, package, activity, mode, iterations, status,"
    " created_at, schedule_id, pool, pool_model, pool_sdk)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $10, $11, $12) RETURNING id";
// A pool run's labels (schema 0018), one row each.
inline constexpr const char* kInsertPoolLabel =
    "INSERT INTO run_pool_labels (run_id, label) VALUES ($1, $2)";

// NULL arguments leave the stored value alone.
inline constexpr const char* kUpdateRunStatus =
    "UPDATE runs SET status = $2, error = coalesce($3, error),"
    " started_at = coalesce($4, started_at), finished_at = coalesce($5, finished_at),"
    " fingerprint = coalesce($6, fingerprint), preflight = coalesce($7::json, preflight)"
    " WHERE id = $1 AND status IN ('queued', 'running')";

inline constexpr const char* kRunStatusOf = "SELECT status FROM runs WHERE id = $1";

// The server's clock now (not the transaction's start, which now() would give), in ms.
inline constexpr const char* kDatabaseClockMs =
    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms";

inline constexpr const char* kInterruptRunning =
    "UPDATE runs SET status = 'interrupted', error = $1, finished_at = $2"
    " WHERE status = 'running'";

// A run and its rows in every table SQLite's DeleteRunAndRows clears (launches, looper stats,
// samples, summaries, frames, faults, memory; not alerts), in one statement: one round trip
// instead of eight. Every data-modifying WITH runs to completion whether read or not.
inline constexpr const char* kDeleteRunAndRows =
    "WITH launches_of_run AS (DELETE FROM launches WHERE run_id = $1),"
    " looper_stats_of_run AS (DELETE FROM looper_stats WHERE run_id = $1),"
    " proc_samples_of_run AS (DELETE FROM proc_samples WHERE run_id = $1),"
    " run_summaries_of_run AS (DELETE FROM run_summaries WHERE run_id = $1),"
    " iteration_frames_of_run AS (DELETE FROM iteration_frames WHERE run_id = $1),"
    " iteration_faults_of_run AS (DELETE FROM iteration_faults WHERE run_id = $1),"
    " iteration_memory_of_run AS (DELETE FROM iteration_memory WHERE run_id = $1),"
    " pool_labels_of_run AS (DELETE FROM run_pool_labels WHERE run_id = $1)"
    " DELETE FROM runs WHERE id = $1";

// ---- Retention: oldest first, finished runs only.

inline constexpr const char* kRunsOlderThan =
    "SELECT id FROM runs WHERE created_at < $1 AND status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT $2";
// SQLite's LIMIT -1 OFFSET n is an OFFSET alone here.
inline constexpr const char* kRunsBeyondCount =
    "SELECT id FROM (SELECT id, created_at, status FROM runs ORDER BY created_at DESC, id DESC"
    " OFFSET $1) AS older WHERE status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT $2";

// Retention beyond runs, by age: a device's state history (each device keeps its last change)
// and the restores already paid.
inline constexpr const char* kDeleteDeviceStatesBefore =
    "DELETE FROM device_state_changes WHERE changed_at < $1"
    " AND id NOT IN (SELECT max(id) FROM device_state_changes GROUP BY serial)";
inline constexpr const char* kDeletePaidRestoresBefore =
    "DELETE FROM device_restores WHERE paid_at IS NOT NULL AND paid_at < $1";

// ---- Reads (ReadRun in reader.cpp reads the columns by name).

// The newest-first page. One statement for every filter, where SQLite has one per leading
// filter: libpq's unnamed statements are planned with the parameters' values, so a filter not
// given ($n IS NULL) folds away and the one given can use its index.
inline constexpr const char* kRunsPage =
    "SELECT " DROIDLAB_PG_RUN_COLUMNS
    " FROM runs WHERE created_at >= $1 AND created_at <= $2 AND (created_at < $2 OR id < $3)"
    " AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR serial = $5)"
    " AND ($6::text IS NULL OR package = $6)"
    " ORDER BY created_at DESC, id DESC LIMIT $7";

inline constexpr const char* kRunById =
    "SELECT " DROIDLAB_PG_RUN_COLUMNS " FROM runs WHERE id = $1";

// The default baseline: the run before, like with like; a calibration run (issue 15 §3) is none.
inline constexpr const char* kPreviousSuccessfulRun =
    "SELECT " DROIDLAB_PG_RUN_COLUMNS
    " FROM runs WHERE package = $1 AND created_at < $2 AND status = 'succeeded'"
    " AND device_model IS NOT DISTINCT FROM $3::text AND mode = $4"
    " AND (spec->>'kind') IS DISTINCT FROM 'calibration'"
    " ORDER BY created_at DESC, id DESC LIMIT 1";

// A package's succeeded calibration runs, newest first, at most $4 (NULL: all); $2 / $3 NULL:
// any device model / mode.
inline constexpr const char* kCalibrationRuns =
    "SELECT " DROIDLAB_PG_RUN_COLUMNS
    " FROM runs WHERE package = $1 AND status = 'succeeded'"
    " AND ($2::text IS NULL OR device_model = $2) AND ($3::text IS NULL OR mode = $3)"
    " AND spec->>'kind' = 'calibration'"
    " ORDER BY created_at DESC, id DESC LIMIT $4";

// /metrics. count(*) is bigint; the names in byte order, as SQLite sorts them.
inline constexpr const char* kRunCountsByStatus =
    "SELECT status, count(*) AS runs FROM runs GROUP BY status ORDER BY status COLLATE \"C\"";

#undef DROIDLAB_PG_RUN_COLUMNS

}  // namespace droidlab::store::pg::sql
