#include "orchestrator/run/cancelled.h"

#include <boost/asio/this_coro.hpp>

namespace droidlab::orchestrator {

boost::asio::awaitable<bool> Cancelled() {
  auto state = co_await boost::asio::this_coro::cancellation_state;
  co_return state.cancelled() != boost::asio::cancellation_type::none;
}

}  // namespace droidlab::orchestrator
