-- 0018_run_claims: runs claimed by the host that measures them (issue 17 §2: several daemons on
-- one PostgreSQL database; on SQLite the one daemon claims every run it starts).
--
-- A queued run is claimed by one host (host, lease_until), never two: for a serial, by the host
-- whose adb server holds that phone; for a pool, by the first host with an idle phone that
-- matches. The host renews the lease of its runs on every heartbeat; a run whose lease ran out
-- was claimed by a host that died or lost the database: any daemon ends it `interrupted`, and a
-- pool run is queued again as a new run (claimed but not started: only released).
--
-- host: the claiming host's name (hosts.name), NULL while unclaimed. lease_until: ms since the
-- epoch. cancel_requested: 1 once a cancel was asked through a daemon that does not run it; its
-- host sees it at its next renewal. pool: 1 for a run of `{"pool": …}` (its serial is '' until
-- claimed, then the phone's, and device_model the phone's model); pool_model, pool_sdk and
-- run_pool_labels are what a phone must have to take it (NULL: anything).
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN lease_until INTEGER;
ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool_model TEXT;
ALTER TABLE runs ADD COLUMN pool_sdk INTEGER;

CREATE TABLE run_pool_labels (
  run_id INTEGER NOT NULL,  -- runs.id
  label TEXT NOT NULL,
  PRIMARY KEY (run_id, label)
) WITHOUT ROWID;

-- What a claim scans, oldest first: the queued runs no host holds.
CREATE INDEX runs_unclaimed ON runs (id) WHERE status = 'queued' AND host IS NULL;
-- What a heartbeat renews and a lease check reads: the runs a host holds.
CREATE INDEX runs_by_host ON runs (host) WHERE host IS NOT NULL;

-- PostgreSQL's form also announces each change of a run to every daemon (NOTIFY, a trigger):
-- SQLite has one daemon, which tells its own listeners.
