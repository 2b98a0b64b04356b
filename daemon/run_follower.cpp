#include "daemon/run_follower.h"

#include <chrono>
#include <thread>

namespace droidlab::daemon {

namespace {

using Json = nlohmann::json;

// Three keep-alives (15 s apart) missed: the stream is gone even if the socket is not.
constexpr std::chrono::seconds kStreamIdle{45};
constexpr std::chrono::seconds kReconnectPause{1};

}  // namespace

BasicResult<Json, ClientFailure> FollowRun(
    const ApiClient& client, int64_t run_id,
    const std::function<void(const RunProgressView&)>& on_progress,
    const std::function<void(const std::string&)>& on_notice) {
  const std::string run_target = "/api/v1/runs/" + std::to_string(run_id);
  std::optional<ClientFailure> failure;
  Json run;
  bool ended = false;
  bool answered = false;  // the daemon has answered once: losing it now is worth a wait
  std::optional<std::chrono::steady_clock::time_point> lost_since;

  // Reads the run; stops the stream when it has ended or cannot be read.
  auto read_run = [&]() -> StreamStep {
    auto got = CallApi(client, "GET", run_target);
    if (!got) {
      failure = got.error();
      return StreamStep::kStop;
    }
    answered = true;
    lost_since.reset();
    run = std::move(*got);
    if (auto view = ProgressFromJson(run)) on_progress(*view);
    ended = IsFinalRunStatus(run.value("status", ""));
    return ended ? StreamStep::kStop : StreamStep::kContinue;
  };
  auto on_event = [&](const ServerEvent& event) -> StreamStep {
    // "lagged": the daemon dropped events for this slow reader; the run itself says where it is.
    if (event.event == "lagged") return read_run();
    if (event.event != "run") return StreamStep::kContinue;
    Json data = Json::parse(event.data, nullptr, false);
    if (!data.is_object() || data.value("id", int64_t{0}) != run_id) return StreamStep::kContinue;
    // The summary is in the run, not the event: read it once the run has ended.
    if (IsFinalRunStatus(data.value("status", ""))) return read_run();
    if (auto view = ProgressFromJson(data)) {
      if (view->total == 0 && run.is_object()) view->total = run.value("iterations", int64_t{0});
      on_progress(*view);
    }
    return StreamStep::kContinue;
  };

  // Whether a failure to reach the daemon is to be waited out rather than returned.
  auto wait_for_daemon = [&]() {
    if (!failure || failure->exit_code != kExitUnreachable || !answered) return false;
    const auto now = std::chrono::steady_clock::now();
    if (!lost_since) {
      lost_since = now;
      on_notice(failure->message + "; waiting up to " + std::to_string(kDaemonLossGrace.count()) +
                " s for it to come back");
    }
    if (now - *lost_since >= kDaemonLossGrace) return false;
    failure.reset();
    std::this_thread::sleep_for(kReconnectPause);
    return true;
  };

  for (;;) {
    auto stream = client.FollowEvents("/api/v1/events", read_run, on_event, kStreamIdle);
    if (wait_for_daemon()) continue;
    if (failure) return *failure;
    if (ended) return run;
    if (stream && stream->refused) {
      return ClientFailure{kExitApiError,
                           "the daemon answered " + std::to_string(stream->refused->status) +
                               " to GET /api/v1/events: " + ApiErrorMessage(*stream->refused)};
    }
    // The stream broke, fell silent or was never opened: the run (or the daemon's absence)
    // decides whether to go on.
    if (read_run() == StreamStep::kStop) {
      if (wait_for_daemon()) continue;
      if (failure) return *failure;
      return run;
    }
    std::this_thread::sleep_for(kReconnectPause);
  }
}

}  // namespace droidlab::daemon
