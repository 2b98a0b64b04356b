#include "api/webhook_client.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "api/as_tuple.h"

namespace droidlab::api {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// A receiver's answer is read for its status; its body is not wanted, only bounded.
constexpr uint64_t kMaxAnswerBody = 64 * 1024;

std::string Why(const beast::error_code& ec) {
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted) return "timed out";
  return ec.message();
}

// HOST:PORT, an IPv6 address in brackets. A plain function: g++ 12 mishandles a ?: with
// std::string arms inside a coroutine.
std::string HostHeader(const orchestrator::WebhookUrl& url) {
  const bool v6 = url.host.find(':') != std::string::npos;
  std::string host = v6 ? "[" + url.host + "]" : url.host;
  return host + ":" + std::to_string(url.port);
}

}  // namespace

asio::awaitable<orchestrator::WebhookAnswer> PostWebhook(orchestrator::WebhookPost post) {
  orchestrator::WebhookAnswer answer;
  auto executor = co_await asio::this_coro::executor;
  const auto deadline = std::chrono::steady_clock::now() + post.timeout;

  // The resolver has no deadline of its own: a timer cancels it. Both shared with the timer's
  // handler, which may run after this frame is gone.
  auto resolver = std::make_shared<tcp::resolver>(executor);
  auto resolve_limit = std::make_shared<asio::steady_timer>(executor, deadline);
  resolve_limit->async_wait([resolver](const boost::system::error_code& ec) {
    if (!ec) resolver->cancel();
  });
  const std::string port = std::to_string(post.url.port);
  auto resolving = resolver->async_resolve(post.url.host, port, kTuple);
  auto [resolve_error, endpoints] = co_await std::move(resolving);
  resolve_limit->cancel();
  if (resolve_error) {
    answer.error = "cannot resolve " + post.url.host + ": " + Why(resolve_error);
    co_return answer;
  }

  beast::tcp_stream stream(executor);
  stream.expires_at(deadline);
  auto connecting = stream.async_connect(endpoints, kTuple);
  auto [connect_error, endpoint] = co_await std::move(connecting);
  (void)endpoint;
  if (connect_error) {
    answer.error = "cannot connect: " + Why(connect_error);
    co_return answer;
  }

  http::request<http::string_body> request{http::verb::post, post.url.target, 11};
  request.set(http::field::host, HostHeader(post.url));
  for (const auto& [name, value] : post.headers) request.set(name, value);
  request.body() = std::move(post.body);
  request.keep_alive(false);
  request.prepare_payload();
  auto writing = http::async_write(stream, request, kTuple);
  auto [write_error, written] = co_await std::move(writing);
  (void)written;
  if (write_error) {
    answer.error = "sending: " + Why(write_error);
    co_return answer;
  }

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxAnswerBody);
  auto reading = http::async_read_header(stream, buffer, parser, kTuple);
  auto [read_error, read] = co_await std::move(reading);
  (void)read;
  if (read_error) {
    answer.error = "reading the answer: " + Why(read_error);
    co_return answer;
  }
  answer.http_status = static_cast<int>(parser.get().result_int());
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return answer;
}

}  // namespace droidlab::api
