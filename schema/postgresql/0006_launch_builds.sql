-- 0006_launch_builds: the PostgreSQL form of schema/0006_launch_builds.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

ALTER TABLE launches ADD COLUMN build_id BIGINT;
