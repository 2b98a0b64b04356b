// A webhook receiver for tests: a small HTTP/1.1 server on 127.0.0.1, port 0, on the test's
// io_context, written on raw Asio (not the Beast client under test). It checks each POST's
// X-Droidlab-Signature with its own HMAC-SHA256 of the exact body and the secret, keeps what it
// got, and answers the statuses it was given in order (the last one repeated); with `hang` it
// reads the request and never answers. `on_post` runs as each request has been read, before the
// answer is written. With a certificate and key (PEM files) it speaks TLS (https://) with them,
// and counts the handshakes that failed (a client that refused its certificate).
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace droidlab::testutil {

struct ReceivedPost {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool signature_ok = false;
};

struct WebhookReceiverState {
  std::string secret;
  std::vector<int> statuses;  // answered in order, the last one repeated
  bool hang = false;
  std::vector<ReceivedPost> posts;
  std::vector<std::shared_ptr<boost::asio::ip::tcp::socket>> held;  // hung connections
  std::function<void()> on_post;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor;
  std::shared_ptr<boost::asio::ssl::context> tls;  // https:// when set
  int failed_handshakes = 0;
};

inline std::string ExpectedSignature(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex = "sha256=";
  for (unsigned int i = 0; i < length; ++i) {
    hex += kDigits[mac[i] >> 4];
    hex += kDigits[mac[i] & 0xf];
  }
  return hex;
}

// One request over `stream` (the socket itself, or TLS over it), which the caller keeps.
template <class Stream>
boost::asio::awaitable<void> ServeWebhookExchange(
    std::shared_ptr<WebhookReceiverState> state,
    std::shared_ptr<boost::asio::ip::tcp::socket> socket, Stream& stream) {
  namespace asio = boost::asio;
  constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
  std::string buffer;
  auto reading_header =
      asio::async_read_until(stream, asio::dynamic_buffer(buffer), "\r\n\r\n", kTuple);
  auto [header_error, header_end] = co_await std::move(reading_header);
  if (header_error) co_return;
  ReceivedPost post;
  const std::string head = buffer.substr(0, header_end);
  size_t line_end = head.find("\r\n");
  const std::string request_line = head.substr(0, line_end);
  post.method = request_line.substr(0, request_line.find(' '));
  const size_t target_at = request_line.find(' ') + 1;
  post.target = request_line.substr(target_at, request_line.find(' ', target_at) - target_at);
  size_t at = line_end + 2;
  while (at < head.size()) {
    const size_t end = head.find("\r\n", at);
    const std::string line = head.substr(at, end - at);
    at = end + 2;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    post.headers[name] = value;
  }
  std::string length_text = "0";  // no ?: with std::string arms in a coroutine (g++ 12)
  if (post.headers.count("content-length") != 0) length_text = post.headers["content-length"];
  const size_t length = std::stoul(length_text);
  std::string body = buffer.substr(header_end);
  if (body.size() < length) {
    std::string rest(length - body.size(), '\0');
    auto reading_body = asio::async_read(stream, asio::buffer(rest), kTuple);
    auto [body_error, n] = co_await std::move(reading_body);
    (void)n;
    if (body_error) co_return;
    body += rest;
  }
  post.body = body.substr(0, length);
  post.signature_ok =
      post.headers["x-droidlab-signature"] == ExpectedSignature(state->secret, post.body);
  const size_t index = state->posts.size();
  state->posts.push_back(std::move(post));
  if (state->on_post) state->on_post();  // before the answer: the sender is still waiting
  if (state->hang) {
    state->held.push_back(socket);
    co_return;
  }
  const int status =
      state->statuses.empty() ? 200 : state->statuses[std::min(index, state->statuses.size() - 1)];
  const std::string answer = "HTTP/1.1 " + std::to_string(status) +
                             " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  auto writing = asio::async_write(stream, asio::buffer(answer), kTuple);
  auto [write_error, written] = co_await std::move(writing);
  (void)write_error;
  (void)written;
  boost::system::error_code ignored;
  socket->shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
}

inline boost::asio::awaitable<void> ServeWebhookConnection(
    std::shared_ptr<WebhookReceiverState> state,
    std::shared_ptr<boost::asio::ip::tcp::socket> socket) {
  namespace asio = boost::asio;
  if (!state->tls) {
    auto serving = ServeWebhookExchange(state, socket, *socket);
    co_await std::move(serving);
    co_return;
  }
  asio::ssl::stream<asio::ip::tcp::socket&> tls(*socket, *state->tls);
  auto shaking =
      tls.async_handshake(asio::ssl::stream_base::server, asio::as_tuple(asio::use_awaitable));
  auto [error] = co_await std::move(shaking);
  if (error) {
    ++state->failed_handshakes;
    co_return;
  }
  auto serving = ServeWebhookExchange(state, socket, tls);
  co_await std::move(serving);
}

inline boost::asio::awaitable<void> AcceptWebhooks(std::shared_ptr<WebhookReceiverState> state) {
  namespace asio = boost::asio;
  for (;;) {
    auto socket = std::make_shared<asio::ip::tcp::socket>(state->acceptor->get_executor());
    auto accepting = state->acceptor->async_accept(*socket, asio::as_tuple(asio::use_awaitable));
    auto [error] = co_await std::move(accepting);
    if (error) co_return;
    auto serving = ServeWebhookConnection(state, socket);
    asio::co_spawn(state->acceptor->get_executor(), std::move(serving), asio::detached);
  }
}

class WebhookReceiver {
 public:
  // https:// with this certificate chain and key (PEM files).
  struct Tls {
    std::string certificate_file;
    std::string key_file;
  };

  WebhookReceiver(boost::asio::io_context& io, std::string secret, std::vector<int> statuses,
                  bool hang = false, std::optional<Tls> tls = std::nullopt)
      : state_(std::make_shared<WebhookReceiverState>()) {
    namespace asio = boost::asio;
    if (tls) {
      state_->tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
      state_->tls->use_certificate_chain_file(tls->certificate_file);
      state_->tls->use_private_key_file(tls->key_file, asio::ssl::context::pem);
    }
    state_->secret = std::move(secret);
    state_->statuses = std::move(statuses);
    state_->hang = hang;
    state_->acceptor = std::make_unique<asio::ip::tcp::acceptor>(
        io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port_ = state_->acceptor->local_endpoint().port();
    auto accepting = AcceptWebhooks(state_);
    asio::co_spawn(io, std::move(accepting), asio::detached);
  }
  ~WebhookReceiver() { Stop(); }

  // Closes the listener and every held connection.
  void Stop() {
    boost::system::error_code ignored;
    if (state_->acceptor) state_->acceptor->close(ignored);
    for (auto& s : state_->held) s->close(ignored);
    state_->held.clear();
  }

  // `host`: how the URL names the receiver (it listens on 127.0.0.1 whatever the name).
  std::string url(const std::string& host = "127.0.0.1") const {
    return std::string(state_->tls ? "https://" : "http://") + host + ":" + std::to_string(port_) +
           "/hooks/droidlab?token=t0ken";
  }
  int failed_handshakes() const { return state_->failed_handshakes; }
  uint16_t port() const { return port_; }
  const std::vector<ReceivedPost>& posts() const { return state_->posts; }
  size_t held() const { return state_->held.size(); }
  void set_statuses(std::vector<int> statuses) { state_->statuses = std::move(statuses); }
  void on_post(std::function<void()> f) { state_->on_post = std::move(f); }

 private:
  std::shared_ptr<WebhookReceiverState> state_;
  uint16_t port_ = 0;
};

}  // namespace droidlab::testutil
