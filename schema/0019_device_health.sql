-- 0019_device_health: each phone's health kept over time, and what the lab did about it (issue
-- 17 §3: fleet health, the recovery ladder, quarantine).
--
-- device_health: one sample per phone per health check (every minute by default), by the host
-- that holds it. battery_level in %, battery_temp in tenths of °C, thermal_status 0 (none) .. 6
-- (shutdown), each NULL when the phone was busy with a run (nothing is asked of a phone while it
-- measures) or did not say. uptime_ms: `/proc/uptime` (a smaller one than before is a reboot).
-- adb_commands / adb_errors / adb_ms: the commands this host sent the phone since the previous
-- sample, how many failed (timeouts included), and their round trips summed.
CREATE TABLE device_health (
  id INTEGER PRIMARY KEY,
  serial TEXT NOT NULL,  -- devices.serial
  host TEXT NOT NULL,
  at INTEGER NOT NULL,   -- ms since the epoch
  battery_level INTEGER,
  battery_temp INTEGER,
  thermal_status INTEGER,
  uptime_ms INTEGER,
  adb_commands INTEGER NOT NULL,
  adb_errors INTEGER NOT NULL,
  adb_ms INTEGER NOT NULL
);
CREATE INDEX device_health_by_serial ON device_health (serial, at);
CREATE INDEX device_health_by_at ON device_health (at);

-- device_events: what happened to a phone that an operator wants in its history: "unresponsive"
-- (a health check got no answer), each recovery step tried ("reconnect_transport",
-- "reconnect_device", "reboot") and its outcome ("recovered"), "rebooted" (seen, whoever did it),
-- "quarantined", "released" (by whom: detail names the API token), "run_failed" (a run ended by
-- the device: gone, offline, unauthorized, no answer). detail: one line for a person.
CREATE TABLE device_events (
  id INTEGER PRIMARY KEY,
  serial TEXT NOT NULL,  -- devices.serial
  host TEXT NOT NULL,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX device_events_by_serial ON device_events (serial, at);
CREATE INDEX device_events_by_at ON device_events (at);

-- A quarantined phone is out of every pool and takes no run until an operator releases it
-- (`POST /api/v1/devices/{serial}/release`): at (ms since the epoch) and why, NULL when not.
ALTER TABLE devices ADD COLUMN quarantined_at INTEGER;
ALTER TABLE devices ADD COLUMN quarantine_reason TEXT;
