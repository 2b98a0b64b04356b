// The alerts a run's end raises (issue 15 §4): once a run has succeeded and its series point is
// stored, its verdict against its history (lab/history_verdict.h) and the series' change points
// up to it are read; a regression verdict raises a "regression" alert (unless the series' run
// before it was a regression too: the same regression, still there), and a change point that
// has just settled (this run is the settle_runs-th usable run after it) raises a "change_point"
// alert — unless its first run was itself judged a regression, which alerted already: one
// alert per regression. An A/A history raises nothing unless its verdicts do.
//
// A regression also ends by itself: when a change point that lowers the series settles, each
// open alert of that series (package, model, mode, metric) for a slowdown before it is resolved
// if the level after the change is back below the midpoint of that slowdown — closer to where
// the series was before it than to where the slowdown took it. A faster change that recovers
// less leaves the alert open: the app is still slower than it was.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "orchestrator/alerts/alert_center.h"
#include "orchestrator/lab/history_verdict.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

// Pure: the alert of a regression verdict.
Alert RegressionAlert(const RunVerdict& verdict);
// Pure: the alert of a change point of `verdict`'s series.
Alert ChangePointAlert(const RunVerdict& verdict, const analysis::ChangePoint& change);

// Pure: the ids among `open` (open alerts of any series) that the settled change point `change`
// of `verdict`'s series resolves (see above).
std::vector<int64_t> AlertsRecoveredBy(const RunVerdict& verdict,
                                       const analysis::ChangePoint& change,
                                       std::span<const store::Alert> open);

// The alerts `run_id`'s end raises, raised on `alerts`, and those it resolves; a failure is
// logged, never the run's.
boost::asio::awaitable<void> RaiseHistoryAlerts(store::AsyncStore store, AlertCenter& alerts,
                                                int64_t run_id,
                                                std::function<void(std::string_view)> log);

}  // namespace droidlab::orchestrator
