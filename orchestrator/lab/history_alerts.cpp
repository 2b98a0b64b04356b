#include "orchestrator/lab/history_alerts.h"

#include <string>
#include <utility>

namespace droidlab::orchestrator {

namespace {

Alert Where(const RunVerdict& verdict, std::string kind) {
  Alert alert;
  alert.kind = std::move(kind);
  alert.package = verdict.run.package;
  alert.model = verdict.run.device_model.value_or("");
  alert.mode = verdict.run.mode;
  alert.metric = verdict.metric;
  return alert;
}

std::string VerdictName(const RunVerdict& verdict) {
  return std::string(analysis::HistoryVerdictName(verdict.judgement.verdict));
}

}  // namespace

Alert RegressionAlert(const RunVerdict& verdict) {
  const analysis::HistoryJudgement& j = verdict.judgement;
  Alert alert = Where(verdict, "regression");
  if (j.candidate_median && j.segment_median) alert.delta = *j.candidate_median - *j.segment_median;
  alert.delta_pct = j.delta_percent;
  if (j.delta_percent_ci) {
    alert.ci_low = j.delta_percent_ci->lower;
    alert.ci_high = j.delta_percent_ci->upper;
  }
  alert.run_id = verdict.run.id;
  alert.build_id = verdict.build_id;
  alert.version_code = verdict.version_code;
  return alert;
}

Alert ChangePointAlert(const RunVerdict& verdict, const analysis::ChangePoint& change) {
  Alert alert = Where(verdict, "change_point");
  alert.delta = change.delta;
  alert.delta_pct = change.delta_percent;
  alert.ci_low = change.delta_percent_ci.lower;
  alert.ci_high = change.delta_percent_ci.upper;
  alert.run_id = change.run_id;
  for (analysis::ChangeCause cause : change.explained_by) {
    alert.explained_by.emplace_back(analysis::ChangeCauseName(cause));
  }
  return alert;
}

boost::asio::awaitable<void> RaiseHistoryAlerts(store::AsyncStore store, AlertCenter& alerts,
                                                int64_t run_id,
                                                std::function<void(std::string_view)> log) {
  auto judging = VerdictOf(store, run_id);
  auto verdict = co_await std::move(judging);
  if (!verdict) {
    log("run " + std::to_string(run_id) + ": no verdict for alerts: " + verdict.error().message);
    co_return;
  }
  std::vector<Alert> raise;
  if (verdict->judgement.verdict == analysis::HistoryVerdict::kRegression) {
    // A regression appears once: the nights after it, still slow until the change point is
    // found and becomes their segment, are the same regression.
    bool already = false;
    if (verdict->previous_run_id) {
      auto judging_previous = VerdictOf(store, *verdict->previous_run_id);
      auto previous = co_await std::move(judging_previous);
      already = previous && previous->judgement.verdict == analysis::HistoryVerdict::kRegression;
    }
    if (!already) raise.push_back(RegressionAlert(*verdict));
  }
  const std::size_t settle = analysis::HistoryOptions{}.settle_runs;
  for (const analysis::ChangePoint& change : verdict->change_points) {
    if (!change.settled || change.runs_after != settle) continue;  // not settled just now
    auto judging_first = VerdictOf(store, change.run_id);
    auto first = co_await std::move(judging_first);
    if (first && first->judgement.verdict == analysis::HistoryVerdict::kRegression) continue;
    raise.push_back(ChangePointAlert(*verdict, change));
  }
  for (Alert& alert : raise) {
    const std::string what =
        alert.kind + " of " + alert.package + " at run " + std::to_string(alert.run_id.value_or(0));
    auto raising = alerts.Raise(std::move(alert));
    auto raised = co_await std::move(raising);
    if (!raised) {
      log("run " + std::to_string(run_id) + ": alert (" + what +
          ") not stored: " + raised.error().message);
    } else {
      log("alert " + std::to_string(*raised) + ": " + what + " (" + VerdictName(*verdict) + ")");
    }
  }
}

}  // namespace droidlab::orchestrator
