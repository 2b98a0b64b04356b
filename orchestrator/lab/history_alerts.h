// The alerts a run's end raises (issue 15 §4): once a run has succeeded and its series point is
// stored, its verdict against its history (lab/history_verdict.h) and the series' change points
// up to it are read; a regression verdict raises a "regression" alert (unless the series' run
// before it was a regression too: the same regression, still there), and a change point that
// has just settled (this run is the settle_runs-th usable run after it) raises a "change_point"
// alert — unless its first run was itself judged a regression, which alerted already: one
// alert per regression. An A/A history raises nothing unless its verdicts do.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
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

// The alerts `run_id`'s end raises, raised on `alerts`; a failure is logged, never the run's.
boost::asio::awaitable<void> RaiseHistoryAlerts(store::AsyncStore store, AlertCenter& alerts,
                                                int64_t run_id,
                                                std::function<void(std::string_view)> log);

}  // namespace droidlab::orchestrator
