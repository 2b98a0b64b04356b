-- 0008_build_signature: the PostgreSQL form of schema/0008_build_signature.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

ALTER TABLE builds ADD COLUMN signature TEXT;
