// The PostgreSQL form of ../../sql/looper_stats.h (schema/postgresql/0001_init.sql). Internal
// to store/. Rows are written with COPY (run_writes.cpp, its column list from
// kLooperRowColumns); the select is composed at compile time from kLooperRowColumns with the
// SQLite header's TextWriter, so the table is still spelled once (looper_stats_columns.h).
//
// SQLite pages a run's rows by its implicit rowid, their dump order; the PostgreSQL table has a
// `rowid` column of that name, a BIGINT identity (0001_init.sql), filled in COPY's row order
// and the last column of looper_stats_by_run (run_id, rowid): the same key and the same cursor.
#pragma once

#include <array>
#include <cstddef>

#include "store/looper_stats_columns.h"
#include "store/sql/looper_stats.h"

namespace droidlab::store::pg::sql {

namespace looper_stats_text {

constexpr size_t ComposeSelectOfRun(char* out) {
  store::sql::looper_stats_text::TextWriter w{out};
  w.Add("SELECT ");
  w.AddColumnNames();
  w.Add(", rowid FROM looper_stats WHERE run_id = $1 AND rowid > $2 ORDER BY rowid LIMIT $3");
  return w.size;
}

inline constexpr auto kSelectOfRun = store::sql::looper_stats_text::Text<ComposeSelectOfRun>();

}  // namespace looper_stats_text

// One run's rows in dump order after rowid $2, at most $3 (NULL: all); kLooperRowColumns, then
// the page key (rowid).
inline constexpr const char* kLooperStatsOfRun = looper_stats_text::kSelectOfRun.data();

}  // namespace droidlab::store::pg::sql
