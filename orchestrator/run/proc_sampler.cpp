#include "orchestrator/run/proc_sampler.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>

#include "orchestrator/run/cancelled.h"
#include "orchestrator/run/device_commands.h"
#include "parsers/pidof.h"
#include "parsers/proc_sample_stream.h"
#include "parsers/proc_stat.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

int64_t HostMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}


// Outside the coroutine: with the parse result in the coroutine frame g++ 12 warned
// -Wmismatched-new-delete on the frame, the same warning that flagged its miscompiled string
// conditionals (see IfAny in device_shell.h), so it is not trusted to be harmless.
BasicResult<ProcReading, std::string> ReadingFromStat(int64_t pid, std::string_view text) {
  auto stat = parsers::ParseProcPidStat(text);
  if (!stat) return stat.error().message;
  return ProcReading{pid, HostMs(), stat->utime, stat->stime, stat->rss, stat->num_threads};
}

// One line of the stream into the state; true when the samples are due for the store. Outside
// the coroutine for the same reason as ReadingFromStat.
bool TakeStreamLine(ProcSamplerState& state, const ProcSamplerConfig& config,
                    parsers::ProcStreamReader& reader, std::string_view line,
                    std::chrono::steady_clock::time_point& last_flush) {
  const uint64_t bad_before = reader.bad_frames() + reader.stray_lines();
  auto sample = reader.AddLine(line);
  state.bad_frames = reader.bad_frames();
  state.stray_lines = reader.stray_lines();
  if (reader.bad_frames() + reader.stray_lines() != bad_before) {
    state.last_error = "proc stream: " + reader.last_problem();
  }
  if (!sample) return false;
  if (!sample->stat) {
    // No process at this tick (between a force-stop and the launch): the next one starts anew.
    state.pid.reset();
    state.previous.reset();
  } else {
    const parsers::ProcPidStat& stat = *sample->stat;
    const ProcReading reading{stat.pid,          sample->uptime.uptime_cs * 10, stat.utime,
                              stat.stime,        stat.rss,                      stat.num_threads};
    state.samples.push_back(
        MakeProcSample(config.run_id, config.run_ms(), reading, state.previous, config.clock));
    state.previous = reading;
    state.pid = stat.pid;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!config.flush || state.samples.empty()) return false;
  if (state.samples.size() < config.flush_samples && now - last_flush < config.flush_every) {
    return false;
  }
  last_flush = now;
  return true;
}

}  // namespace

store::ProcSample MakeProcSample(int64_t run_id, int64_t t_ms, const ProcReading& now,
                                 const std::optional<ProcReading>& previous,
                                 const DeviceClock& clock) {
  store::ProcSample s;
  s.run_id = run_id;
  s.t_ms = t_ms;
  s.pid = now.pid;
  s.utime = static_cast<int64_t>(now.utime);
  s.stime = static_cast<int64_t>(now.stime);
  s.rss_kb = now.rss_pages * clock.page_size / 1024;
  s.num_threads = now.num_threads;
  if (previous && previous->pid == now.pid && now.host_ms > previous->host_ms &&
      now.utime + now.stime >= previous->utime + previous->stime && clock.clk_tck > 0) {
    const double ticks =
        static_cast<double>((now.utime + now.stime) - (previous->utime + previous->stime));
    const double cpu_s = ticks / static_cast<double>(clock.clk_tck);
    const double wall_s = static_cast<double>(now.host_ms - previous->host_ms) / 1000.0;
    s.cpu_pct = 100.0 * cpu_s / wall_s;
  }
  return s;
}

asio::awaitable<void> RunProcStreamSampler(DeviceShell& shell, ProcSamplerConfig config,
                                           std::shared_ptr<ProcSamplerState> state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  const asio::any_io_executor timer_executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(timer_executor);
  const auto shared_config = std::make_shared<ProcSamplerConfig>(std::move(config));
  const std::vector<std::string> argv =
      ProcSamplingLoop(shared_config->package, shared_config->interval.count());
  auto command = adb::BuildShellCommand(argv);
  if (!command) {
    state->last_error = "proc stream: " + command.error().message;
    co_return;  // cannot happen for a checked package; the executor's race goes on without it
  }
  while (!co_await Cancelled()) {
    ++state->streams_opened;
    // A new reader per stream: a frame cut by the old stream's end is not joined to the next.
    auto reader = std::make_shared<parsers::ProcStreamReader>();
    auto last_flush = std::make_shared<std::chrono::steady_clock::time_point>(
        std::chrono::steady_clock::now());
    // The sink named first: a lambda made into a std::function inside the co_await
    // full-expression is destroyed twice by g++ 12.
    adb::LineSink sink = [state, shared_config, reader,
                          last_flush](std::string_view line) -> asio::awaitable<bool> {
      if (TakeStreamLine(*state, *shared_config, *reader, line, *last_flush)) {
        auto flushing = shared_config->flush();
        co_await std::move(flushing);
      }
      co_return true;
    };
    auto streaming =
        shell.client().StreamLines(shell.serial(), *command, std::move(sink), adb::kNoDeadline);
    auto end = co_await std::move(streaming);
    if (co_await Cancelled()) break;
    if (!end) {
      state->last_error = "proc stream: " + end.error().message;
    } else {
      std::string exit = "?";
      if (end->exit_code) exit = std::to_string(*end->exit_code);
      state->last_error = "proc stream ended (exit " + exit + IfAny(": ", end->err) + ")";
    }
    // Ended early (the shell killed on the phone, the device gone for a moment): the previous
    // reading may be from before a gap, so CPU % starts anew with the next stream.
    state->previous.reset();
    timer.expires_after(shared_config->restart_after);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> RunProcSampler(DeviceShell& shell, ProcSamplerConfig config,
                                     std::shared_ptr<ProcSamplerState> state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  const asio::any_io_executor timer_executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(timer_executor);
  auto last_flush = std::chrono::steady_clock::now();
  while (!co_await Cancelled()) {
    const auto next = std::chrono::steady_clock::now() + config.interval;
    const adb::Deadline deadline = adb::DeadlineAfter(config.command_timeout);
    if (!state->pid) {
      auto pidof = shell.Run(Pidof(config.package), deadline, false);
      auto r = co_await std::move(pidof);
      if (r && r->exit_code.value_or(0) == 0) state->pid = parsers::FirstPid(r->out);
      if (!r) state->last_error = r.error().message;
    }
    if (state->pid && !co_await Cancelled()) {
      const int64_t pid = *state->pid;
      auto cat_stat = shell.Run(CatProcStat(pid), deadline, false);
      auto r = co_await std::move(cat_stat);
      if (!r) {
        state->last_error = r.error().message;
      } else if (r->exit_code.value_or(0) != 0) {
        // Gone (force-stopped for the next cold launch): find it again.
        if (state->pid == pid) state->pid.reset();
        state->previous.reset();
      } else if (auto reading = ReadingFromStat(pid, r->out); reading) {
        state->samples.push_back(MakeProcSample(config.run_id, config.run_ms(), *reading,
                                                state->previous, config.clock));
        state->previous = *reading;
      } else {
        state->last_error = "/proc/" + std::to_string(pid) + "/stat: " + reading.error();
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (config.flush && !state->samples.empty() &&
        (state->samples.size() >= config.flush_samples || now - last_flush >= config.flush_every)) {
      last_flush = now;
      auto flushing = config.flush();
      co_await std::move(flushing);
    }
    timer.expires_at(next);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace droidlab::orchestrator
