-- 0013_iteration_memory: the PostgreSQL form of schema/0013_iteration_memory.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

CREATE TABLE iteration_memory (
  run_id BIGINT NOT NULL,
  iteration BIGINT NOT NULL,
  pid BIGINT NOT NULL,
  total_pss_kb BIGINT,
  total_rss_kb BIGINT,
  total_swap_pss_kb BIGINT,
  java_heap_kb BIGINT,
  native_heap_kb BIGINT,
  code_kb BIGINT,
  stack_kb BIGINT,
  graphics_kb BIGINT,
  private_other_kb BIGINT,
  system_kb BIGINT,
  views BIGINT,
  view_root_impl BIGINT,
  app_contexts BIGINT,
  activities BIGINT,
  assets BIGINT,
  asset_managers BIGINT,
  local_binders BIGINT,
  proxy_binders BIGINT,
  death_recipients BIGINT,
  webviews BIGINT,
  PRIMARY KEY (run_id, iteration)
);
