// The noise floor learnt per package × device model × mode (issue 15 §3): every succeeded
// calibration run (an A/A of one build, "kind": "calibration" in the spec) gives one pair — its
// first half against its second, split by the run's plan — and analysis::CalibrateNoiseFloor
// turns the pairs of one series into a floor and the false-alarm rate the verdict procedure
// shows on them. The history verdict uses the floor where one exists (the fixed 5 % elsewhere),
// and GET /api/v1/calibration shows it all.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/change_points.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

// One series' calibration: its runs and what the analysis learnt from them.
struct CalibrationGroup {
  std::optional<std::string> device_model;
  std::string mode;
  std::vector<int64_t> run_ids;  // the calibration runs, newest first
  analysis::Calibration calibration;
};

// The newest calibration runs a series learns from: a floor follows the phones as they age.
inline constexpr int kCalibrationRunsRead = 500;

// The calibrations of `package`, one per device model × mode that has calibration runs (only
// `device_model` / `mode` when given), ordered by model then mode. Read and computed on a reader
// thread of the store.
boost::asio::awaitable<store::StoreResult<std::vector<CalibrationGroup>>> CalibrationsOf(
    store::AsyncStore store, std::string package, std::optional<std::string> device_model,
    std::optional<std::string> mode);

// The floor a verdict on `package` × `device_model` × `mode` uses: the calibration's, or nullopt
// (then the fixed 5 %) when that series has fewer pairs than a floor needs.
boost::asio::awaitable<store::StoreResult<std::optional<double>>> CalibratedFloor(
    store::AsyncStore store, std::string package, std::optional<std::string> device_model,
    std::string mode);

}  // namespace droidlab::orchestrator
