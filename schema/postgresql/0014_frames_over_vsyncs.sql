-- 0014_frames_over_vsyncs: the PostgreSQL form of schema/0014_frames_over_vsyncs.sql, which says
-- what the columns mean; only the types differ (schema/README.md).
ALTER TABLE iteration_frames ADD COLUMN over_1_vsync BIGINT;
ALTER TABLE iteration_frames ADD COLUMN over_2_vsyncs BIGINT;
ALTER TABLE iteration_frames ADD COLUMN over_3_vsyncs BIGINT;
