// The PostgreSQL SQL of the `iteration_faults` table (schema/postgresql/0012_iteration_faults.sql):
// ../../sql/iteration_faults.h in PostgreSQL's dialect. Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

// The columns in the order of the IterationFault record (records.h).
#define DROIDLAB_PG_ITERATION_FAULTS_COLUMNS \
  "run_id, iteration, seq, kind, time, at_ms, pid, process_name, reason, stack, duration_ms"

// An iteration measured again (never, today) replaces its faults: SQLite's INSERT OR REPLACE.
// A few rows a call (an iteration's), so an INSERT each rather than COPY, which has no ON
// CONFLICT.
inline constexpr char kInsertIterationFault[] =
    "INSERT INTO iteration_faults (" DROIDLAB_PG_ITERATION_FAULTS_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    " ON CONFLICT (run_id, iteration, seq) DO UPDATE SET kind = EXCLUDED.kind,"
    " time = EXCLUDED.time, at_ms = EXCLUDED.at_ms, pid = EXCLUDED.pid,"
    " process_name = EXCLUDED.process_name, reason = EXCLUDED.reason, stack = EXCLUDED.stack,"
    " duration_ms = EXCLUDED.duration_ms";

// A late fault makes its iteration's launch invalid (InsertLateIterationFaults): the statement
// of ../../sql/launches.h's kInvalidateLaunch, kept here with the write that is its only user.
// valid is 0/1 BIGINT in both schemas.
inline constexpr char kInvalidateLaunchOfLateFault[] =
    "UPDATE launches SET valid = 0, invalid_reason = coalesce(invalid_reason, $3)"
    " WHERE run_id = $1 AND iteration = $2";

// A run's faults in iteration order, each iteration's as they came: one range of the key.
inline constexpr char kIterationFaultsOfRun[] =
    "SELECT " DROIDLAB_PG_ITERATION_FAULTS_COLUMNS
    " FROM iteration_faults WHERE run_id = $1 ORDER BY iteration, seq";

#undef DROIDLAB_PG_ITERATION_FAULTS_COLUMNS

}  // namespace droidlab::store::pg::sql
