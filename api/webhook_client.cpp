#include "api/webhook_client.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
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

namespace ssl = asio::ssl;

std::string Why(const beast::error_code& ec) {
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted) return "timed out";
  return ec.message();
}

// The reason OpenSSL gives for a failed handshake: "certificate verify failed" alone does not
// say which check failed; the verify result does.
std::string HandshakeWhy(const beast::error_code& ec, SSL* ssl) {
  std::string why = Why(ec);
  const long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK) {
    why += " (" + std::string(X509_verify_cert_error_string(verify)) + ")";
  }
  return why;
}

// HOST:PORT, an IPv6 address in brackets. A plain function: g++ 12 mishandles a ?: with
// std::string arms inside a coroutine.
std::string HostHeader(const orchestrator::WebhookUrl& url) {
  const bool v6 = url.host.find(':') != std::string::npos;
  std::string host = v6 ? "[" + url.host + "]" : url.host;
  return host + ":" + std::to_string(url.port);
}

// The request and the answer's status, over a connected (and, for https, shaken) stream.
template <class Stream>
asio::awaitable<orchestrator::WebhookAnswer> Exchange(Stream& stream,
                                                      orchestrator::WebhookPost post) {
  orchestrator::WebhookAnswer answer;
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
  co_return answer;
}

asio::awaitable<orchestrator::WebhookAnswer> Post(std::shared_ptr<ssl::context> tls,
                                                  orchestrator::WebhookPost post) {
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

  beast::tcp_stream tcp_stream(executor);
  tcp_stream.expires_at(deadline);
  auto connecting = tcp_stream.async_connect(endpoints, kTuple);
  auto [connect_error, endpoint] = co_await std::move(connecting);
  (void)endpoint;
  if (connect_error) {
    answer.error = "cannot connect: " + Why(connect_error);
    co_return answer;
  }
  if (!post.url.tls) {
    auto exchanging = Exchange(tcp_stream, std::move(post));
    answer = co_await std::move(exchanging);
    beast::error_code ignored;
    tcp_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    co_return answer;
  }

  beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), *tls);
  boost::system::error_code not_an_address;
  asio::ip::make_address(post.url.host, not_an_address);
  // SNI names a host, never an address (RFC 6066 §3).
  // SSL_set_tlsext_host_name is a macro over SSL_ctrl with a C cast (-Wold-style-cast).
  if (not_an_address && SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME,
                                 TLSEXT_NAMETYPE_host_name, post.url.host.data()) != 1) {
    answer.error = "TLS: cannot set the server name " + post.url.host;
    co_return answer;
  }
  // The name check by OpenSSL itself (not a verify callback): a mismatch is then its own verify
  // result, "hostname mismatch" / "IP address mismatch", which the attempt's error carries.
  X509_VERIFY_PARAM* check = SSL_get0_param(stream.native_handle());
  const int named = not_an_address ? X509_VERIFY_PARAM_set1_host(check, post.url.host.c_str(), 0)
                                   : X509_VERIFY_PARAM_set1_ip_asc(check, post.url.host.c_str());
  if (named != 1) {
    answer.error = "TLS: cannot check certificates against " + post.url.host;
    co_return answer;
  }
  auto shaking = stream.async_handshake(ssl::stream_base::client, kTuple);
  auto [handshake_error] = co_await std::move(shaking);
  if (handshake_error) {
    answer.error = "TLS handshake with " + post.url.host + ": " +
                   HandshakeWhy(handshake_error, stream.native_handle());
    co_return answer;
  }
  auto exchanging = Exchange(stream, std::move(post));
  answer = co_await std::move(exchanging);
  // No close_notify exchange: the answer's status is all that is wanted, and a receiver that
  // never answers one would hold the delivery until its deadline.
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return answer;
}

}  // namespace

BasicResult<orchestrator::WebhookSender, std::string> MakeWebhookSender(
    const WebhookTlsOptions& options) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_client);
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  tls->set_verify_mode(ssl::verify_peer);
  boost::system::error_code ec;
  tls->set_default_verify_paths(ec);
  if (ec) return "cannot load the system's CA certificates: " + ec.message();
  if (!options.ca_file.empty()) {
    tls->load_verify_file(options.ca_file, ec);
    if (ec) {
      return "alerts.ca_file " + options.ca_file +
             ": not read as PEM CA certificates: " + ec.message();
    }
  }
  return orchestrator::WebhookSender(
      [tls](orchestrator::WebhookPost post) { return Post(tls, std::move(post)); });
}

}  // namespace droidlab::api
