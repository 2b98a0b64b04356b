-- 0007_build_files: the files of a build (issue 14 §1). A build is an app's base APK, its split
-- APKs (config and feature splits) and an optional .dm (dex metadata: the baseline profile),
-- installed together in one install session. Each file is kept once under its own SHA-256
-- (<builds dir>/<sha256>.apk or .dm); builds.sha256 is then the SHA-256 of the set (a build of
-- one APK keeps the APK's own: orchestrator/README.md). Files shared by two builds (the same
-- base with and without its splits) are one file on disk: it goes with the last build naming it.
CREATE TABLE build_files (
  build_id INTEGER NOT NULL,
  position INTEGER NOT NULL,  -- the base first, then the splits by name, then the .dm
  name TEXT NOT NULL,         -- as uploaded, for people; never a path
  kind TEXT NOT NULL CHECK (kind IN ('base', 'split', 'dm')),
  split TEXT,                 -- a split's name from its manifest (`split="config.arm64_v8a"`)
  sha256 TEXT NOT NULL,       -- of the file's bytes, lower-case hex
  size INTEGER NOT NULL,      -- bytes
  PRIMARY KEY (build_id, position)
);
CREATE INDEX build_files_by_sha256 ON build_files (sha256);
-- The builds kept so far are one APK each.
INSERT INTO build_files (build_id, position, name, kind, split, sha256, size)
  SELECT id, 0, coalesce(file_name, 'base.apk'), 'base', NULL, sha256, size FROM builds;
