// The SQL of the `proc_samples` table (schema/0001_init.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertProcSample[] =
    "INSERT INTO proc_samples (run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

inline constexpr char kDeleteProcSamplesOfRun[] = "DELETE FROM proc_samples WHERE run_id = ?1";

inline constexpr char kProcSamplesOfRun[] =
    "SELECT run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads"
    " FROM proc_samples WHERE run_id = ?1 ORDER BY t_ms, rowid LIMIT ?2 OFFSET ?3";

}  // namespace droidlab::store::sql
