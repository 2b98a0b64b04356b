// A loopback fake of the adb server's smart-socket side, for unit tests of adb/'s client. It
// listens on 127.0.0.1 port 0, reads each request ("000chost:version") and asks the test's
// handler what to do: send bytes (optionally one byte per write, or after a delay), then read
// the next request, close (EOF), or hang (keep the socket open and never send more). FAIL,
// truncation and EOF at any step are just the bytes a handler returns. It can be stopped and
// started again on the same port (an adb server restart) and counts what it saw.
//
// The reply builders below frame bytes themselves rather than with adb/'s encoders, so a bug
// there cannot hide in both sides.
//
// Threading: runs on the executor it is given (the test's io_context, the same one the client
// uses); call its methods from that thread.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::testutil {

struct FakeRequest {
  int connection = 0;  // 1, 2, ... in the order connections were accepted
  int index = 0;       // 0 for the first request on its connection
  std::string service; // "host:version", "host:transport:X", "shell,v2,raw:echo hi"
};

// What the fake does in answer to one request.
struct FakeStep {
  enum class Then { kReadNext, kClose, kHang };
  std::string bytes;                   // sent first (may be empty)
  Then then = Then::kReadNext;
  std::chrono::milliseconds delay{0};  // waited before sending (a slow device)

  static FakeStep Reply(std::string bytes, Then then = Then::kReadNext) {
    return FakeStep{std::move(bytes), then, {}};
  }
  static FakeStep ReplyAndClose(std::string bytes) { return Reply(std::move(bytes), Then::kClose); }
  static FakeStep ReplyAndHang(std::string bytes) { return Reply(std::move(bytes), Then::kHang); }
  static FakeStep Hang() { return Reply("", Then::kHang); }
  static FakeStep Close() { return Reply("", Then::kClose); }
};

class FakeAdbServer {
 public:
  using Handler = std::function<FakeStep(const FakeRequest&)>;
  struct Options {
    size_t fragment_size = 0;  // 0: each reply in one write; N: writes of at most N bytes
  };

  FakeAdbServer(boost::asio::any_io_executor executor, Handler handler);
  FakeAdbServer(boost::asio::any_io_executor executor, Handler handler, Options options);
  ~FakeAdbServer();
  FakeAdbServer(const FakeAdbServer&) = delete;
  FakeAdbServer& operator=(const FakeAdbServer&) = delete;

  uint16_t port() const;
  // Closes the listening socket and every connection (clients see EOF); the port stays ours to
  // take again with Start().
  void Stop();
  // Listens again on the same port. Throws std::runtime_error when it cannot.
  void Start();

  void set_handler(Handler handler);
  void set_fragment_size(size_t size);

  int connections() const;           // accepted so far
  int open_connections() const;      // accepted and not closed yet
  int max_open_connections() const;  // the most open at once
  int closed_by_client() const;      // connections the client closed (EOF or reset seen)
  std::vector<std::string> requests() const;  // every request, in arrival order
  // Sends bytes on every open connection (a tracking update to every tracker).
  void SendToAll(std::string bytes);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Reply builders: "OKAY"; "OKAY" + "%04x" + payload; "FAIL" + "%04x" + text; "%04x" + payload;
// a shell v2 packet (id, 4-byte little-endian length, data); an exit packet.
std::string FakeOkay();
std::string FakeOkay(std::string_view payload);
std::string FakeFail(std::string_view text);
std::string FakeString(std::string_view payload);
std::string FakeShellPacket(uint8_t id, std::string_view data);
std::string FakeShellExit(uint8_t code);

// Runs `task` on `io` (on the calling thread) until it completes, at most `limit`; rethrows
// what escaped it; throws std::runtime_error when the limit passed (a hung client).
template <class T>
T RunAwaitable(boost::asio::io_context& io, boost::asio::awaitable<T> task,
               std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  std::optional<T> result;
  std::exception_ptr error;
  bool done = false;
  // A wrapper coroutine stores the value: co_spawn's own handler would need T() on error.
  boost::asio::co_spawn(
      io,
      [&result, task = std::move(task)]() mutable -> boost::asio::awaitable<void> {
        result.emplace(co_await std::move(task));
      },
      [&](std::exception_ptr e) {
        error = e;
        done = true;
      });
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    if (io.stopped()) io.restart();
    io.run_one_for(std::chrono::milliseconds(50));
  }
  if (!done) throw std::runtime_error("RunAwaitable: the task did not finish in time");
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace droidlab::testutil
