// The REST API over HTTP/1.1 (Boost.Beast, kept out of this header): every route of API.md,
// on the daemon's io_context thread.
//
//   api::Server server(io.get_executor(), services, options);
//   auto port = server.Listen();                // binds; error text when the address is taken
//   asio::co_spawn(io, server.Run(), bind_cancellation_slot(stop.slot(), ...));
//   stop.emit(asio::cancellation_type::terminal);   // graceful: see Run
//
// Per connection: keep-alive, pipelined requests answered in order, a deadline for the header
// (a slow-loris client is dropped; others are not slowed) and one for the body, 413 past
// max_body, 431 past max_header, 400 for a request that is not HTTP. Connections beyond
// max_connections, or beyond max_connections_per_client from one address, are closed at once.
// Before a body is read: without a token, the Host and Origin checks of api/request_guard.h
// (403); a state-changing request with a body not declared JSON (415); with a token, every request but GET /api/v1/health and the
// dashboard's static files (GET / and /ui/{file}) needs `Authorization: Bearer TOKEN` (compared
// in constant time), 401 otherwise — either refusal closes the connection, the body unread; the
// event stream takes the token in that header only. CORS headers only for
// the configured origins. Every GET answers with an ETag; If-None-Match gets 304 without a body.
// POST /api/v1/builds (with a builds library) is the one route whose body is not read into
// memory: it is streamed to a file as it arrives (api/routes.h, kSpooledRoutePath), any
// Content-Type but multipart, with a Content-Length, each read bounded by body_timeout.
// GET /api/v1/events streams run and device changes as Server-Sent Events: max_event_streams at
// once (503 with Retry-After beyond), each with a bounded backlog (api/event_hub.h) and a small
// send buffer, dropped when a write to it waits write_timeout.
//
// Threading: everything runs on the executor given; handlers never block it (routes.h).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/audit.h"
#include "api/routes.h"
#include "base/result.h"

namespace droidlab::api {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8765;  // 0: the kernel picks (tests)
  // The API's tokens: any one of them lets a request in, and its name is who the audit log says
  // made the request (api/audit.h). `token` is one more, named "token". None: no token needed,
  // loopback only (request_guard.h), and the caller is "local".
  std::optional<std::string> token;
  std::vector<NamedToken> tokens;
  std::vector<std::string> cors_origins;
  size_t max_connections = 1024;
  // Per remote address: one host (a runaway script, a dashboard left open in 200 tabs) cannot
  // take every connection. Over either bound a connection is closed at once.
  size_t max_connections_per_client = 128;
  size_t max_event_streams = 1024;  // GET /api/v1/events beyond this: 503 with Retry-After
  // Per stream: events waiting for a slow reader (its oldest are dropped beyond, api/event_hub.h)
  // and the socket's send buffer (0: the kernel's own, which grows to megabytes).
  size_t event_backlog_bytes = 64 * 1024;
  size_t event_stream_send_buffer = 32 * 1024;
  std::chrono::milliseconds header_timeout{10'000};  // from the first byte wait to a full header
  std::chrono::milliseconds body_timeout{10'000};
  std::chrono::milliseconds write_timeout{30'000};
  size_t max_body = 1024 * 1024;
  // POST /api/v1/builds: its body (an APK) is streamed to the builds library's disk, never held
  // in memory, up to this many bytes (Content-Length required: 411 without, 413 beyond).
  uint64_t max_upload = uint64_t{4} << 30;
  size_t upload_chunk = 256 * 1024;  // bytes read from the socket per write to the file
  size_t max_header = 16 * 1024;
  std::chrono::milliseconds sse_keepalive{15'000};
  std::chrono::milliseconds drain_timeout{5'000};  // shutdown: in-flight requests get this long
  // GET responses kept this long at most (api/response_cache.h); 0: no cache.
  std::chrono::milliseconds response_cache_ttl{1'000};
  size_t response_cache_bytes = 64 * 1024 * 1024;
  // What the server has to say that no response carries (an audit entry the store refused).
  // Default: stderr.
  std::function<void(std::string_view)> log;
};

class Server {
 public:
  Server(boost::asio::any_io_executor executor, Services services, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; the port bound. Error: one line naming the address and the reason.
  BasicResult<uint16_t, std::string> Listen();
  // Accepts until cancelled (terminal cancellation of the awaiting coroutine). Then: stops
  // accepting, lets each connection finish the request it is answering (drain_timeout at most),
  // ends the event streams, and returns when every connection is closed.
  boost::asio::awaitable<void> Run();

  const Router& router() const;
  // Read on the executor's thread (tests, diagnostics).
  size_t open_connections() const;
  size_t event_streams() const;
  size_t largest_event_backlog() const;  // bytes waiting for the slowest event stream

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::api
