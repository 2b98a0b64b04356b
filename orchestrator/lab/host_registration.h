// This daemon's host in the lab (issue 17 §2): registered in the store at start-up and its
// heartbeat moved every `interval` while it serves, so that every daemon on a shared PostgreSQL
// database can list the lab's hosts and tell the live from the dead (`GET /api/v1/hosts`).
//
//   asio::co_spawn(io, KeepHostRegistered(store, host, {}), ...);   // until cancelled
//
// A heartbeat the store refuses is logged and tried again at the next one: a host is declared
// dead by the others only after kHostAliveWithin without one.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

inline constexpr std::chrono::seconds kHostHeartbeatInterval{10};
// Three heartbeats missed: a stalled store write or a slow scrape is not a death.
inline constexpr std::chrono::seconds kHostAliveWithin{30};

// Whether `host`'s last heartbeat is recent enough at `now_ms` (ms since the epoch).
bool IsHostAlive(const store::Host& host, int64_t now_ms);

// The name a daemon registers under when the config names none: the machine's host name
// (gethostname), or "localhost" when it has none.
std::string MachineHostName();

// Where a daemon listening on `listen_host:port` answers, for the other hosts and their users:
// an unspecified address (0.0.0.0, ::) is replaced by `host_name`.
std::string HostAddress(std::string_view listen_host, uint16_t port, std::string_view host_name);

struct HostRegistrationOptions {
  std::chrono::milliseconds interval = kHostHeartbeatInterval;
  std::function<int64_t()> now_ms;            // default: the wall clock
  std::function<void(std::string_view)> log;  // default: stderr
};

// Upserts `host` (started_at and heartbeat_at set to now), then moves heartbeat_at every
// interval until cancelled (terminal cancellation). Spawn it on the daemon's io executor.
boost::asio::awaitable<void> KeepHostRegistered(store::Store& store, store::Host host,
                                                HostRegistrationOptions options);

}  // namespace droidlab::orchestrator
