-- 0006_launch_builds: which build each launch measured (issue 14 §4). A run that names a build
-- measures it in every launch; a side-by-side run measures two, in alternating blocks, and its
-- verdict compares the launches of one with those of the other. NULL: the run named no build
-- (whatever the phone had installed). No foreign key: a build pruned by retention leaves its
-- runs' history whole, as the runs' spec keeps its id.
ALTER TABLE launches ADD COLUMN build_id INTEGER;
