-- 0002_device_restores: what undoes each change droidlab makes to a device (a global setting
-- put, `dumpsys battery unplug`; later a setprop, a compile, an install), committed durably
-- BEFORE the change is sent, and marked paid once the undo succeeded. Whatever happens to the
-- daemon in between (kill -9, OOM, power cut), the next daemon finds the unpaid rows and puts
-- the device back when it sees it online (orchestrator/run/owed_restores.h).
--
-- kind: what undoes it — 'global_setting' (`settings put global NAME PREVIOUS`, or `settings
-- delete global NAME` when previous is NULL), 'battery_reset' (`dumpsys battery reset`).
-- name: the setting (property, package) the kind acts on; '' when it acts on none.
-- Two unpaid rows for the same (serial, kind, name): the older holds the device's own value;
-- they are paid newest first, so the device ends with the older one.

CREATE TABLE device_restores (
  id INTEGER PRIMARY KEY,
  serial TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  previous TEXT,
  run_id INTEGER,  -- runs.id of the run that made the change (NULL: none)
  created_at INTEGER NOT NULL,
  paid_at INTEGER  -- NULL while owed
);

-- The owed restores of one device (start-up, a device coming online, a run's start and end).
CREATE INDEX device_restores_owed ON device_restores (serial, id) WHERE paid_at IS NULL;
