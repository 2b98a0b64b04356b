#include "orchestrator/run/frames_collector.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/frames.h"
#include "orchestrator/run/device_commands.h"
#include "parsers/surfaceflinger_latency.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Where each of `names` is in `block` (looked up once per block, not per value).
std::vector<std::optional<size_t>> ColumnsOf(const parsers::GfxinfoFramestats& block,
                                             const std::vector<std::string>& names) {
  std::vector<std::optional<size_t>> at;
  at.reserve(names.size());
  for (const std::string& name : names) at.push_back(block.Column(name));
  return at;
}

// A row's value at `column`, or 0 when its block has no such column (a version without it).
int64_t ValueAt(parsers::GfxinfoRows::Row row, const std::optional<size_t>& column) {
  return column && *column < row.size() ? row[*column] : 0;
}

std::optional<int64_t> AsInt64(const std::optional<uint64_t>& v) {
  if (!v) return std::nullopt;
  return static_cast<int64_t>(*v);
}

}  // namespace

BasicResult<store::IterationFrames, std::string> IterationFramesOf(const parsers::Gfxinfo& dump,
                                                                   std::string_view package,
                                                                   int64_t run_id,
                                                                   int64_t iteration,
                                                                   int64_t display_period_ns) {
  const parsers::GfxinfoProfile* process = nullptr;
  for (const parsers::GfxinfoProfile& p : dump.profiles) {
    if (p.package && *p.package == package) {
      process = &p;
      break;
    }
  }
  if (!process) return std::string("gfxinfo has no profile data of ") + std::string(package);

  store::IterationFrames out;
  out.run_id = run_id;
  out.iteration = iteration;
  out.total_frames = static_cast<int64_t>(process->total_frames);
  out.janky_frames = AsInt64(process->janky_frames);
  out.gfx_p50_ms = process->percentiles_ms[0];
  out.gfx_p90_ms = process->percentiles_ms[1];
  out.gfx_p95_ms = process->percentiles_ms[2];
  out.gfx_p99_ms = process->percentiles_ms[3];

  // Every block of the same process (its windows, on Android 10+), rows under the first
  // block's header.
  std::vector<analysis::FrameTiming> timings;
  json columns = json::array();
  json rows = json::array();
  const parsers::GfxinfoFramestats* header = nullptr;
  for (const parsers::GfxinfoProfile& p : dump.profiles) {
    if (!p.package || *p.package != package || p.pid != process->pid) continue;
    for (const parsers::GfxinfoFramestats& block : p.framestats) {
      if (!header) {
        header = &block;
        columns = block.columns;
      }
      static const std::vector<std::string> kTiming = {"Flags", "IntendedVsync", "FrameCompleted",
                                                       "FrameInterval"};
      const auto timing = ColumnsOf(block, kTiming);
      const auto kept = ColumnsOf(block, header->columns);
      for (const parsers::GfxinfoRows::Row row : block.rows) {
        analysis::FrameTiming t;
        t.flags = ValueAt(row, timing[0]);
        t.intended_vsync_ns = ValueAt(row, timing[1]);
        t.frame_completed_ns = ValueAt(row, timing[2]);
        t.frame_interval_ns = ValueAt(row, timing[3]);
        timings.push_back(t);
        json values = json::array();
        for (const auto& column : kept) values.push_back(ValueAt(row, column));
        rows.push_back(std::move(values));
      }
    }
  }
  const analysis::FrameAnalysis a = analysis::AnalyzeFrames(timings, display_period_ns);
  out.frame_rows = static_cast<int64_t>(a.rows);
  out.counted = static_cast<int64_t>(a.counted);
  out.refresh_period_ns = a.refresh_period_ns;
  out.p50_ms = a.p50_ms;
  out.p90_ms = a.p90_ms;
  out.p95_ms = a.p95_ms;
  out.p99_ms = a.p99_ms;
  out.over_16_7ms = static_cast<int64_t>(a.over_16_7ms);
  out.over_33ms = static_cast<int64_t>(a.over_33ms);
  out.over_50ms = static_cast<int64_t>(a.over_50ms);
  out.over_1_vsync = static_cast<int64_t>(a.over_1_vsync);
  out.over_2_vsyncs = static_cast<int64_t>(a.over_2_vsyncs);
  out.over_3_vsyncs = static_cast<int64_t>(a.over_3_vsyncs);
  out.matrix_normal = static_cast<int64_t>(a.matrix.normal);
  out.matrix_middle = static_cast<int64_t>(a.matrix.middle);
  out.matrix_high = static_cast<int64_t>(a.matrix.high);
  out.matrix_frozen = static_cast<int64_t>(a.matrix.frozen);
  out.dropped_frames = a.matrix.dropped_frames;
  out.jank = static_cast<int64_t>(a.perfdog.jank);
  out.big_jank = static_cast<int64_t>(a.perfdog.big_jank);
  out.columns_json = columns.dump();
  out.rows_json = rows.dump();
  return out;
}

CommandResult<BasicResult<store::IterationFrames, std::string>> FramesOfDump(
    const CommandResult<adb::ShellResult>& read, std::string_view package, int64_t run_id,
    int64_t iteration, int64_t display_period_ns) {
  using Frames = BasicResult<store::IterationFrames, std::string>;
  if (!read) {
    if (read.error().device_lost() || read.error().cancelled()) return read.error();
    return Frames(std::string("dumpsys gfxinfo: ") + read.error().message);
  }
  auto dump = parsers::ParseGfxinfo(read->out);
  if (!dump) return Frames(std::string("dumpsys gfxinfo: ") + dump.error().message);
  return IterationFramesOf(*dump, package, run_id, iteration, display_period_ns);
}

asio::awaitable<CommandResult<std::optional<int64_t>>> ReadDisplayPeriod(
    DeviceShell& shell, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = DumpsysSurfaceFlingerLatency();
  auto reading = shell.Run(std::move(argv), adb::DeadlineAfter(timeout), false);
  auto read = co_await std::move(reading);
  if (!read) {
    if (read.error().device_lost() || read.error().cancelled()) co_return read.error();
    co_return std::optional<int64_t>();
  }
  auto period = parsers::ParseVsyncPeriodNs(read->out);
  if (!period) co_return std::optional<int64_t>();
  co_return std::optional<int64_t>(*period);
}

}  // namespace droidlab::orchestrator
