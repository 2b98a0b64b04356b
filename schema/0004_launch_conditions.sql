-- 0004_launch_conditions: what each launch was measured in (issue 14 §3).
-- warmup: one of the run's first "warmup" iterations, measured like the others and left out of
-- every statistic (summaries, comparisons, history, /metrics). The conditions are read just
-- before the launch: the thermal status as `dumpsys thermalservice` names it ("none", "light",
-- …; NULL where the phone has no thermal service, Android 9 and older) and the battery
-- temperature from `dumpsys battery` in tenths of °C; cooldown_wait_ms is how long droidlab
-- waited for the phone to cool down before it (0: it was cool already).
ALTER TABLE launches ADD COLUMN warmup INTEGER NOT NULL DEFAULT 0;
ALTER TABLE launches ADD COLUMN thermal_status TEXT;
ALTER TABLE launches ADD COLUMN battery_temp_tenths_c INTEGER;
ALTER TABLE launches ADD COLUMN cooldown_wait_ms INTEGER;
