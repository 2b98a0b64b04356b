-- 0010_alerts: alerts (issue 15 §4) and their delivery to webhooks. An alert says what was found
-- (a settled change point, a regression verdict), where (package, phone model, launch mode,
-- metric), how much (Δ, Δ % and its confidence interval), since which run and build, and what
-- else changed there (explained_by). Raising one stores it with one delivery per configured
-- webhook in the same transaction; the deliveries are the queue: a daemon that restarts finds
-- the pending ones here and sends them (orchestrator/alerts/alert_center.h).
--
-- alerts.kind: 'change_point' | 'regression'; state: 'open' | 'resolved'.
-- alerts.explained_by: a JSON array of strings ('[]': nothing else changed).
CREATE TABLE alerts (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  package TEXT NOT NULL,
  model TEXT NOT NULL,
  mode TEXT NOT NULL,
  metric TEXT NOT NULL,
  delta REAL,
  delta_pct REAL,
  ci_low REAL,
  ci_high REAL,
  run_id INTEGER,        -- runs.id of the first run after the change (not enforced: retention)
  build_id INTEGER,      -- builds.id that run measured, when known
  version_code INTEGER,
  explained_by TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'open',
  created_at INTEGER NOT NULL,
  resolved_at INTEGER
);
-- GET /alerts?state=open, newest first; /metrics' open regressions.
CREATE INDEX alerts_by_state ON alerts (state, id);

-- One alert to one webhook. delivery_id is sent with every attempt (receivers dedupe on it);
-- status: 'pending' (next_attempt_at says when), 'delivered' (a 2xx), 'failed' (attempts used
-- up, or the webhook is no longer configured). The webhook's secret is never stored: it stays in
-- the config file, found again by url.
CREATE TABLE alert_deliveries (
  id INTEGER PRIMARY KEY,
  alert_id INTEGER NOT NULL,
  url TEXT NOT NULL,
  delivery_id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX alert_deliveries_by_alert ON alert_deliveries (alert_id, id);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (next_attempt_at, id)
  WHERE status = 'pending';

-- Every attempt: when, how long, the HTTP status (NULL when none came back) or the error.
CREATE TABLE alert_delivery_attempts (
  delivery_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  http_status INTEGER,
  error TEXT,
  PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;
