-- 0014_frames_over_vsyncs: an iteration's frames over one, two and three vsync periods of the
-- display they were drawn for (issue 16 §2: the budgets at the device's refresh rate;
-- analysis/frames.h), beside the fixed 16.7 / 33 / 50 ms of 0011, which are 60 Hz's. The period
-- is each frame's own FrameInterval (Android 13+), else the display's from `dumpsys
-- SurfaceFlinger --latency`, else 60 Hz — refresh_period_ns says which was used.
--
-- NULL for the iterations stored before this migration: their frames' rows are kept
-- (rows_json), but they are not judged again.
ALTER TABLE iteration_frames ADD COLUMN over_1_vsync INTEGER;
ALTER TABLE iteration_frames ADD COLUMN over_2_vsyncs INTEGER;
ALTER TABLE iteration_frames ADD COLUMN over_3_vsyncs INTEGER;
