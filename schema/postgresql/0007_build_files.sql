-- 0007_build_files: the PostgreSQL form of schema/0007_build_files.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

CREATE TABLE build_files (
  build_id BIGINT NOT NULL,
  position BIGINT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('base', 'split', 'dm')),
  split TEXT,
  sha256 TEXT NOT NULL,
  size BIGINT NOT NULL,
  PRIMARY KEY (build_id, position)
);
CREATE INDEX build_files_by_sha256 ON build_files (sha256);
INSERT INTO build_files (build_id, position, name, kind, split, sha256, size)
  SELECT id, 0, coalesce(file_name, 'base.apk'), 'base', NULL, sha256, size FROM builds;
