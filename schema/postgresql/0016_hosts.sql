-- 0016_hosts: the PostgreSQL form of schema/0016_hosts.sql, which says what the tables mean; only
-- the types differ (schema/README.md).
CREATE TABLE hosts (
  name TEXT PRIMARY KEY NOT NULL,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);

ALTER TABLE devices ADD COLUMN host TEXT;

CREATE TABLE device_labels (
  serial TEXT NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (serial, label)
);
