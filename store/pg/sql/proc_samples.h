// The PostgreSQL form of ../../sql/proc_samples.h (schema/postgresql/0001_init.sql). Internal to
// store/. Samples are written with COPY (run_writes.cpp): kProcSampleCopyColumns is its list.
#pragma once

#include <array>

namespace droidlab::store::pg::sql {

// COPY proc_samples (...) FROM STDIN, in this order; `rowid` comes from its identity.
inline constexpr std::array<const char*, 8> kProcSampleCopyColumns = {
    "run_id", "t_ms", "pid", "utime", "stime", "cpu_pct", "rss_kb", "num_threads"};

// A run's samples after (t_ms, rowid) = ($2, $3), at most $4 (NULL: all); the page key is
// (t_ms, rowid), a range of proc_samples_by_run (run_id, t_ms, rowid) as in SQLite.
inline constexpr const char* kProcSamplesOfRun =
    "SELECT run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads, rowid"
    " FROM proc_samples WHERE run_id = $1 AND (t_ms, rowid) > ($2, $3)"
    " ORDER BY t_ms, rowid LIMIT $4";

}  // namespace droidlab::store::pg::sql
