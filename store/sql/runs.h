// The SQL of the `runs` table (schema/0001_init.sql): every statement the store runs on it.
// Internal to store/. Explicit column lists, ORDER BY wherever order matters, no SQL built at
// run time (Chromium's sql/README.md).
#pragma once

namespace droidlab::store::sql {

#define DROIDLAB_RUN_COLUMNS                                                             \
  "id, spec, serial, device_model, package, activity, mode, iterations, status, error, " \
  "created_at, started_at, finished_at, schedule_id, fingerprint, preflight, host, "     \
  "lease_until, cancel_requested, pool"

// ---- Writes.

// Numbered above every run ever stored, deleted ones too (schema 0003: ids are never reused).
inline constexpr char kInsertRun[] =
    "INSERT INTO runs (id, spec, serial, device_model, package, activity, mode, iterations,"
    " status, created_at, schedule_id, pool, pool_model, pool_sdk) VALUES ("
    "max(coalesce((SELECT max(id) FROM runs), 0),"
    " coalesce((SELECT id FROM id_high_water WHERE name = 'runs'), 0)) + 1,"
    " ?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', ?8, ?9, ?10, ?11, ?12)";
// A pool run's labels (schema 0018), one row each.
inline constexpr char kInsertPoolLabel[] =
    "INSERT INTO run_pool_labels (run_id, label) VALUES (?1, ?2)";
inline constexpr char kDeletePoolLabelsOfRun[] = "DELETE FROM run_pool_labels WHERE run_id = ?1";

// Retention beyond runs, by age: a device's state history (each device keeps its last change)
// and the restores already paid.
inline constexpr char kDeleteDeviceStatesBefore[] =
    "DELETE FROM device_state_changes WHERE changed_at < ?1"
    " AND id NOT IN (SELECT max(id) FROM device_state_changes GROUP BY serial)";
inline constexpr char kDeletePaidRestoresBefore[] =
    "DELETE FROM device_restores WHERE paid_at IS NOT NULL AND paid_at < ?1";

// NULL arguments leave the stored value alone. A run that has ended keeps its end: a host that
// lost its claim on a run another host then ended `interrupted` stops its executor, whose own
// end ("cancelled") must not overwrite the other host's (issue 17 §2).
inline constexpr char kUpdateRunStatus[] =
    "UPDATE runs SET status = ?2, error = coalesce(?3, error),"
    " started_at = coalesce(?4, started_at), finished_at = coalesce(?5, finished_at),"
    " fingerprint = coalesce(?6, fingerprint), preflight = coalesce(?7, preflight)"
    " WHERE id = ?1 AND status IN ('queued', 'running')";

// Why kUpdateRunStatus changed nothing: no such run, or the end it already has.
inline constexpr char kRunStatusOf[] = "SELECT status FROM runs WHERE id = ?1";

inline constexpr char kInterruptRunning[] =
    "UPDATE runs SET status = 'interrupted', error = ?1, finished_at = ?2"
    " WHERE status = 'running'";

inline constexpr char kDeleteRun[] = "DELETE FROM runs WHERE id = ?1";

// ---- Retention: oldest first, finished runs only.

inline constexpr char kRunsOlderThan[] =
    "SELECT id FROM runs WHERE created_at < ?1 AND +status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT ?2";
inline constexpr char kRunsBeyondCount[] =
    "SELECT id FROM (SELECT id, created_at, status FROM runs ORDER BY created_at DESC, id DESC"
    " LIMIT -1 OFFSET ?1) WHERE status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT ?2";

// ---- Reads (ReadRun in reader.cpp reads DROIDLAB_RUN_COLUMNS in this order).

// The newest-first page and its cursor, one statement per leading filter so each can use its
// index; the other filters are row filters. A unary + keeps the planner off an index that would
// not give the created_at order.
#define DROIDLAB_RUNS_PAGE_REST                                             \
  " created_at >= ?1 AND created_at <= ?2 AND (created_at < ?2 OR id < ?3)" \
  " AND (?4 IS NULL OR +status = ?4) AND (?5 IS NULL OR +serial = ?5)"      \
  " AND (?6 IS NULL OR +package = ?6)"                                      \
  " ORDER BY created_at DESC, id DESC LIMIT ?7"

inline constexpr char kRunsAll[] =
    "SELECT " DROIDLAB_RUN_COLUMNS " FROM runs WHERE" DROIDLAB_RUNS_PAGE_REST;
inline constexpr char kRunsBySerial[] =
    "SELECT " DROIDLAB_RUN_COLUMNS " FROM runs WHERE serial = ?5 AND" DROIDLAB_RUNS_PAGE_REST;
inline constexpr char kRunsByPackage[] =
    "SELECT " DROIDLAB_RUN_COLUMNS " FROM runs WHERE package = ?6 AND" DROIDLAB_RUNS_PAGE_REST;
inline constexpr char kRunsByStatus[] =
    "SELECT " DROIDLAB_RUN_COLUMNS " FROM runs WHERE status = ?4 AND" DROIDLAB_RUNS_PAGE_REST;

inline constexpr char kRunById[] = "SELECT " DROIDLAB_RUN_COLUMNS " FROM runs WHERE id = ?1";

// The default baseline: the run before, like with like; a calibration run (issue 15 §3, an A/A
// of a build that may not be tonight's) is none.
inline constexpr char kPreviousSuccessfulRun[] =
    "SELECT " DROIDLAB_RUN_COLUMNS
    " FROM runs WHERE package = ?1 AND created_at < ?2 AND +status = 'succeeded'"
    " AND device_model IS ?3 AND mode = ?4"
    " AND (NOT json_valid(spec) OR json_extract(spec, '$.kind') IS NOT 'calibration')"
    " ORDER BY created_at DESC, id DESC LIMIT 1";

// A package's succeeded calibration runs (issue 15 §3: "kind": "calibration" in the spec), newest
// first, at most ?4; ?2 / ?3 NULL: any device model / mode. Few rows: the runs of a package
// (runs_by_package) are filtered by the spec.
inline constexpr char kCalibrationRuns[] =
    "SELECT " DROIDLAB_RUN_COLUMNS
    " FROM runs WHERE package = ?1 AND +status = 'succeeded' AND (?2 IS NULL OR device_model = ?2)"
    " AND (?3 IS NULL OR mode = ?3) AND json_valid(spec) AND json_extract(spec, '$.kind') = 'calibration'"
    " ORDER BY created_at DESC, id DESC LIMIT ?4";

// /metrics: runs_by_status answers this from the index alone.
inline constexpr char kRunCountsByStatus[] =
    "SELECT status, COUNT(*) FROM runs GROUP BY status ORDER BY status";

#undef DROIDLAB_RUNS_PAGE_REST
#undef DROIDLAB_RUN_COLUMNS

}  // namespace droidlab::store::sql
