// The SQL of the `iteration_frames` table (schema/0011_iteration_frames.sql, 0014_frames_over_vsyncs.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

// The columns in the order of the IterationFrames record (records.h).
#define DROIDLAB_ITERATION_FRAMES_COLUMNS                                                \
  "run_id, iteration, total_frames, janky_frames, gfx_p50_ms, gfx_p90_ms, gfx_p95_ms,"   \
  " gfx_p99_ms, frame_rows, counted, refresh_period_ns, p50_ms, p90_ms, p95_ms, p99_ms," \
  " over_16_7ms, over_33ms, over_50ms, matrix_normal, matrix_middle, matrix_high,"       \
  " matrix_frozen, dropped_frames, jank, big_jank, columns_json, rows_json, over_1_vsync," \
  " over_2_vsyncs, over_3_vsyncs"

// An iteration measured again (never, today) replaces its frames.
inline constexpr char kInsertIterationFrames[] =
    "INSERT OR REPLACE INTO iteration_frames (" DROIDLAB_ITERATION_FRAMES_COLUMNS
    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
    " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30)";

inline constexpr char kDeleteIterationFramesOfRun[] =
    "DELETE FROM iteration_frames WHERE run_id = ?1";

// A run's iterations in order: one range of the primary key.
inline constexpr char kIterationFramesOfRun[] =
    "SELECT " DROIDLAB_ITERATION_FRAMES_COLUMNS
    " FROM iteration_frames WHERE run_id = ?1 ORDER BY iteration";

// The same without the rows ('[]' in their place): what a run's summaries and verdicts read —
// the figures of each iteration, not ~10 KB of framestats per iteration.
inline constexpr char kIterationFrameFiguresOfRun[] =
    "SELECT run_id, iteration, total_frames, janky_frames, gfx_p50_ms, gfx_p90_ms, gfx_p95_ms,"
    " gfx_p99_ms, frame_rows, counted, refresh_period_ns, p50_ms, p90_ms, p95_ms, p99_ms,"
    " over_16_7ms, over_33ms, over_50ms, matrix_normal, matrix_middle, matrix_high,"
    " matrix_frozen, dropped_frames, jank, big_jank, '[]', '[]', over_1_vsync, over_2_vsyncs,"
    " over_3_vsyncs"
    " FROM iteration_frames WHERE run_id = ?1 ORDER BY iteration";

#undef DROIDLAB_ITERATION_FRAMES_COLUMNS

}  // namespace droidlab::store::sql
