// Follows one run until it ends, through the daemon's event stream (GET /api/v1/events), so that
// progress shows as it happens without polling. The run is read once the stream is open, so an
// end that came before the subscription is not missed. A stream that breaks or falls silent is
// reopened after the run is read again, so a daemon restart mid-run reads as the run's real end
// (`interrupted`); a stream the daemon keeps closing degrades to reading the run every second.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "daemon/client_format.h"
#include "daemon/client_http.h"

namespace droidlab::daemon {

// Calls `on_progress` on each change and returns the ended run (GET /api/v1/runs/{id}), or the
// failure: kExitUnreachable when the daemon cannot be reached, kExitApiError when it refuses
// (404 for an unknown run, 401).
BasicResult<nlohmann::json, ClientFailure> FollowRun(
    const ApiClient& client, int64_t run_id,
    const std::function<void(const RunProgressView&)>& on_progress);

}  // namespace droidlab::daemon
