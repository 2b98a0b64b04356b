#include "orchestrator/lab/calibration_report.h"

#include <map>
#include <tuple>
#include <utility>

#include "orchestrator/lab/run_reports.h"
#include "orchestrator/lab/side_by_side_launches.h"
#include "store/reader.h"

namespace droidlab::orchestrator {

namespace {

// On the reader thread: the runs, their launches split into halves, the pairs of each series
// calibrated.
store::StoreResult<std::vector<CalibrationGroup>> ReadCalibrations(
    store::Reader& r, const std::string& package, const std::optional<std::string>& device_model,
    const std::optional<std::string>& mode) {
  auto runs = r.CalibrationRuns(package, device_model, mode, kCalibrationRunsRead);
  if (!runs) return runs.error();
  using Key = std::tuple<std::optional<std::string>, std::string>;
  std::map<Key, std::pair<CalibrationGroup, std::vector<analysis::AaPair>>> groups;
  for (const store::Run& run : *runs) {
    const std::optional<RunSpec> spec = SideBySideSpec(run);
    if (!spec || !spec->calibration) continue;
    auto launches = r.ListLaunches(run.id);
    if (!launches) return launches.error();
    SplitLaunches halves = SplitByArm(*spec, std::move(*launches));
    auto& [group, pairs] = groups[Key{run.device_model, run.mode}];
    group.device_model = run.device_model;
    group.mode = run.mode;
    group.run_ids.push_back(run.id);
    pairs.push_back(
        analysis::AaPair{ValidDisplayedMs(halves.baseline), ValidDisplayedMs(halves.candidate)});
  }
  std::vector<CalibrationGroup> out;
  for (auto& [key, entry] : groups) {
    entry.first.calibration = analysis::CalibrateNoiseFloor(entry.second);
    out.push_back(std::move(entry.first));
  }
  return out;
}

}  // namespace

boost::asio::awaitable<store::StoreResult<std::vector<CalibrationGroup>>> CalibrationsOf(
    store::AsyncStore store, std::string package, std::optional<std::string> device_model,
    std::optional<std::string> mode) {
  auto reading = store.Read([package = std::move(package), device_model = std::move(device_model),
                             mode = std::move(mode)](store::Reader& r) {
    return ReadCalibrations(r, package, device_model, mode);
  });
  co_return co_await std::move(reading);
}

boost::asio::awaitable<store::StoreResult<std::optional<double>>> CalibratedFloor(
    store::AsyncStore store, std::string package, std::optional<std::string> device_model,
    std::string mode) {
  auto reading = CalibrationsOf(store, std::move(package), device_model, std::move(mode));
  auto groups = co_await std::move(reading);
  if (!groups) co_return groups.error();
  for (const CalibrationGroup& g : *groups) {
    // A model-less run's series is the model-less calibrations' (device_model IS NULL).
    if (g.device_model == device_model) co_return g.calibration.floor_fraction;
  }
  co_return std::optional<double>();
}

}  // namespace droidlab::orchestrator
