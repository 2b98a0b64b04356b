-- 0020_run_summary_conditions: how many of a run's counted launches were measured hotter than
-- the run's own limits (a thermal status above its max_thermal, or a battery above its
-- max_battery_temp_c: orchestrator/lab/comparability.h, the same test /compare's "conditions
-- out of range" makes), kept with each of the run's summaries. A run with more than a quarter of
-- them hot is out of range for its series' history: left out of the segments a change point and
-- a verdict judge against (issue 15 §2's "conditions"; orchestrator/lab/history_verdict.h says
-- why a quarter). NULL: summarised before this migration, not known.
ALTER TABLE run_summaries ADD COLUMN hot_launches INTEGER;
