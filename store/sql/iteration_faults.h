// The SQL of the `iteration_faults` table (schema/0012_iteration_faults.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

// The columns in the order of the IterationFault record (records.h).
#define DROIDLAB_ITERATION_FAULTS_COLUMNS \
  "run_id, iteration, seq, kind, time, at_ms, pid, process_name, reason, stack, duration_ms"

// An iteration measured again (never, today) replaces its faults.
inline constexpr char kInsertIterationFault[] =
    "INSERT OR REPLACE INTO iteration_faults (" DROIDLAB_ITERATION_FAULTS_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

inline constexpr char kDeleteIterationFaultsOfRun[] =
    "DELETE FROM iteration_faults WHERE run_id = ?1";

// A run's faults in iteration order, each iteration's as they came: one range of the key.
inline constexpr char kIterationFaultsOfRun[] =
    "SELECT " DROIDLAB_ITERATION_FAULTS_COLUMNS
    " FROM iteration_faults WHERE run_id = ?1 ORDER BY iteration, seq";

#undef DROIDLAB_ITERATION_FAULTS_COLUMNS

}  // namespace droidlab::store::sql
