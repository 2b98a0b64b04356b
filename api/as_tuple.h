// The completion token of an awaited Asio operation whose error comes back as a value, not an
// exception: `auto [ec, n] = co_await stream.async_read_some(buffer, kTuple)`. One definition for
// api/'s files: a unity build compiles several of them as one unit.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace droidlab::api {

inline constexpr auto kTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

}  // namespace droidlab::api
