-- 0013_iteration_memory: the memory of each iteration (issue 16 §5): what `dumpsys meminfo PKG`
-- printed at the iteration's end (after the launch, its scenario and its frames), for the app's
-- first process. One row per (run, iteration); an iteration whose read failed (no process: the
-- app crashed; a timeout) has none.
--
-- In KiB, as printed (parsers/meminfo.h): total_pss_kb ("TOTAL PSS:" on 11+, "TOTAL:" before,
-- the table's TOTAL row before Android 6), total_rss_kb ("TOTAL RSS:", 11+), total_swap_pss_kb
-- ("TOTAL SWAP PSS:"), and the App Summary's Pss(KB) column (Android 6+). The rest are the
-- Objects section's counts (ActivityThread.dumpMemInfoTable: Views, ViewRootImpl, AppContexts,
-- Activities, Assets, AssetManagers, Local/Proxy Binders, Death Recipients, WebViews). NULL
-- where the version prints none.
--
-- No foreign key (see 0001); retention deletes a run's memory with its launches.
CREATE TABLE iteration_memory (
  run_id INTEGER NOT NULL,  -- runs.id
  iteration INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  total_pss_kb INTEGER,
  total_rss_kb INTEGER,
  total_swap_pss_kb INTEGER,
  java_heap_kb INTEGER,
  native_heap_kb INTEGER,
  code_kb INTEGER,
  stack_kb INTEGER,
  graphics_kb INTEGER,
  private_other_kb INTEGER,
  system_kb INTEGER,
  views INTEGER,
  view_root_impl INTEGER,
  app_contexts INTEGER,
  activities INTEGER,
  assets INTEGER,
  asset_managers INTEGER,
  local_binders INTEGER,
  proxy_binders INTEGER,
  death_recipients INTEGER,
  webviews INTEGER,
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;
