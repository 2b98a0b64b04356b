-- 0018_run_claims: the PostgreSQL form of schema/0018_run_claims.sql, which says what the
-- columns mean; only the types differ (schema/README.md).
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN lease_until BIGINT;
ALTER TABLE runs ADD COLUMN cancel_requested BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool_model TEXT;
ALTER TABLE runs ADD COLUMN pool_sdk BIGINT;

CREATE TABLE run_pool_labels (
  run_id BIGINT NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (run_id, label)
);

CREATE INDEX runs_unclaimed ON runs (id) WHERE status = 'queued' AND host IS NULL;
CREATE INDEX runs_by_host ON runs (host) WHERE host IS NOT NULL;

-- Events across hosts (issue 17 §2): every daemon LISTENs on droidlab_runs
-- (store/pg/run_changes.h); each insert of a run and each change of its status is announced at
-- its commit as "id<TAB>status<TAB>host<TAB>serial" (SQLite has one daemon: nothing to tell).
CREATE FUNCTION droidlab_run_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('droidlab_runs', concat_ws(E'\t', NEW.id, NEW.status,
                                               coalesce(NEW.host, ''), NEW.serial));
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_changed AFTER INSERT OR UPDATE OF status, host ON runs
  FOR EACH ROW EXECUTE FUNCTION droidlab_run_changed();
