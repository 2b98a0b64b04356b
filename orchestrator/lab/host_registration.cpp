#include "orchestrator/lab/host_registration.h"

#include <unistd.h>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <climits>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/run/cancelled.h"
#include "orchestrator/stderr_log.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

bool IsHostAlive(const store::Host& host, int64_t now_ms) {
  return now_ms - host.heartbeat_at <=
         std::chrono::duration_cast<std::chrono::milliseconds>(kHostAliveWithin).count();
}

std::string MachineHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

std::string HostAddress(std::string_view listen_host, uint16_t port, std::string_view host_name) {
  std::string host(listen_host);
  if (host.empty() || host == "0.0.0.0" || host == "::") host = std::string(host_name);
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 literal
  return "http://" + host + ":" + std::to_string(port);
}

asio::awaitable<void> KeepHostRegistered(store::Store& store, store::Host host,
                                         HostRegistrationOptions options) {
  // A stop may come while the heartbeat is being stored: it ends the loop below, rather than
  // being thrown at the next co_await (the daemon logs an escaping exception as a bug).
  co_await asio::this_coro::throw_if_cancelled(false);
  if (!options.now_ms) options.now_ms = WallNowMs;
  if (!options.log) options.log = StderrLog("hosts");
  store::AsyncStore door(store);
  host.started_at = options.now_ms();
  asio::steady_timer timer(co_await asio::this_coro::executor);
  bool refused = false;  // said once until it works again, not every ten seconds
  for (;;) {
    host.heartbeat_at = options.now_ms();
    auto registering = door.UpsertHost(host);
    auto registered = co_await std::move(registering);
    const bool stopping = co_await Cancelled();
    if (stopping) co_return;  // the daemon is stopping; what was stored stays
    if (!registered && !refused) {
      options.log("host " + host.name + ": heartbeat not stored (tried again every " +
                  std::to_string(options.interval.count()) + " ms): " + registered.error().message);
    } else if (registered && refused) {
      options.log("host " + host.name + ": heartbeat stored again");
    }
    refused = !registered;
    timer.expires_after(options.interval);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;  // cancelled: the daemon is stopping
  }
}

}  // namespace droidlab::orchestrator
