-- 0003_kept_ids: the PostgreSQL form of schema/0003_kept_ids.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

-- runs.id is an identity here: its sequence never gives an id twice, retention or not, and
-- hosts inserting at once do not collide as max(id) + 1 would. The table and its trigger are
-- kept so that both databases hold the same tables and the same facts.
CREATE TABLE id_high_water (
  name TEXT PRIMARY KEY,
  id BIGINT NOT NULL
);
INSERT INTO id_high_water (name, id) SELECT 'runs', coalesce(max(id), 0) FROM runs;

CREATE FUNCTION runs_keep_high_water() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE id_high_water SET id = greatest(id, OLD.id) WHERE name = 'runs';
  RETURN OLD;
END
$$;
CREATE TRIGGER runs_keep_high_water AFTER DELETE ON runs
  FOR EACH ROW EXECUTE FUNCTION runs_keep_high_water();

CREATE INDEX device_state_changes_by_time ON device_state_changes (changed_at);
CREATE INDEX device_restores_paid ON device_restores (paid_at) WHERE paid_at IS NOT NULL;
