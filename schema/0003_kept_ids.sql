-- 0003_kept_ids: a run id is never given twice.
-- runs.id is an INTEGER PRIMARY KEY without AUTOINCREMENT, so SQLite numbers a new run
-- max(id) + 1. Once retention has deleted the newest runs (every run finished and older than
-- max_age_days), the next run would take the id of a deleted one, and a script or dashboard that
-- kept that id would read another run's results as its own. The highest run id ever stored is
-- kept here by a trigger on each delete, and a new run is numbered above both it and max(id)
-- (store/sql/runs.h, kInsertRun). Rebuilding runs with AUTOINCREMENT would do the same, but it
-- means copying the largest table of an existing lab, inside the start-up migration.
CREATE TABLE id_high_water (
  name TEXT PRIMARY KEY,  -- the table whose ids it keeps
  id INTEGER NOT NULL     -- the highest id that table ever held
) WITHOUT ROWID;
INSERT INTO id_high_water (name, id) SELECT 'runs', coalesce(max(id), 0) FROM runs;

CREATE TRIGGER runs_keep_high_water AFTER DELETE ON runs
BEGIN
  UPDATE id_high_water SET id = max(id, OLD.id) WHERE name = 'runs';
END;

-- Retention prunes a device's state history by age too (keeping each device's last change),
-- and paid restores: both by their time.
CREATE INDEX device_state_changes_by_time ON device_state_changes (changed_at);
CREATE INDEX device_restores_paid ON device_restores (paid_at) WHERE paid_at IS NOT NULL;
