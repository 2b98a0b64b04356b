// Awaiting the store from a coroutine without blocking its io_context thread. store::Store's
// async facade runs completions on its writer or reader threads; these wrappers post the result
// back to the awaiting coroutine's executor, so code after the co_await runs where it started.
//
//   store::Status s = co_await AwaitStore<store::Status>([&](auto done) {
//     store.UpdateRunStatusAsync(update, std::move(done));
//   });
//   auto runs = co_await AwaitRead(store, [q](store::Reader& r) { return r.ListRuns(q); });
//
// Not cancellable: a store call finishes in milliseconds, and abandoning it would leave the
// completion to post into a coroutine frame that is gone.
#pragma once

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
// `done` takes the completion's argument (copied) and resumes the caller with it.
template <class T, class Start>
boost::asio::awaitable<T> AwaitStore(Start start) {
  auto executor = co_await boost::asio::this_coro::executor;
  co_return co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable), void(T)>(
      [executor, start = std::move(start)](auto handler) mutable {
        start([executor, handler = std::move(handler)](const T& value) mutable {
          boost::asio::post(executor, [handler = std::move(handler), value]() mutable {
            std::move(handler)(std::move(value));
          });
        });
      },
      boost::asio::use_awaitable);
}

// Runs `query(reader)` on one of the store's reader threads and returns its result.
template <class Query>
auto AwaitRead(store::Store& store, Query query)
    -> boost::asio::awaitable<std::invoke_result_t<Query&, store::Reader&>> {
  using T = std::invoke_result_t<Query&, store::Reader&>;
  auto executor = co_await boost::asio::this_coro::executor;
  co_return co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable), void(T)>(
      [executor, &store, query = std::move(query)](auto handler) mutable {
        store.PostRead([executor, handler = std::move(handler),
                        query = std::move(query)](store::Reader& reader) mutable {
          T value = query(reader);
          boost::asio::post(executor, [handler = std::move(handler),
                                       value = std::move(value)]() mutable {
            std::move(handler)(std::move(value));
          });
        });
      },
      boost::asio::use_awaitable);
}

}  // namespace droidlab::orchestrator
