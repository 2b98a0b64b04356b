-- 0005_builds: the builds under test (issue 14 §1). An APK uploaded to POST /api/v1/builds is
-- kept once, content-addressed (the file is <state dir>/builds/<sha256>.apk), and described by
-- what its manifest says, read before any phone sees it.
CREATE TABLE builds (
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,  -- of the APK's bytes, lower-case hex
  package TEXT NOT NULL,
  version_code INTEGER NOT NULL,  -- the long versionCode (versionCodeMajor << 32 | versionCode)
  version_name TEXT,
  min_sdk INTEGER,
  target_sdk INTEGER,
  size INTEGER NOT NULL,  -- bytes
  file_name TEXT,         -- as the client named it, for people; never a path
  created_at INTEGER NOT NULL
);
CREATE INDEX builds_by_package ON builds (package, created_at);
CREATE INDEX builds_by_time ON builds (created_at);
