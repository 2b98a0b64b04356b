// The PostgreSQL SQL of the `iteration_memory` table (schema/postgresql/0013_iteration_memory.sql):
// ../../sql/iteration_memory.h in PostgreSQL's dialect. Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

// The columns in the order of the IterationMemory record (records.h).
#define DROIDLAB_PG_ITERATION_MEMORY_COLUMNS                                             \
  "run_id, iteration, pid, total_pss_kb, total_rss_kb, total_swap_pss_kb, java_heap_kb," \
  " native_heap_kb, code_kb, stack_kb, graphics_kb, private_other_kb, system_kb, views," \
  " view_root_impl, app_contexts, activities, assets, asset_managers, local_binders,"    \
  " proxy_binders, death_recipients, webviews"

// An iteration measured again (never, today) replaces its memory: SQLite's INSERT OR REPLACE.
// One row a call (an iteration's), so an INSERT rather than COPY, which has no ON CONFLICT.
inline constexpr char kInsertIterationMemory[] =
    "INSERT INTO iteration_memory (" DROIDLAB_PG_ITERATION_MEMORY_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,"
    " $18, $19, $20, $21, $22, $23)"
    " ON CONFLICT (run_id, iteration) DO UPDATE SET pid = EXCLUDED.pid,"
    " total_pss_kb = EXCLUDED.total_pss_kb, total_rss_kb = EXCLUDED.total_rss_kb,"
    " total_swap_pss_kb = EXCLUDED.total_swap_pss_kb, java_heap_kb = EXCLUDED.java_heap_kb,"
    " native_heap_kb = EXCLUDED.native_heap_kb, code_kb = EXCLUDED.code_kb,"
    " stack_kb = EXCLUDED.stack_kb, graphics_kb = EXCLUDED.graphics_kb,"
    " private_other_kb = EXCLUDED.private_other_kb, system_kb = EXCLUDED.system_kb,"
    " views = EXCLUDED.views, view_root_impl = EXCLUDED.view_root_impl,"
    " app_contexts = EXCLUDED.app_contexts, activities = EXCLUDED.activities,"
    " assets = EXCLUDED.assets, asset_managers = EXCLUDED.asset_managers,"
    " local_binders = EXCLUDED.local_binders, proxy_binders = EXCLUDED.proxy_binders,"
    " death_recipients = EXCLUDED.death_recipients, webviews = EXCLUDED.webviews";

// A run's iterations in order: one range of the primary key.
inline constexpr char kIterationMemoryOfRun[] =
    "SELECT " DROIDLAB_PG_ITERATION_MEMORY_COLUMNS
    " FROM iteration_memory WHERE run_id = $1 ORDER BY iteration";

#undef DROIDLAB_PG_ITERATION_MEMORY_COLUMNS

}  // namespace droidlab::store::pg::sql
