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

std::vector<int64_t> AlertsRecoveredBy(const RunVerdict& verdict,
                                       const analysis::ChangePoint& change,
                                       std::span<const store::Alert> open) {
  std::vector<int64_t> ids;
  if (!(change.delta < 0) || !change.settled) return ids;
  const Alert series = Where(verdict, "");
  for (const store::Alert& alert : open) {
    if (alert.state != "open" || alert.package != series.package || alert.model != series.model ||
        alert.mode != series.mode || alert.metric != series.metric) {
      continue;
    }
    // A slowdown whose level before it can be told (delta / delta % give it) and that began
    // before this change.
    if (!alert.delta || !alert.delta_pct || !(*alert.delta > 0) || !(*alert.delta_pct > 0)) continue;
    if (!alert.run_id || *alert.run_id >= change.run_id) continue;
    const double before = *alert.delta * 100.0 / *alert.delta_pct;
    const double midpoint = before + *alert.delta / 2;
    if (change.median_after < midpoint) ids.push_back(alert.id);
  }
  return ids;
}

namespace {

// Resolves the open alerts of the verdict's series that the change points settled at this run
// recover from.
boost::asio::awaitable<void> ResolveRecovered(store::AsyncStore store, AlertCenter& alerts,
                                              RunVerdict verdict,
                                              std::function<void(std::string_view)> log) {
  const std::size_t settle = analysis::HistoryOptions{}.settle_runs;
  std::vector<const analysis::ChangePoint*> settled_now;
  for (const analysis::ChangePoint& change : verdict.change_points) {
    if (change.settled && change.runs_after == settle && change.delta < 0) {
      settled_now.push_back(&change);
    }
  }
  if (settled_now.empty()) co_return;
  store::AlertQuery query;
  query.state = "open";
  query.limit = 1000;
  auto listing = store.ListAlerts(std::move(query));
  auto page = co_await std::move(listing);
  if (!page) {
    log("run " + std::to_string(verdict.run.id) + ": open alerts not read: " + page.error().message);
    co_return;
  }
  for (const analysis::ChangePoint* change : settled_now) {
    for (int64_t id : AlertsRecoveredBy(verdict, *change, page->alerts)) {
      auto resolving = alerts.Resolve(id);
      auto resolved = co_await std::move(resolving);
      if (resolved) {
        log("alert " + std::to_string(id) + " resolved: " + verdict.run.package +
            " recovered at run " + std::to_string(change->run_id));
      } else if (resolved.error().code != store::StoreErrorCode::kNotFound) {
        log("alert " + std::to_string(id) + ": not resolved: " + resolved.error().message);
      }
    }
  }
}

}  // namespace

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
  auto resolving = ResolveRecovered(store, alerts, *verdict, log);
  co_await std::move(resolving);
}

}  // namespace droidlab::orchestrator
