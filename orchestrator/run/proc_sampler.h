// The proc sampler: `cat /proc/PID/stat` of the app every N ms through adb, for CPU %, rss and
// thread count over the run (DESIGN.md: fields 14, 15, 20, 24). The pid follows the app across
// cold launches: when the stat read fails (the process was killed) the sampler asks `pidof PKG`
// again, and the executor hands it the new pid from each Start proc line.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/run/device_clock.h"
#include "orchestrator/run/device_shell.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// One read of /proc/PID/stat.
struct ProcReading {
  int64_t pid = 0;
  int64_t host_ms = 0;  // host steady clock at the read: CPU % is over this wall time
  uint64_t utime = 0;
  uint64_t stime = 0;
  int64_t rss_pages = 0;
  int64_t num_threads = 0;
};

// A sample from a reading; cpu_pct from the previous reading of the same pid:
// Δ(utime+stime) / CLK_TCK over Δwall, in percent of one core (may exceed 100 on several cores).
store::ProcSample MakeProcSample(int64_t run_id, int64_t t_ms, const ProcReading& now,
                                 const std::optional<ProcReading>& previous,
                                 const DeviceClock& clock);

struct ProcSamplerState {
  std::optional<int64_t> pid;  // the executor sets it from a Start proc line
  std::optional<ProcReading> previous;
  std::vector<store::ProcSample> samples;
  std::optional<std::string> last_error;
};

struct ProcSamplerConfig {
  int64_t run_id = 0;
  std::string package;
  std::chrono::milliseconds interval{100};
  std::chrono::milliseconds command_timeout{10'000};
  DeviceClock clock;
  std::function<int64_t()> run_ms;  // ms since the run started (ProcSample::t_ms)
  // Hands the samples taken so far to the store (the executor's writer, which batches them)
  // once `flush_samples` have collected or `flush_every` passed since the last hand-off: on
  // disk while the run goes, a launch that takes long included (issue 13 §3). Null: they stay
  // in `state` for the executor.
  std::function<boost::asio::awaitable<void>()> flush;
  size_t flush_samples = 64;
  std::chrono::milliseconds flush_every{1000};
};

// Samples until cancelled (the executor's `||`); never ends on its own, so it never cuts the
// launch loop short. Samples collect in `state` until `config.flush` takes them.
boost::asio::awaitable<void> RunProcSampler(DeviceShell& shell, ProcSamplerConfig config,
                                            std::shared_ptr<ProcSamplerState> state);

}  // namespace droidlab::orchestrator
