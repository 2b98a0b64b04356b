#include "store/run_writes.h"

#include <string>

#include "store/looper_stats_columns.h"
#include "store/run_ended.h"
#include "store/sql/iteration_faults.h"
#include "store/sql/iteration_frames.h"
#include "store/sql/iteration_memory.h"
#include "store/sql/launches.h"
#include "store/sql/looper_stats.h"
#include "store/sql/proc_samples.h"
#include "store/sql/run_summaries.h"
#include "store/sql/runs.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

StoreResult<int64_t> InsertRun(Database& db, const NewRun& run) {
  auto s = RunCached(
      db, sql::kInsertRun,
      [&](Statement& st) {
        st.BindText(1, run.spec_json);
        st.BindText(2, run.serial);
        st.BindOptional(3, run.device_model);
        st.BindText(4, run.package);
        st.BindOptional(5, run.activity);
        st.BindText(6, run.mode);
        st.BindInt64(7, run.iterations);
        st.BindInt64(8, run.created_at);
        st.BindOptional(9, run.schedule_id);
        st.BindBool(10, run.pool.has_value());
        if (run.pool) {
          st.BindOptional(11, run.pool->model);
          st.BindOptional(12, run.pool->sdk);
        }
      },
      "queuing a run of " + run.package + " on " + (run.pool ? "a pool" : run.serial));
  if (!s) return s.error();
  const int64_t id = db.LastInsertRowId();
  if (run.pool) {
    for (const std::string& label : run.pool->labels) {
      if (auto stored = RunCached(
              db, sql::kInsertPoolLabel,
              [&](Statement& st) {
                st.BindInt64(1, id);
                st.BindText(2, label);
              },
              "storing the pool labels of run " + std::to_string(id));
          !stored) {
        return stored.error();
      }
    }
  }
  return id;
}

Status UpdateRunStatus(Database& db, const RunStatusUpdate& update) {
  const std::string what =
      "setting run " + std::to_string(update.run_id) + " to " + RunStatusName(update.status);
  auto s = RunCached(
      db, sql::kUpdateRunStatus,
      [&](Statement& st) {
        st.BindInt64(1, update.run_id);
        st.BindText(2, RunStatusName(update.status));
        st.BindOptional(3, update.error);
        st.BindOptional(4, update.started_at);
        st.BindOptional(5, update.finished_at);
        st.BindOptional(6, update.fingerprint);
        st.BindOptional(7, update.preflight_json);
      },
      what);
  if (!s) return s;
  if (db.Changes() > 0) return OkStatus();
  std::optional<std::string> ended;
  auto read = EachRow(
      db, sql::kRunStatusOf, [&](Statement& st) { st.BindInt64(1, update.run_id); },
      [&](const Statement& row) { ended = row.ColumnString(0); }, what);
  if (!read) return read;
  return RunEndedOrMissing(what, ended);
}

StoreResult<int64_t> InterruptRunningRuns(Database& db, std::string_view reason, int64_t now_ms) {
  auto s = RunCached(
      db, sql::kInterruptRunning,
      [&](Statement& st) {
        st.BindText(1, reason);
        st.BindInt64(2, now_ms);
      },
      "marking running runs interrupted");
  if (!s) return s.error();
  return static_cast<int64_t>(db.Changes());
}

Status InsertLaunches(Database& db, const std::vector<Launch>& launches) {
  auto st = db.Cached(sql::kInsertLaunch);
  if (!st) return st.error();
  for (const Launch& l : launches) {
    (*st)->BindInt64(1, l.run_id);
    (*st)->BindInt64(2, l.iteration);
    (*st)->BindOptional(3, l.displayed_ms);
    (*st)->BindOptional(4, l.fully_drawn_ms);
    (*st)->BindOptional(5, l.total_time_ms);
    (*st)->BindOptional(6, l.wait_time_ms);
    (*st)->BindOptional(7, l.launch_state);
    (*st)->BindOptional(8, l.pid);
    (*st)->BindOptional(9, l.intent_at_ms);
    (*st)->BindOptional(10, l.fork_at_ms);
    (*st)->BindOptional(11, l.displayed_at_ms);
    (*st)->BindBool(12, l.valid);
    (*st)->BindOptional(13, l.invalid_reason);
    (*st)->BindBool(14, l.warmup);
    (*st)->BindOptional(15, l.thermal_status);
    (*st)->BindOptional(16, l.battery_temp_tenths_c);
    (*st)->BindOptional(17, l.cooldown_wait_ms);
    (*st)->BindOptional(18, l.build_id);
    if (auto s = (*st)->Run("storing launch " + std::to_string(l.iteration) + " of run " +
                            std::to_string(l.run_id));
        !s) {
      return s;
    }
    (*st)->Reset();
  }
  return OkStatus();
}

Status InsertLooperStats(Database& db, const std::vector<LooperStatsRow>& rows) {
  auto st = db.Cached(sql::kInsertLooperStats);
  if (!st) return st.error();
  Statement& s = **st;
  for (const LooperStatsRow& r : rows) {
    ForEachLooperRowColumn(
        [&](const auto& column, int index) { BindColumn(s, index + 1, r.*column.member); });
    if (s.StepOnce() == Statement::Step::kError) {
      return s.Error("storing looper stats of run " + std::to_string(r.run_id));
    }
    s.Reset();
  }
  return OkStatus();
}

Status InsertProcSamples(Database& db, const std::vector<ProcSample>& samples) {
  auto st = db.Cached(sql::kInsertProcSample);
  if (!st) return st.error();
  for (const ProcSample& p : samples) {
    (*st)->BindInt64(1, p.run_id);
    (*st)->BindInt64(2, p.t_ms);
    (*st)->BindInt64(3, p.pid);
    (*st)->BindInt64(4, p.utime);
    (*st)->BindInt64(5, p.stime);
    (*st)->BindOptional(6, p.cpu_pct);
    (*st)->BindInt64(7, p.rss_kb);
    (*st)->BindInt64(8, p.num_threads);
    if (auto s = (*st)->Run("storing a proc sample of run " + std::to_string(p.run_id)); !s) {
      return s;
    }
    (*st)->Reset();
  }
  return OkStatus();
}

Status InsertIterationFrames(Database& db, const std::vector<IterationFrames>& frames) {
  for (const IterationFrames& f : frames) {
    if (auto stored = RunCached(
            db, sql::kInsertIterationFrames,
            [&](Statement& st) {
              st.BindInt64(1, f.run_id);
              st.BindInt64(2, f.iteration);
              st.BindOptional(3, f.total_frames);
              st.BindOptional(4, f.janky_frames);
              st.BindOptional(5, f.gfx_p50_ms);
              st.BindOptional(6, f.gfx_p90_ms);
              st.BindOptional(7, f.gfx_p95_ms);
              st.BindOptional(8, f.gfx_p99_ms);
              st.BindInt64(9, f.frame_rows);
              st.BindInt64(10, f.counted);
              st.BindInt64(11, f.refresh_period_ns);
              st.BindOptional(12, f.p50_ms);
              st.BindOptional(13, f.p90_ms);
              st.BindOptional(14, f.p95_ms);
              st.BindOptional(15, f.p99_ms);
              st.BindInt64(16, f.over_16_7ms);
              st.BindInt64(17, f.over_33ms);
              st.BindInt64(18, f.over_50ms);
              st.BindInt64(19, f.matrix_normal);
              st.BindInt64(20, f.matrix_middle);
              st.BindInt64(21, f.matrix_high);
              st.BindInt64(22, f.matrix_frozen);
              st.BindInt64(23, f.dropped_frames);
              st.BindInt64(24, f.jank);
              st.BindInt64(25, f.big_jank);
              st.BindText(26, f.columns_json);
              st.BindText(27, f.rows_json);
              st.BindOptional(28, f.over_1_vsync);
              st.BindOptional(29, f.over_2_vsyncs);
              st.BindOptional(30, f.over_3_vsyncs);
            },
            "storing the frames of iteration " + std::to_string(f.iteration) + " of run " +
                std::to_string(f.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertIterationFaults(Database& db, const std::vector<IterationFault>& faults) {
  for (const IterationFault& f : faults) {
    // Kept alive until the statement ran: BindText does not copy.
    std::string stack;
    for (const std::string& line : f.stack) {
      if (!stack.empty()) stack += '\n';
      stack += line;
    }
    if (auto stored = RunCached(
            db, sql::kInsertIterationFault,
            [&](Statement& st) {
              st.BindInt64(1, f.run_id);
              st.BindInt64(2, f.iteration);
              st.BindInt64(3, f.seq);
              st.BindText(4, f.kind);
              st.BindText(5, f.time);
              st.BindOptional(6, f.at_ms);
              st.BindOptional(7, f.pid);
              st.BindText(8, f.process_name);
              st.BindText(9, f.reason);
              st.BindText(10, stack);
              st.BindOptional(11, f.duration_ms);
            },
            "storing a fault of iteration " + std::to_string(f.iteration) + " of run " +
                std::to_string(f.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertLateIterationFaults(Database& db, int64_t run_id, int64_t iteration,
                                 const std::vector<IterationFault>& faults,
                                 const std::string& invalid_reason) {
  for (const IterationFault& f : faults) {
    if (f.run_id != run_id || f.iteration != iteration) {
      return MakeStoreError(StoreErrorCode::kInvalidArgument,
                            "a late fault of iteration " + std::to_string(f.iteration) +
                                " of run " + std::to_string(f.run_id) + " filed under " +
                                std::to_string(iteration) + " of run " + std::to_string(run_id));
    }
  }
  if (Status stored = InsertIterationFaults(db, faults); !stored) return stored;
  return RunCached(
      db, sql::kInvalidateLaunch,
      [&](Statement& st) {
        st.BindInt64(1, run_id);
        st.BindInt64(2, iteration);
        st.BindText(3, invalid_reason);
      },
      "marking iteration " + std::to_string(iteration) + " of run " + std::to_string(run_id) +
          " invalid");
}

Status InsertIterationMemory(Database& db, const std::vector<IterationMemory>& memory) {
  for (const IterationMemory& m : memory) {
    if (auto stored = RunCached(
            db, sql::kInsertIterationMemory,
            [&](Statement& st) {
              int i = 1;
              st.BindInt64(i++, m.run_id);
              st.BindInt64(i++, m.iteration);
              st.BindInt64(i++, m.pid);
              for (const std::optional<int64_t>* v :
                   {&m.total_pss_kb, &m.total_rss_kb, &m.total_swap_pss_kb, &m.java_heap_kb,
                    &m.native_heap_kb, &m.code_kb, &m.stack_kb, &m.graphics_kb,
                    &m.private_other_kb, &m.system_kb, &m.views, &m.view_root_impl,
                    &m.app_contexts, &m.activities, &m.assets, &m.asset_managers,
                    &m.local_binders, &m.proxy_binders, &m.death_recipients, &m.webviews}) {
                st.BindOptional(i++, *v);
              }
            },
            "storing the memory of iteration " + std::to_string(m.iteration) + " of run " +
                std::to_string(m.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertRunSummaries(Database& db, const std::vector<RunSummary>& summaries) {
  for (const RunSummary& s : summaries) {
    if (auto stored = RunCached(
            db, sql::kInsertRunSummary,
            [&](Statement& st) {
              st.BindInt64(1, s.run_id);
              st.BindText(2, s.metric);
              st.BindInt64(3, s.count);
              st.BindOptional(4, s.median);
              st.BindOptional(5, s.p90);
              st.BindOptional(6, s.ci_low);
              st.BindOptional(7, s.ci_high);
              st.BindOptional(8, s.build_id);
              st.BindOptional(9, s.version_code);
              st.BindOptional(10, s.fingerprint);
              st.BindOptional(11, s.compilation);
              st.BindOptional(12, s.hot_launches);
            },
            "storing the " + s.metric + " summary of run " + std::to_string(s.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status DeleteRunAndRows(Database& db, int64_t run_id) {
  for (const char* statement :
       {sql::kDeleteLaunchesOfRun, sql::kDeleteLooperStatsOfRun, sql::kDeleteProcSamplesOfRun,
        sql::kDeleteRunSummariesOfRun, sql::kDeleteIterationFramesOfRun,
        sql::kDeleteIterationFaultsOfRun, sql::kDeleteIterationMemoryOfRun,
        sql::kDeletePoolLabelsOfRun, sql::kDeleteRun}) {
    if (auto s = RunCached(
            db, statement, [&](Statement& st) { st.BindInt64(1, run_id); },
            "deleting run " + std::to_string(run_id));
        !s) {
      return s;
    }
  }
  return OkStatus();
}

}  // namespace droidlab::store::writes
