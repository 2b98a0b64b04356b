#include "store/pg/measurement_writes.h"

#include <optional>
#include <string>

#include "store/pg/sql/iteration_faults.h"
#include "store/pg/sql/iteration_frames.h"
#include "store/pg/sql/iteration_memory.h"
#include "store/pg/sql/run_summaries.h"

namespace droidlab::store::pg::writes {

namespace {

Status Run(Connection& connection, const char* sql, const Params& params, std::string_view what) {
  auto done = connection.Query(sql, params, what);
  if (!done) return done.error();
  return OkStatus();
}

// The stack as one text, a line each (the reader splits it at '\n'), as SQLite keeps it.
std::string JoinedStack(const std::vector<std::string>& stack) {
  std::string joined;
  for (const std::string& line : stack) {
    if (!joined.empty()) joined += '\n';
    joined += line;
  }
  return joined;
}

}  // namespace

Status InsertIterationFrames(Connection& connection, const std::vector<IterationFrames>& frames) {
  for (const IterationFrames& f : frames) {
    Params p;
    p.Int64(f.run_id).Int64(f.iteration);
    p.Optional(f.total_frames).Optional(f.janky_frames);
    p.Optional(f.gfx_p50_ms).Optional(f.gfx_p90_ms).Optional(f.gfx_p95_ms).Optional(f.gfx_p99_ms);
    p.Int64(f.frame_rows).Int64(f.counted).Int64(f.refresh_period_ns);
    p.Optional(f.p50_ms).Optional(f.p90_ms).Optional(f.p95_ms).Optional(f.p99_ms);
    p.Int64(f.over_16_7ms).Int64(f.over_33ms).Int64(f.over_50ms);
    p.Int64(f.matrix_normal).Int64(f.matrix_middle).Int64(f.matrix_high).Int64(f.matrix_frozen);
    p.Int64(f.dropped_frames).Int64(f.jank).Int64(f.big_jank);
    p.Text(f.columns_json).Text(f.rows_json);
    p.Optional(f.over_1_vsync).Optional(f.over_2_vsyncs).Optional(f.over_3_vsyncs);
    if (Status stored = Run(connection, sql::kInsertIterationFrames, p,
                            "storing the frames of iteration " + std::to_string(f.iteration) +
                                " of run " + std::to_string(f.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertIterationFaults(Connection& connection, const std::vector<IterationFault>& faults) {
  for (const IterationFault& f : faults) {
    Params p;
    p.Int64(f.run_id).Int64(f.iteration).Int64(f.seq).Text(f.kind).Text(f.time);
    p.Optional(f.at_ms).Optional(f.pid).Text(f.process_name).Text(f.reason);
    p.Text(JoinedStack(f.stack)).Optional(f.duration_ms);
    if (Status stored = Run(connection, sql::kInsertIterationFault, p,
                            "storing a fault of iteration " + std::to_string(f.iteration) +
                                " of run " + std::to_string(f.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertLateIterationFaults(Connection& connection, int64_t run_id, int64_t iteration,
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
  if (Status stored = InsertIterationFaults(connection, faults); !stored) return stored;
  Params p;
  p.Int64(run_id).Int64(iteration).Text(invalid_reason);
  return Run(connection, sql::kInvalidateLaunchOfLateFault, p,
             "marking iteration " + std::to_string(iteration) + " of run " +
                 std::to_string(run_id) + " invalid");
}

Status InsertIterationMemory(Connection& connection, const std::vector<IterationMemory>& memory) {
  for (const IterationMemory& m : memory) {
    Params p;
    p.Int64(m.run_id).Int64(m.iteration).Int64(m.pid);
    for (const std::optional<int64_t>* v :
         {&m.total_pss_kb,     &m.total_rss_kb,   &m.total_swap_pss_kb,
          &m.java_heap_kb,     &m.native_heap_kb, &m.code_kb,
          &m.stack_kb,         &m.graphics_kb,    &m.private_other_kb,
          &m.system_kb,        &m.views,          &m.view_root_impl,
          &m.app_contexts,     &m.activities,     &m.assets,
          &m.asset_managers,   &m.local_binders,  &m.proxy_binders,
          &m.death_recipients, &m.webviews}) {
      p.Optional(*v);
    }
    if (Status stored = Run(connection, sql::kInsertIterationMemory, p,
                            "storing the memory of iteration " + std::to_string(m.iteration) +
                                " of run " + std::to_string(m.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

Status InsertRunSummaries(Connection& connection, const std::vector<RunSummary>& summaries) {
  for (const RunSummary& s : summaries) {
    Params p;
    p.Int64(s.run_id).Text(s.metric).Int64(s.count);
    p.Optional(s.median).Optional(s.p90).Optional(s.ci_low).Optional(s.ci_high);
    p.Optional(s.build_id).Optional(s.version_code).Optional(s.fingerprint).Optional(s.compilation);
    p.Optional(s.hot_launches);
    if (Status stored =
            Run(connection, sql::kInsertRunSummary, p,
                "storing the " + s.metric + " summary of run " + std::to_string(s.run_id));
        !stored) {
      return stored;
    }
  }
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
