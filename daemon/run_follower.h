// Follows one run until it ends, through the daemon's event stream (GET /api/v1/events), so that
// progress shows as it happens without polling. The run is read once the stream is open, so an
// end that came before the subscription is not missed. A stream that breaks or falls silent is
// reopened after the run is read again, so a daemon restart mid-run reads as the run's real end
// (`interrupted`); a stream the daemon keeps closing degrades to reading the run every second.
// Blocks the calling thread (sleeps between reconnections).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "daemon/client_format.h"
#include "daemon/client_http.h"

namespace droidlab::daemon {

// A daemon that answered once and then cannot be reached is waited for this long (a restart by
// systemd takes seconds); one that never answered fails at once.
inline constexpr std::chrono::seconds kDaemonLossGrace{30};

// Calls `on_progress` on each change and returns the ended run (GET /api/v1/runs/{id}), or the
// failure: kExitUnreachable when the daemon cannot be reached (at first, or for longer than
// kDaemonLossGrace later), kExitApiError when it refuses (404 for an unknown run, 401).
// `on_notice` gets one line when the daemon is lost and the follower waits for it.
BasicResult<nlohmann::json, ClientFailure> FollowRun(
    const ApiClient& client, int64_t run_id,
    const std::function<void(const RunProgressView&)>& on_progress,
    const std::function<void(const std::string&)>& on_notice);

}  // namespace droidlab::daemon
