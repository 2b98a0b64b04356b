// The proc sampler: the app's /proc/PID/stat every N ms, for CPU %, rss and thread count over the
// run (DESIGN.md: fields 14, 15, 20, 24). Two ways, the same samples:
//
// RunProcStreamSampler, what runs use (issue 17 §4): ONE `adb shell` per run, a loop on the phone
// (device_commands.h, ProcSamplingLoop) that reads the stat with the shell's `read` builtin every
// tick and prints it framed with the phone's uptime (parsers/proc_sample_stream.h); droidlab
// reads the stream line by line. The loop follows the pid itself (`pidof -s` when the stat read
// fails: a force-stop before a cold launch), so the executor's pid hint is not needed. Per tick
// the phone forks one process (`sleep`), and the host handles one packet.
//
// RunProcSampler, the reference the run_scale_bench measures beside it: one `adb shell cat
// /proc/PID/stat` per sample (and `pidof PKG` when the read fails, or the executor hands the new
// pid from a Start proc line). Per sample the phone's adbd forks a shell that forks `cat` — on
// the very launches being measured — and the host opens an adb connection and a transport stream.
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
  // When it was read, in ms on the clock all readings of one sampler share, over which CPU % is
  // taken: the host's steady clock (RunProcSampler, when the answer came) or the phone's boot
  // clock (RunProcStreamSampler, /proc/uptime read beside the stat on the phone).
  int64_t host_ms = 0;
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
  // RunProcStreamSampler: streams opened (1 unless one ended early and was opened again), and
  // what its reader refused (frames cut or garbled, stray lines), for the run's log.
  int64_t streams_opened = 0;
  uint64_t bad_frames = 0;
  uint64_t stray_lines = 0;
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
  std::chrono::milliseconds restart_after{1000};  // RunProcStreamSampler
};

// Both sample until cancelled (the executor's `||`); neither ends on its own, so neither cuts the
// launch loop short. Samples collect in `state` until `config.flush` takes them (awaited between
// two lines of the stream, so a slow store slows the stream through TCP, nothing piles up).
// The stream sampler opens its stream again `restart_after` after it ended early (the shell was
// killed on the phone), saying why in `state.last_error`; cancelling closes it, and the loop on
// the phone dies with it (device_commands.h).
boost::asio::awaitable<void> RunProcStreamSampler(DeviceShell& shell, ProcSamplerConfig config,
                                                  std::shared_ptr<ProcSamplerState> state);
boost::asio::awaitable<void> RunProcSampler(DeviceShell& shell, ProcSamplerConfig config,
                                            std::shared_ptr<ProcSamplerState> state);

}  // namespace droidlab::orchestrator
