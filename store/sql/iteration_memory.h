// The SQL of the `iteration_memory` table (schema/0013_iteration_memory.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

// The columns in the order of the IterationMemory record (records.h).
#define DROIDLAB_ITERATION_MEMORY_COLUMNS                                                \
  "run_id, iteration, pid, total_pss_kb, total_rss_kb, total_swap_pss_kb, java_heap_kb," \
  " native_heap_kb, code_kb, stack_kb, graphics_kb, private_other_kb, system_kb, views," \
  " view_root_impl, app_contexts, activities, assets, asset_managers, local_binders,"    \
  " proxy_binders, death_recipients, webviews"

// An iteration measured again (never, today) replaces its memory.
inline constexpr char kInsertIterationMemory[] =
    "INSERT OR REPLACE INTO iteration_memory (" DROIDLAB_ITERATION_MEMORY_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
    " ?18, ?19, ?20, ?21, ?22, ?23)";

inline constexpr char kDeleteIterationMemoryOfRun[] =
    "DELETE FROM iteration_memory WHERE run_id = ?1";

// A run's iterations in order: one range of the primary key.
inline constexpr char kIterationMemoryOfRun[] =
    "SELECT " DROIDLAB_ITERATION_MEMORY_COLUMNS
    " FROM iteration_memory WHERE run_id = ?1 ORDER BY iteration";

#undef DROIDLAB_ITERATION_MEMORY_COLUMNS

}  // namespace droidlab::store::sql
