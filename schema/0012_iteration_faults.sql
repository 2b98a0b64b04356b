-- 0012_iteration_faults: the app faults of each iteration (issue 16 §3): the ANRs, Java crashes
-- and native crashes of the run's package (its process or one of its "pkg:name" processes) that
-- the run's logcat stream carried between the iteration's start and its end, as
-- parsers/logcat_faults.h reads them (ActivityManager's "ANR in", AndroidRuntime's FATAL
-- EXCEPTION, debuggerd's tombstone header, or am_anr / am_crash when only the events buffer had
-- the fault). An iteration with one is invalid: its launch is counted in no statistic.
--
-- seq orders an iteration's faults as they came (from 0). kind is "anr", "crash" or
-- "native_crash". time is the first line's time as logcat printed it; at_ms that time on the
-- boot clock, as the launches' times (NULL when it could not be read). reason: the ANR's
-- "Reason:", the exception line, the tombstone's "signal …" line. stack: the first lines of the
-- trace (at most 20), joined by newlines. duration_ms is NULL for these kinds (slow messages
-- carry one).
--
-- No foreign key (see 0001); retention deletes a run's faults with its launches.
CREATE TABLE iteration_faults (
  run_id INTEGER NOT NULL,  -- runs.id
  iteration INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  time TEXT NOT NULL,
  at_ms INTEGER,
  pid INTEGER,
  process_name TEXT NOT NULL,
  reason TEXT NOT NULL,
  stack TEXT NOT NULL,
  duration_ms INTEGER,
  PRIMARY KEY (run_id, iteration, seq)
) WITHOUT ROWID;
