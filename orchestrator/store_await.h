// Awaiting the store from a coroutine without blocking its io_context thread. store::Store's
// async facade runs completions on its writer or reader threads; these wrappers post the result
// back to the awaiting coroutine's executor, so code after the co_await runs where it started.
//
//   store::Status s = co_await AwaitStore<store::Status>([&](auto done) {
//     store.UpdateRunStatusAsync(update, std::move(done));
//   });
//   auto list_runs = [q](store::Reader& r) { return r.ListRuns(q); };
//   auto runs = co_await AwaitRead(store, std::move(list_runs));
//
// g++ 12 (Debian 12's compiler) destroys TWICE a temporary with a non-trivial destructor that
// is part of a co_await full-expression: a lambda capturing a string by value, a std::function
// made from a lambda, a std::string built in the argument list, an initializer list. Name such
// arguments first (a named local passed by value or moved is fine), as above.
// tools/checks/co_await_check.py (CI) rejects the unsafe shapes; it lets a lambda that captures
// only by reference stay inline, and wants any other capture named.
//
// Not cancellable: a store call finishes in milliseconds, and abandoning it would leave the
// completion to post into a coroutine frame that is gone.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <type_traits>
#include <utility>

#include "store/store.h"

namespace droidlab::orchestrator {

// `start(done)` must call exactly one store *Async function passing `done` as its completion;
// `done` takes the completion's argument and resumes the caller with it, on the caller's
// executor. AwaitRead and AwaitOffThread below are this with a different `start`.
template <class T, class Start>
boost::asio::awaitable<T> AwaitStore(Start start) {
  auto executor = co_await boost::asio::this_coro::executor;
  auto initiation = [executor, start = std::move(start)](auto handler) mutable {
    start([executor, handler = std::move(handler)](T value) mutable {
      boost::asio::post(executor, [handler = std::move(handler), value = std::move(value)]() mutable {
        std::move(handler)(std::move(value));
      });
    });
  };
  // Named, then awaited: see the g++ 12 note above.
  auto op = boost::asio::async_initiate<decltype(boost::asio::use_awaitable), void(T)>(
      std::move(initiation), boost::asio::use_awaitable);
  co_return co_await std::move(op);
}

// Runs `query(reader)` on one of the store's reader threads and returns its result.
template <class Query>
auto AwaitRead(store::Store& store, Query query)
    -> boost::asio::awaitable<std::invoke_result_t<Query&, store::Reader&>> {
  using T = std::invoke_result_t<Query&, store::Reader&>;
  auto start = [&store, query = std::move(query)](auto done) mutable {
    store.PostRead([done = std::move(done), query = std::move(query)](store::Reader& r) mutable {
      done(query(r));
    });
  };
  auto op = AwaitStore<T>(std::move(start));
  co_return co_await std::move(op);
}

// Runs a blocking call (the store's durable writes that have no async form, say) on `worker`,
// a thread pool's executor, and resumes the caller on its own executor with the result.
template <class F>
auto AwaitOffThread(boost::asio::any_io_executor worker, F call)
    -> boost::asio::awaitable<std::invoke_result_t<F&>> {
  using T = std::invoke_result_t<F&>;
  auto start = [worker, call = std::move(call)](auto done) mutable {
    boost::asio::post(worker, [done = std::move(done), call = std::move(call)]() mutable {
      done(call());
    });
  };
  auto op = AwaitStore<T>(std::move(start));
  co_return co_await std::move(op);
}

}  // namespace droidlab::orchestrator
