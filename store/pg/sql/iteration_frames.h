// The PostgreSQL SQL of the `iteration_frames` table (schema/postgresql/0011_iteration_frames.sql,
// 0014_frames_over_vsyncs.sql): ../../sql/iteration_frames.h in PostgreSQL's dialect.
// Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

// The columns in the order of the IterationFrames record (records.h).
#define DROIDLAB_PG_ITERATION_FRAMES_COLUMNS                                               \
  "run_id, iteration, total_frames, janky_frames, gfx_p50_ms, gfx_p90_ms, gfx_p95_ms,"     \
  " gfx_p99_ms, frame_rows, counted, refresh_period_ns, p50_ms, p90_ms, p95_ms, p99_ms,"   \
  " over_16_7ms, over_33ms, over_50ms, matrix_normal, matrix_middle, matrix_high,"         \
  " matrix_frozen, dropped_frames, jank, big_jank, columns_json, rows_json, over_1_vsync," \
  " over_2_vsyncs, over_3_vsyncs"

// An iteration measured again (never, today) replaces its frames: SQLite's INSERT OR REPLACE.
// One row a call (an iteration's), so an INSERT rather than COPY, which has no ON CONFLICT.
inline constexpr char kInsertIterationFrames[] =
    "INSERT INTO iteration_frames (" DROIDLAB_PG_ITERATION_FRAMES_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,"
    " $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)"
    " ON CONFLICT (run_id, iteration) DO UPDATE SET total_frames = EXCLUDED.total_frames,"
    " janky_frames = EXCLUDED.janky_frames, gfx_p50_ms = EXCLUDED.gfx_p50_ms,"
    " gfx_p90_ms = EXCLUDED.gfx_p90_ms, gfx_p95_ms = EXCLUDED.gfx_p95_ms,"
    " gfx_p99_ms = EXCLUDED.gfx_p99_ms, frame_rows = EXCLUDED.frame_rows,"
    " counted = EXCLUDED.counted, refresh_period_ns = EXCLUDED.refresh_period_ns,"
    " p50_ms = EXCLUDED.p50_ms, p90_ms = EXCLUDED.p90_ms, p95_ms = EXCLUDED.p95_ms,"
    " p99_ms = EXCLUDED.p99_ms, over_16_7ms = EXCLUDED.over_16_7ms,"
    " over_33ms = EXCLUDED.over_33ms, over_50ms = EXCLUDED.over_50ms,"
    " matrix_normal = EXCLUDED.matrix_normal, matrix_middle = EXCLUDED.matrix_middle,"
    " matrix_high = EXCLUDED.matrix_high, matrix_frozen = EXCLUDED.matrix_frozen,"
    " dropped_frames = EXCLUDED.dropped_frames, jank = EXCLUDED.jank,"
    " big_jank = EXCLUDED.big_jank, columns_json = EXCLUDED.columns_json,"
    " rows_json = EXCLUDED.rows_json, over_1_vsync = EXCLUDED.over_1_vsync,"
    " over_2_vsyncs = EXCLUDED.over_2_vsyncs, over_3_vsyncs = EXCLUDED.over_3_vsyncs";

// A run's iterations in order: one range of the primary key.
inline constexpr char kIterationFramesOfRun[] =
    "SELECT " DROIDLAB_PG_ITERATION_FRAMES_COLUMNS
    " FROM iteration_frames WHERE run_id = $1 ORDER BY iteration";

// The same without the rows ('[]' in their place, typed text so the reader takes them as text).
inline constexpr char kIterationFrameFiguresOfRun[] =
    "SELECT run_id, iteration, total_frames, janky_frames, gfx_p50_ms, gfx_p90_ms, gfx_p95_ms,"
    " gfx_p99_ms, frame_rows, counted, refresh_period_ns, p50_ms, p90_ms, p95_ms, p99_ms,"
    " over_16_7ms, over_33ms, over_50ms, matrix_normal, matrix_middle, matrix_high,"
    " matrix_frozen, dropped_frames, jank, big_jank, '[]'::text, '[]'::text, over_1_vsync,"
    " over_2_vsyncs, over_3_vsyncs"
    " FROM iteration_frames WHERE run_id = $1 ORDER BY iteration";

#undef DROIDLAB_PG_ITERATION_FRAMES_COLUMNS

}  // namespace droidlab::store::pg::sql
