-- 0001_init: devices, runs and everything a run measures, schedules.
--
-- Times: *_at and first_seen/last_seen are wall-clock milliseconds since the Unix epoch (UTC),
-- as the host saw them. A launch's intent_at_ms / fork_at_ms / displayed_at_ms are milliseconds on
-- the DEVICE's boot clock (logcat times and /proc/<pid>/stat starttime converted with CLK_TCK and
-- /proc/uptime): only their differences mean something (the launch phases).
--
-- Foreign keys are documented, not declared: the store's one writer is the only code that writes,
-- and retention deletes a run's rows before the run. Enforcement would cost a b-tree probe of
-- runs per inserted row on the hottest tables.
--
-- Indexes exist for the queries store/reader.cpp runs, nothing else. Tables written at high
-- rates (launches, looper_stats, proc_samples) carry one integer-first key each: a text index
-- cuts insert speed several times (see store/README.md).

CREATE TABLE devices (
  serial TEXT PRIMARY KEY NOT NULL,
  model TEXT,
  manufacturer TEXT,
  sdk INTEGER,
  release TEXT,
  abi TEXT,
  fingerprint TEXT,
  -- adb's state (device, offline, unauthorized, ...) or 'disconnected'.
  state TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);

CREATE TABLE device_state_changes (
  id INTEGER PRIMARY KEY,
  serial TEXT NOT NULL,  -- devices.serial
  state TEXT NOT NULL,
  changed_at INTEGER NOT NULL
);
CREATE INDEX device_state_changes_by_serial ON device_state_changes (serial, changed_at);

CREATE TABLE schedules (
  id INTEGER PRIMARY KEY,
  cron TEXT NOT NULL,
  timezone TEXT NOT NULL,
  run_spec TEXT NOT NULL,  -- JSON: a POST /api/v1/runs body
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  last_fired_at INTEGER,
  created_at INTEGER NOT NULL
);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  spec TEXT NOT NULL,  -- JSON: the run as requested
  serial TEXT NOT NULL,
  -- ro.product.model when the run was queued: baselines and history compare like with like.
  device_model TEXT,
  package TEXT NOT NULL,
  activity TEXT,
  mode TEXT NOT NULL CHECK (mode IN ('cold', 'warm', 'hot')),
  iterations INTEGER NOT NULL CHECK (iterations > 0),
  status TEXT NOT NULL CHECK (status IN
      ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
  error TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  schedule_id INTEGER,  -- schedules.id, NULL for a run asked for by hand
  fingerprint TEXT,     -- ro.build.fingerprint at preflight
  preflight TEXT        -- JSON: what preflight found (battery, thermal, screen, app version)
);
-- GET /runs newest first, by device / package / status (created_at then the implicit rowid
-- give the keyset order); baselines and launch history go through runs_by_package.
CREATE INDEX runs_by_created ON runs (created_at);
CREATE INDEX runs_by_serial ON runs (serial, created_at);
CREATE INDEX runs_by_package ON runs (package, created_at);
CREATE INDEX runs_by_status ON runs (status, created_at);

-- One row per iteration, clustered by run: a run's launches are one contiguous b-tree range.
CREATE TABLE launches (
  run_id INTEGER NOT NULL,  -- runs.id
  iteration INTEGER NOT NULL,
  displayed_ms INTEGER,     -- logcat Displayed
  fully_drawn_ms INTEGER,   -- logcat Fully drawn
  total_time_ms INTEGER,    -- am start -W TotalTime
  wait_time_ms INTEGER,     -- am start -W WaitTime
  launch_state TEXT,        -- am start -W LaunchState as printed (COLD, WARM, HOT, ...)
  pid INTEGER,
  intent_at_ms INTEGER,     -- device boot clock: START u0 {...}
  fork_at_ms INTEGER,       -- device boot clock: /proc/<pid>/stat starttime
  displayed_at_ms INTEGER,  -- device boot clock: the Displayed line
  valid INTEGER NOT NULL DEFAULT 1 CHECK (valid IN (0, 1)),
  invalid_reason TEXT,
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;

-- One row per dump row, for the run's window. Rows of one run are written together, so the
-- rowid order is the dump's order.
CREATE TABLE looper_stats (
  run_id INTEGER NOT NULL,  -- runs.id
  work_source_uid TEXT NOT NULL,  -- as printed: "com.pkg/u0a123", "1000", "-1"
  package TEXT,             -- split out of work_source_uid where it has one
  uid INTEGER,              -- "u0a123" -> 10123; NULL for "-1"
  is_app INTEGER NOT NULL CHECK (is_app IN (0, 1)),  -- caused by the run's package
  thread_name TEXT,
  handler_class TEXT,
  message_name TEXT,
  is_interactive INTEGER,
  message_count INTEGER,
  recorded_message_count INTEGER,
  total_latency_micros INTEGER,
  max_latency_micros INTEGER,
  total_cpu_micros INTEGER,
  max_cpu_micros INTEGER,
  recorded_delay_message_count INTEGER,
  total_delay_millis INTEGER,
  max_delay_millis INTEGER,
  exception_count INTEGER,
  extra TEXT                -- JSON object of columns this version does not know, or NULL
);
CREATE INDEX looper_stats_by_run ON looper_stats (run_id);

CREATE TABLE proc_samples (
  run_id INTEGER NOT NULL,  -- runs.id
  t_ms INTEGER NOT NULL,    -- since the run started
  pid INTEGER NOT NULL,
  utime INTEGER NOT NULL,   -- clock ticks, cumulative
  stime INTEGER NOT NULL,
  cpu_pct REAL,             -- over the interval before this sample; NULL for the first
  rss_kb INTEGER NOT NULL,
  num_threads INTEGER NOT NULL
);
CREATE INDEX proc_samples_by_run ON proc_samples (run_id, t_ms);
