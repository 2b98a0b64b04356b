-- 0011_iteration_frames: the frames of each iteration (issue 16 §2): what
-- `dumpsys gfxinfo PKG framestats` printed after the iteration (reset before it), for the app's
-- process. One row per (run, iteration).
--
-- total_frames, janky_frames and the gfx_p* columns are hwui's own figures (JankTracker /
-- ProfileData, "Total frames rendered", "Janky frames", "50th percentile" …, in ms, NULL where
-- the version prints none). The rest is droidlab's, computed from the framestats rows by
-- analysis/frames.h: counted frames (Flags 0, FrameCompleted − IntendedVsync), their quantiles
-- in ms, frames over 16.7 / 33 / 50 ms, Tencent Matrix's dropped-frame levels and PerfDog's
-- jank and big jank, and the vsync period they were judged at. The rows themselves are kept as
-- printed, under their header's own names: columns_json a JSON array of names, rows_json an
-- array of arrays of integers (at most the 120 frames hwui keeps per window).
--
-- No foreign key (see 0001); retention deletes a run's frames with its launches.
CREATE TABLE iteration_frames (
  run_id INTEGER NOT NULL,  -- runs.id
  iteration INTEGER NOT NULL,
  total_frames INTEGER,
  janky_frames INTEGER,
  gfx_p50_ms INTEGER,
  gfx_p90_ms INTEGER,
  gfx_p95_ms INTEGER,
  gfx_p99_ms INTEGER,
  frame_rows INTEGER NOT NULL,
  counted INTEGER NOT NULL,
  refresh_period_ns INTEGER NOT NULL,
  p50_ms REAL,
  p90_ms REAL,
  p95_ms REAL,
  p99_ms REAL,
  over_16_7ms INTEGER NOT NULL,
  over_33ms INTEGER NOT NULL,
  over_50ms INTEGER NOT NULL,
  matrix_normal INTEGER NOT NULL,
  matrix_middle INTEGER NOT NULL,
  matrix_high INTEGER NOT NULL,
  matrix_frozen INTEGER NOT NULL,
  dropped_frames INTEGER NOT NULL,
  jank INTEGER NOT NULL,
  big_jank INTEGER NOT NULL,
  columns_json TEXT NOT NULL,
  rows_json TEXT NOT NULL,
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;
