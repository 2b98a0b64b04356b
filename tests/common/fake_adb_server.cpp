#include "tests/common/fake_adb_server.h"

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cstdio>
#include <list>

namespace droidlab::testutil {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

std::string Hex4(size_t n) {
  char out[8];
  std::snprintf(out, sizeof out, "%04zx", n);
  return out;
}

// Logs what escaped a fake's coroutine: a broken fake must show up, not vanish.
void LogEscape(std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "FakeAdbServer: coroutine ended with %s\n", ex.what());
  }
}

}  // namespace

struct FakeAdbServer::State : std::enable_shared_from_this<State> {
  asio::any_io_executor executor;
  Handler handler;
  Options options;
  uint16_t port = 0;
  std::shared_ptr<tcp::acceptor> acceptor;  // shared with its accept loop
  std::list<std::shared_ptr<tcp::socket>> open;
  int connections = 0;
  int max_open = 0;
  int closed_by_client = 0;
  std::vector<std::string> requests;

  void Listen() {
    acceptor = std::make_shared<tcp::acceptor>(executor);
    const tcp::endpoint endpoint(asio::ip::address_v4::loopback(), port);
    acceptor->open(endpoint.protocol());
    acceptor->set_option(asio::socket_base::reuse_address(true));
    boost::system::error_code ec;
    acceptor->bind(endpoint, ec);
    if (ec)
      throw std::runtime_error("FakeAdbServer: cannot bind port " + std::to_string(port) + ": " +
                               ec.message());
    acceptor->listen();
    port = acceptor->local_endpoint().port();
    asio::co_spawn(executor, Accept(shared_from_this(), acceptor), LogEscape);
  }

  static awaitable<void> Accept(std::shared_ptr<State> self,
                                std::shared_ptr<tcp::acceptor> acceptor) {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(self->executor);
      auto [ec] = co_await acceptor->async_accept(*socket, kTuple);
      if (ec) co_return;  // closed by Stop()
      socket->set_option(tcp::no_delay(true));
      ++self->connections;
      self->open.push_back(socket);
      self->max_open = std::max(self->max_open, static_cast<int>(self->open.size()));
      asio::co_spawn(self->executor, Serve(self, socket, self->connections), LogEscape);
    }
  }

  void Forget(const std::shared_ptr<tcp::socket>& socket) {
    open.remove(socket);
    boost::system::error_code ignored;
    socket->close(ignored);
  }

  static awaitable<bool> Send(std::shared_ptr<State> self, tcp::socket& socket,
                              std::string_view bytes) {
    const size_t fragment =
        self->options.fragment_size == 0 ? bytes.size() : self->options.fragment_size;
    for (size_t at = 0; at < bytes.size(); at += fragment) {
      // bytes is a std::string_view: its substr is a view, trivially destroyed.
      auto [ec, n] = co_await asio::async_write(  // co_await-check: ok (a string_view's substr)
          socket, asio::buffer(bytes.substr(at, fragment)), kTuple);
      if (ec) co_return false;
    }
    co_return true;
  }

  static awaitable<void> Serve(std::shared_ptr<State> self, std::shared_ptr<tcp::socket> socket,
                               int connection) {
    for (int index = 0;; ++index) {
      char length_text[5] = {};
      auto [ec, n] = co_await asio::async_read(*socket, asio::buffer(length_text, 4), kTuple);
      if (ec) {
        if (socket->is_open()) ++self->closed_by_client;
        self->Forget(socket);
        co_return;
      }
      const size_t length = std::strtoul(length_text, nullptr, 16);
      std::string service(length, '\0');
      auto [ec2, n2] = co_await asio::async_read(*socket, asio::buffer(service), kTuple);
      if (ec2) {
        if (socket->is_open()) ++self->closed_by_client;
        self->Forget(socket);
        co_return;
      }
      self->requests.push_back(service);
      const FakeStep step = self->handler(FakeRequest{connection, index, service});
      if (step.delay.count() > 0) {
        asio::steady_timer timer(self->executor, step.delay);
        co_await timer.async_wait(kTuple);
      }
      if (!socket->is_open()) co_return;  // Stop() while waiting
      if (!co_await Send(self, *socket, step.bytes)) {
        self->Forget(socket);
        co_return;
      }
      if (step.then == FakeStep::Then::kClose) {
        boost::system::error_code ignored;
        socket->shutdown(tcp::socket::shutdown_both, ignored);
        self->Forget(socket);
        co_return;
      }
      if (step.then == FakeStep::Then::kHang) {
        // Never answer again; notice when the client goes (cancellation, timeout).
        std::array<char, 512> sink;
        for (;;) {
          auto [rec, rn] = co_await socket->async_read_some(asio::buffer(sink), kTuple);
          if (rec) break;
        }
        if (socket->is_open()) ++self->closed_by_client;
        self->Forget(socket);
        co_return;
      }
    }
  }
};

FakeAdbServer::FakeAdbServer(asio::any_io_executor executor, Handler handler)
    : FakeAdbServer(std::move(executor), std::move(handler), Options{}) {}

FakeAdbServer::FakeAdbServer(asio::any_io_executor executor, Handler handler, Options options)
    : state_(std::make_shared<State>()) {
  state_->executor = std::move(executor);
  state_->handler = std::move(handler);
  state_->options = options;
  state_->Listen();
}

FakeAdbServer::~FakeAdbServer() { Stop(); }

uint16_t FakeAdbServer::port() const { return state_->port; }

void FakeAdbServer::Stop() {
  if (state_->acceptor) {
    boost::system::error_code ignored;
    state_->acceptor->close(ignored);
    state_->acceptor.reset();
  }
  for (auto& socket : std::list(state_->open)) {
    boost::system::error_code ignored;
    socket->shutdown(tcp::socket::shutdown_both, ignored);
    socket->close(ignored);
  }
  state_->open.clear();
}

void FakeAdbServer::Start() {
  if (!state_->acceptor) state_->Listen();
}

void FakeAdbServer::set_handler(Handler handler) { state_->handler = std::move(handler); }
void FakeAdbServer::set_fragment_size(size_t size) { state_->options.fragment_size = size; }
int FakeAdbServer::connections() const { return state_->connections; }
int FakeAdbServer::open_connections() const { return static_cast<int>(state_->open.size()); }
int FakeAdbServer::max_open_connections() const { return state_->max_open; }
int FakeAdbServer::closed_by_client() const { return state_->closed_by_client; }
std::vector<std::string> FakeAdbServer::requests() const { return state_->requests; }

void FakeAdbServer::SendToAll(std::string bytes) {
  auto shared = std::make_shared<std::string>(std::move(bytes));
  for (auto& socket : state_->open) {
    asio::async_write(*socket, asio::buffer(*shared), [socket, shared](auto, auto) {});
  }
}

std::string FakeOkay() { return "OKAY"; }
std::string FakeOkay(std::string_view payload) { return "OKAY" + FakeString(payload); }
std::string FakeFail(std::string_view text) { return "FAIL" + FakeString(text); }
std::string FakeString(std::string_view payload) {
  return Hex4(payload.size()) + std::string(payload);
}
std::string FakeShellPacket(uint8_t id, std::string_view data) {
  std::string out(1, static_cast<char>(id));
  const uint32_t n = static_cast<uint32_t>(data.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  out.append(data);
  return out;
}
std::string FakeShellExit(uint8_t code) {
  return FakeShellPacket(3, std::string(1, static_cast<char>(code)));
}

}  // namespace droidlab::testutil
