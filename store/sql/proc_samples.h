// The SQL of the `proc_samples` table (schema/0001_init.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertProcSample[] =
    "INSERT INTO proc_samples (run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

inline constexpr char kDeleteProcSamplesOfRun[] = "DELETE FROM proc_samples WHERE run_id = ?1";

// A run's samples after (t_ms, rowid) = (?2, ?3), at most ?4 (-1: all); the page key last. The
// row value comparison is a range of proc_samples_by_run (run_id, t_ms, and rowid in each entry).
inline constexpr char kProcSamplesOfRun[] =
    "SELECT run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads, t_ms, rowid"
    " FROM proc_samples WHERE run_id = ?1 AND (t_ms, rowid) > (?2, ?3)"
    " ORDER BY t_ms, rowid LIMIT ?4";

}  // namespace droidlab::store::sql
