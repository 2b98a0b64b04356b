-- 0004_launch_conditions: the PostgreSQL form of schema/0004_launch_conditions.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

ALTER TABLE launches ADD COLUMN warmup BIGINT NOT NULL DEFAULT 0;
ALTER TABLE launches ADD COLUMN thermal_status TEXT;
ALTER TABLE launches ADD COLUMN battery_temp_tenths_c BIGINT;
ALTER TABLE launches ADD COLUMN cooldown_wait_ms BIGINT;
