-- 0016_hosts: the lab's hosts and which one holds each device (issue 17 §2: several daemons on
-- one PostgreSQL database; on SQLite there is one host, and the rows say which).
--
-- hosts: one row per daemon's host, by the name it registers under (`host_name` in the config,
-- else the machine's host name), upserted at start-up and on every heartbeat; a host whose
-- heartbeat_at is older than a few heartbeats is not alive (the API says so). address: where its
-- API answers. Times in ms since the epoch.
CREATE TABLE hosts (
  name TEXT PRIMARY KEY NOT NULL,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The host whose adb server last listed the device (NULL for devices seen before this
-- migration, until their host sees them again). A phone moved to another host's USB follows.
ALTER TABLE devices ADD COLUMN host TEXT;

-- An operator's labels on a device (`PUT /api/v1/devices/{serial}/labels`), what a run's pool
-- matches on. Replaced whole; a label is 1–64 of [A-Za-z0-9._-], starting with a letter or digit.
CREATE TABLE device_labels (
  serial TEXT NOT NULL,  -- devices.serial
  label TEXT NOT NULL,
  PRIMARY KEY (serial, label)
) WITHOUT ROWID;
