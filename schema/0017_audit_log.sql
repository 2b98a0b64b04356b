-- 0017_audit_log: who did what through the API (issue 17 §3): every request that changed
-- something (POST, PUT, DELETE answered 2xx) — a run posted or cancelled, a schedule made or
-- deleted, a build added or deleted, a device's labels, an alert resolved — with the name of
-- the token it carried, committed before the answer is sent.
--
-- caller: the token's name (`name:token` lines of the token file; a file of one bare token names
-- it "token"); "local" when the daemon has no token (then it answers to loopback only).
-- remote: the client's address. path: without the query. location: what the request made (its
-- Location header: /api/v1/runs/42), or NULL.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  caller TEXT NOT NULL,
  remote TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL,
  location TEXT
);
CREATE INDEX audit_log_by_at ON audit_log (at);
