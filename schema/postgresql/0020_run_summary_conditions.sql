-- 0020_run_summary_conditions: the PostgreSQL form of schema/0020_run_summary_conditions.sql,
-- which says what the column means; only the type differs (schema/README.md).
ALTER TABLE run_summaries ADD COLUMN hot_launches BIGINT;
