// Whether the awaiting coroutine has been cancelled (asio's per-operation cancellation: the run
// queue's cancel, the daemon's stop). Await it as a statement of its own, never inside `||` or
// `&&` (g++ 12 miscompiles a co_await there): `const bool cancelled = co_await Cancelled();`.
#pragma once

#include <boost/asio/awaitable.hpp>

namespace droidlab::orchestrator {

boost::asio::awaitable<bool> Cancelled();

}  // namespace droidlab::orchestrator
