#include "api/server.h"

#include <algorithm>
#include <array>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cstring>
#include <exception>
#include <map>

#include "api/as_tuple.h"
#include "api/event_hub.h"
#include "api/json.h"
#include "api/request_guard.h"
#include "api/response_cache.h"
#include "base/wall_clock.h"
#include "orchestrator/stderr_log.h"
#include "store/async_store.h"

namespace droidlab::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using asio::use_awaitable;

namespace {

bool IsAllowedOrigin(const std::vector<std::string>& allowed, const std::string& origin) {
  if (origin.empty()) return false;
  return std::find(allowed.begin(), allowed.end(), origin) != allowed.end() ||
         std::find(allowed.begin(), allowed.end(), "*") != allowed.end();
}

// Built outside the coroutines: g++ 12 mishandles initializer lists and `?:` temporaries there.
std::string DeviceEventData(const orchestrator::DeviceSnapshot& device) {
  nlohmann::json data = {{"serial", device.serial}, {"state", device.state}};
  if (device.properties) {
    data["model"] = nullptr;
    data["sdk"] = nullptr;
    if (device.properties->model) data["model"] = *device.properties->model;
    if (device.properties->sdk) data["sdk"] = *device.properties->sdk;
  }
  return Dump(data);
}

std::string RunEventData(const orchestrator::RunEvent& e) {
  nlohmann::json data = {{"id", e.run_id},
                         {"serial", e.serial},
                         {"status", store::RunStatusName(e.status)},
                         {"error", nullptr},
                         {"progress", nullptr}};
  if (e.error) data["error"] = *e.error;
  if (e.progress) data["progress"] = ProgressJson(*e.progress);
  return Dump(data);
}

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

}  // namespace

struct Server::Impl : std::enable_shared_from_this<Impl> {
  // What shutdown needs to know of a connection.
  struct Connection {
    beast::tcp_stream* stream = nullptr;
    bool busy = false;  // between a request's header and its response's last byte
  };

  Impl(asio::any_io_executor ex, Services s, ServerOptions o)
      : executor(ex),
        services(std::move(s)),
        options(std::move(o)),
        acceptor(ex),
        hub(ex, options.event_backlog_bytes),
        cache(options.response_cache_ttl, options.response_cache_bytes) {
    if (!options.log) options.log = orchestrator::StderrLog("api");
    AddRoutes(router, services, metrics);
  }

  asio::any_io_executor executor;
  Services services;
  ServerOptions options;
  tcp::acceptor acceptor;
  EventHub hub;
  ResponseCache cache;
  Metrics metrics;
  Router router;

  bool stopping = false;
  uint64_t next_connection = 1;
  std::map<uint64_t, Connection> connections;
  std::map<asio::ip::address, size_t> connections_from;  // open connections per remote address
  GuardPolicy guard;  // set by Listen: whether the listener is loopback
  std::shared_ptr<asio::steady_timer> all_closed;

  // ---- One request → one response (no I/O), in the order a reader would check it: CORS
  // preflight, auth, the route, the cache, the handler.
  asio::awaitable<HttpResponse> Answer(const HttpRequest& request, std::string& route_name) {
    Router::Match match = router.Find(request.method, request.path);
    if (match.route) route_name = match.route->pattern;
    if (request.method == "OPTIONS") co_return CorsPreflight(request, match);
    // The token was checked before the body was read (Serve, RefusalBeforeBody).
    if (auto error = RouteError(request, match)) co_return std::move(*error);
    // A body that is not JSON was refused before it was read (RefusalBeforeBody).
    const bool cacheable = request.method == "GET" && Cacheable(match.route->pattern);
    if (cacheable) {
      std::optional<HttpResponse> hit = cache.Find(request.target, ResponseCache::Clock::now());
      if (hit) co_return std::move(*hit);
    }
    // A change that empties the cache while the handler reads makes its answer unfit to keep.
    const uint64_t generation = cache.generation();
    auto handle = CallHandler(*match.route, request, match.params);
    HttpResponse response = co_await std::move(handle);
    if (cacheable && response.status == 200) KeepInCache(request.target, response, generation);
    if (ChangesState(request.method) && response.status >= 200 && response.status < 300) {
      auto auditing = Audit(request, response);
      co_await std::move(auditing);
    }
    co_return response;
  }

  // The audit log's entry, committed before the answer goes out. A store that refuses it does
  // not undo what the request did: the refusal is logged with what was done and by whom.
  asio::awaitable<void> Audit(const HttpRequest& request, const HttpResponse& response) {
    if (!services.store) co_return;
    store::AuditEntry entry = AuditEntryOf(request, response, WallNowMs());
    const std::string what = entry.caller + " " + entry.method + " " + entry.path;
    store::AsyncStore door(*services.store);
    auto recording = door.AddAuditEntry(std::move(entry));
    auto recorded = co_await std::move(recording);
    if (!recorded) options.log("audit log: " + what + " not recorded: " + recorded.error().message);
  }

  // Who sent `request` (CallerOf) and from where, for the audit log: set once its token passed.
  void Attribute(HttpRequest& request, const std::string& remote) const {
    request.caller = CallerOf(options.token, options.tokens, request.authorization).value_or("");
    request.remote = remote;
  }

  // OPTIONS: the methods the path allows, to an allowed origin only.
  HttpResponse CorsPreflight(const HttpRequest& request, const Router::Match& match) const {
    std::vector<std::string> methods = match.allow;
    if (match.route) methods.push_back(match.route->method);
    if (methods.empty()) return JsonError(404, "not_found", "no such path: " + request.path);
    if (!IsAllowedOrigin(options.cors_origins, request.origin)) {
      return JsonError(403, "forbidden", "origin not allowed: " + request.origin);
    }
    HttpResponse preflight;
    preflight.status = 204;
    preflight.content_type.clear();
    preflight.headers.emplace_back("Access-Control-Allow-Methods", Join(methods, ", "));
    preflight.headers.emplace_back("Access-Control-Allow-Headers",
                                   "Authorization, Content-Type, If-None-Match");
    preflight.headers.emplace_back("Access-Control-Max-Age", "600");
    return preflight;
  }

  // The 401 a request without the daemon's token gets, or nothing. Health and the dashboard's
  // files are open: the page asks for the token (routes.h). The event stream is not.
  std::optional<HttpResponse> Authorize(const HttpRequest& request) const {
    if (!options.token && options.tokens.empty()) return std::nullopt;
    const bool open = request.path == "/api/v1/health" ||
                      (request.method == "GET" && IsDashboardPath(request.path));
    if (open) return std::nullopt;
    const std::string_view auth = request.authorization;
    const bool bearer = auth.size() > 7 && auth.substr(0, 7) == "Bearer ";
    if (CallerOf(options.token, options.tokens, auth)) return std::nullopt;
    HttpResponse denied =
        JsonError(401, "unauthorized",
                  bearer ? "the token is not valid" : "this daemon needs Authorization: Bearer TOKEN");
    denied.headers.emplace_back("WWW-Authenticate", "Bearer");
    return denied;
  }

  // 400 for a bad %-escape, 405 with Allow, 404: when the path names no route.
  static std::optional<HttpResponse> RouteError(const HttpRequest& request,
                                                const Router::Match& match) {
    if (match.bad_escape) return JsonError(400, "invalid_argument", "malformed %-escape in path");
    if (match.route) return std::nullopt;
    if (!match.allow.empty()) {
      HttpResponse wrong = JsonError(405, "method_not_allowed",
                                     request.method + " is not allowed on " + request.path +
                                         " (allowed: " + Join(match.allow, ", ") + ")");
      wrong.headers.emplace_back("Allow", Join(match.allow, ", "));
      return wrong;
    }
    return JsonError(404, "not_found", "no such path: " + request.path);
  }

  // 415 for a state-changing request whose body is not declared JSON: every route that takes a
  // body reads JSON, and a form or text/plain POST is what a cross-site page can send without a
  // preflight. A POST always has a body here (an empty one is still not JSON); a DELETE need
  // not have one, but one it has is JSON too.
  static bool IsSpooledRoute(const HttpRequest& request) {
    return request.method == kSpooledRouteMethod && request.path == kSpooledRoutePath;
  }

  static std::optional<HttpResponse> MediaTypeError(const HttpRequest& request, bool has_body) {
    const bool changes_state =
        request.method != "GET" && request.method != "HEAD" && request.method != "OPTIONS";
    if (!changes_state || (!has_body && request.method != "POST")) return std::nullopt;
    if (IsSpooledRoute(request)) {
      // The APK itself is the body (whatever the client calls it), or a multipart/form-data
      // body of a build's files (a base APK, its splits, a .dm), read by the builds library.
      if (!request.content_type.starts_with("multipart/") ||
          request.content_type.starts_with("multipart/form-data")) {
        return std::nullopt;
      }
      return JsonError(415, "unsupported_media_type",
                       "send the APK itself as the body (curl --data-binary @app.apk -H "
                       "'Content-Type: application/vnd.android.package-archive') or a build's "
                       "files as multipart/form-data (curl -F file=@base.apk -F "
                       "file=@split.apk)");
    }
    if (IsJsonMediaType(request.content_type)) return std::nullopt;
    const std::string given =
        request.content_type.empty() ? "none" : "'" + request.content_type + "'";
    return JsonError(415, "unsupported_media_type",
                     "a " + request.method + " body must be sent with Content-Type: "
                     "application/json (got " + given + ")");
  }

  // The route's handler; an exception it lets out is a 500 with its words, not a dead daemon.
  static asio::awaitable<HttpResponse> CallHandler(const Route& route, const HttpRequest& request,
                                                   const PathParams& params) {
    try {
      auto handle = route.handler(request, params);
      co_return co_await std::move(handle);
    } catch (const std::exception& e) {
      co_return JsonError(500, "internal", std::string("internal error: ") + e.what());
    }
  }

  // The body moves into the cache and is shared from there, this time too.
  void KeepInCache(const std::string& target, HttpResponse& response, uint64_t generation) {
    response.etag = EtagOf(response.body);
    response.shared_body = std::make_shared<const std::string>(std::move(response.body));
    response.body.clear();
    cache.Store(target, response, ResponseCache::Clock::now(), generation);
  }

  // Routes whose answer depends only on the store and the registry: not health (asks the adb
  // server) nor /metrics (counts this very request).
  static bool Cacheable(std::string_view pattern) {
    return pattern != "/api/v1/health" && pattern != "/metrics";
  }

  // ETag, 304, CORS on a handler's response.
  void Finish(const HttpRequest& request, HttpResponse& response) {
    if (request.method != "GET" && request.method != "HEAD" && request.method != "OPTIONS") {
      cache.Clear();  // a POST or DELETE may have changed anything a GET shows
    }
    if (request.method == "GET" && response.status == 200) {
      const std::string etag = response.etag.empty() ? EtagOf(response.body) : response.etag;
      response.headers.emplace_back("ETag", etag);
      if (!request.if_none_match.empty() && IfNoneMatchHits(request.if_none_match, etag)) {
        response.status = 304;
        response.body.clear();
        response.shared_body.reset();
      }
    }
    if (IsAllowedOrigin(options.cors_origins, request.origin)) {
      response.headers.emplace_back("Access-Control-Allow-Origin", request.origin);
      response.headers.emplace_back("Vary", "Origin");
    }
  }

  static HttpRequest ToRequest(const http::request<http::string_body>& req, bool& bad_query) {
    HttpRequest r;
    r.method = std::string(req.method_string());
    const std::string_view target = req.target();
    const size_t q = target.find('?');
    r.path = std::string(target.substr(0, q));
    r.target = std::string(target);
    if (q != std::string_view::npos) {
      auto query = ParseQuery(target.substr(q + 1));
      bad_query = !query;
      if (query) r.query = std::move(*query);
    }
    r.body = req.body();
    r.authorization = std::string(req[http::field::authorization]);
    r.if_none_match = std::string(req[http::field::if_none_match]);
    r.origin = std::string(req[http::field::origin]);
    r.content_type = std::string(req[http::field::content_type]);
    r.host = std::string(req[http::field::host]);
    r.file_name = std::string(req["X-File-Name"]);
    return r;
  }

  template <class Body>
  static void SetHead(http::response<Body>& res, const HttpResponse& r, bool keep_alive) {
    res.set(http::field::server, "droidlab");
    if (!r.content_type.empty() && r.status != 304) res.set(http::field::content_type, r.content_type);
    for (const auto& [name, value] : r.headers) res.set(name, value);
    res.keep_alive(keep_alive);
  }

  // Takes the body (no copy of a large answer on the way out).
  static http::response<http::string_body> ToBeast(HttpResponse& r, unsigned version,
                                                   bool keep_alive) {
    http::response<http::string_body> res{static_cast<http::status>(r.status), version};
    SetHead(res, r, keep_alive);
    res.body() = std::move(r.body);
    res.prepare_payload();
    return res;
  }

  // A cached body, written from the cache's own bytes (kept alive by `r.shared_body`).
  static http::response<http::span_body<const char>> ToBeastShared(const HttpResponse& r,
                                                                   unsigned version,
                                                                   bool keep_alive) {
    http::response<http::span_body<const char>> res{static_cast<http::status>(r.status),
                                                    version};
    SetHead(res, r, keep_alive);
    res.body() = boost::span<const char>(r.shared_body->data(), r.shared_body->size());
    res.prepare_payload();
    return res;
  }

  // An error answered before the request was read whole; the connection closes after it.
  asio::awaitable<void> Refuse(beast::tcp_stream& stream, int status, std::string_view code,
                               std::string_view message) {
    HttpResponse error = JsonError(status, code, message);
    auto answering = AnswerAndClose(stream, error, "unread");
    co_await std::move(answering);
  }

  // Writes `response` with Connection: close, then reads and drops what the client still sends
  // (the body it was refused) until it closes, for a second at most: closing a socket with
  // unread bytes sends a reset, which can destroy the answer before the client reads it.
  // `route` by value: a coroutine keeps its reference parameters, not what they referred to.
  asio::awaitable<void> AnswerAndClose(beast::tcp_stream& stream, HttpResponse& response,
                                       std::string route) {
    auto res = ToBeast(response, 11, false);
    stream.expires_after(options.write_timeout);
    metrics.CountRequest(route, response.status);
    auto [write_error, written] = co_await http::async_write(stream, res, kTuple);
    if (write_error) co_return;
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.expires_after(std::chrono::seconds(1));
    std::array<char, 16 * 1024> sink;
    size_t dropped = 0;
    while (dropped < options.max_body + options.max_header) {
      auto [read_error, n] = co_await stream.async_read_some(asio::buffer(sink), kTuple);
      if (read_error) break;
      dropped += n;
    }
  }

  // What is refused on the header alone, before a body byte is read: a request from a foreign
  // Host or Origin (no token; request_guard.h), one without the token (401), a body that is not
  // JSON sent to a route (415; 404 and 405 wait for Answer). A CORS preflight carries no
  // credentials by design: it is answered by Answer.
  std::optional<HttpResponse> RefusalBeforeBody(const HttpRequest& request, bool has_body) const {
    if (auto refused = CheckHostAndOrigin(guard, request.method, request.host, request.origin)) {
      return JsonError(refused->status, refused->code, refused->message);
    }
    if (request.method == "OPTIONS") return std::nullopt;
    if (auto denied = Authorize(request)) return denied;
    if (!router.Find(request.method, request.path).route) return std::nullopt;
    return MediaTypeError(request, has_body);
  }

  // Streams the body of the spooled route to the builds library: the bytes the header read left
  // in `buffer`, then the socket's, `upload_chunk` at a time, each read bounded by body_timeout
  // (a slow client that keeps sending is served; a silent one is dropped). False: the client
  // went away or stalled (nothing kept), or `refused` says what to answer (411, 413, 500).
  asio::awaitable<bool> SpoolBody(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                  boost::optional<uint64_t> length, HttpRequest& request,
                                  std::optional<HttpResponse>& refused) {
    if (!length) {
      refused = JsonError(411, "length_required",
                          "send the APK with a Content-Length (curl --data-binary @app.apk does)");
      co_return false;
    }
    auto beginning = services.builds->BeginUpload(options.upload_chunk);
    auto begun = co_await std::move(beginning);
    if (!begun) {
      refused = JsonError(500, "internal", begun.error());
      co_return false;
    }
    std::unique_ptr<orchestrator::BuildLibrary::Upload> upload = std::move(begun).value();
    uint64_t left = *length;
    // Read straight into the upload's own buffers, which the file and hash threads then read and
    // give back: no copy, no fresh zero-filled buffer per chunk.
    orchestrator::UploadBuffer chunk = upload->Buffer();
    while (left > 0) {
      const size_t room =
          static_cast<size_t>(std::min<uint64_t>(left, chunk.capacity() - chunk.size()));
      if (buffer.size() > 0) {
        const size_t take = std::min(buffer.size(), room);
        std::memcpy(chunk.data() + chunk.size(), buffer.data().data(), take);
        chunk.resize(chunk.size() + take);
        buffer.consume(take);
        left -= take;
      } else {
        stream.expires_after(options.body_timeout);
        auto reading =
            stream.async_read_some(asio::buffer(chunk.data() + chunk.size(), room), kTuple);
        auto [read_error, n] = co_await std::move(reading);
        chunk.resize(chunk.size() + n);
        if (read_error) co_return false;  // gone or silent: the upload's file is removed
        left -= n;
      }
      if (chunk.size() == chunk.capacity() || left == 0) {
        auto writing = upload->Write(std::move(chunk));
        std::optional<std::string> write_error = co_await std::move(writing);
        if (write_error) {
          refused = JsonError(500, "internal", *write_error);
          co_return false;
        }
        chunk = upload->Buffer();
      }
    }
    auto finishing = upload->Finish();
    auto finished = co_await std::move(finishing);
    if (!finished) {
      refused = JsonError(500, "internal", finished.error());
      co_return false;
    }
    request.spooled = SpooledBody{finished->path, finished->size, finished->sha256};
    co_return true;
  }

  // ---- A connection.
  static asio::awaitable<void> Session(std::shared_ptr<Impl> self, tcp::socket socket,
                                       asio::ip::address from) {
    beast::tcp_stream stream(std::move(socket));
    const uint64_t id = self->next_connection++;
    self->connections[id] = Connection{&stream, false};
    co_await self->Serve(stream, self->connections[id]);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.close();
    self->connections.erase(id);
    auto counted = self->connections_from.find(from);
    if (counted != self->connections_from.end() && --counted->second == 0) {
      self->connections_from.erase(counted);
    }
    if (self->connections.empty() && self->all_closed) self->all_closed->cancel();
  }

  asio::awaitable<void> Serve(beast::tcp_stream& stream, Connection& connection) {
    beast::flat_buffer buffer;
    boost::system::error_code peer_error;
    const tcp::endpoint peer = stream.socket().remote_endpoint(peer_error);
    const std::string remote = peer_error ? std::string("?") : peer.address().to_string();
    while (!stopping) {
      connection.busy = false;
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options.max_header));
      // The upload route's bound until the route is known; every other body is held to max_body
      // right after the header (below).
      parser.body_limit(std::max<uint64_t>(options.max_body, options.max_upload));
      stream.expires_after(options.header_timeout);
      auto [header_error, header_bytes] =
          co_await http::async_read_header(stream, buffer, parser, kTuple);
      if (header_error) {
        // A parse error after bytes came is answered; a client that went away, timed out or
        // was cancelled by shutdown is simply closed.
        const auto& http_category = http::make_error_code(http::error::bad_method).category();
        // Messages named first: temporaries in a co_await are destroyed twice by g++ 12.
        if (header_error == http::error::header_limit) {
          const std::string message = "request header larger than " +
                                      std::to_string(options.max_header) + " bytes";
          co_await Refuse(stream, 431, "header_too_large", message);
        } else if (header_error == http::error::body_limit) {  // a Content-Length too large
          const std::string message =
              "request body larger than " + std::to_string(options.max_body) + " bytes";
          co_await Refuse(stream, 413, "payload_too_large", message);
        } else if (header_error.category() == http_category &&
                   header_error != http::error::end_of_stream &&
                   header_error != http::error::partial_message) {
          const std::string message = "not an HTTP/1.1 request: " + header_error.message();
          co_await Refuse(stream, 400, "bad_request", message);
        }
        co_return;
      }
      // Beast's header_limit counts from where its last partial parse stopped, so a header that
      // came in pieces may pass it by the size of its first lines: the limit is kept exactly here.
      if (header_bytes > options.max_header) {
        const std::string message =
            "request header larger than " + std::to_string(options.max_header) + " bytes";
        co_await Refuse(stream, 431, "header_too_large", message);
        co_return;
      }
      bool spool = false;
      {
        bool ignored_bad_query = false;
        spool = services.builds != nullptr &&
                IsSpooledRoute(ToRequest(parser.get(), ignored_bad_query));
        const auto length = parser.content_length();
        if (!spool && length && *length > options.max_body) {
          const std::string message =
              "request body larger than " + std::to_string(options.max_body) + " bytes";
          co_await Refuse(stream, 413, "payload_too_large", message);
          co_return;
        }
        if (!spool) parser.body_limit(options.max_body);
      }
      connection.busy = true;
      {
        bool ignored_bad_query = false;
        const HttpRequest head = ToRequest(parser.get(), ignored_bad_query);  // no body yet
        std::optional<HttpResponse> refused = RefusalBeforeBody(head, !parser.is_done());
        if (refused) {
          Router::Match match = router.Find(head.method, head.path);
          const std::string route = match.route ? match.route->pattern : "unmatched";
          auto answering = AnswerAndClose(stream, *refused, route);
          co_await std::move(answering);
          co_return;
        }
      }
      if (spool) {
        // The APK goes to disk as it comes (SpoolBody); the request carries where it is.
        bool bad_query = false;
        HttpRequest request = ToRequest(parser.get(), bad_query);
        Attribute(request, remote);
        const bool keep_alive = parser.get().keep_alive() && !stopping;
        const unsigned version = parser.get().version();
        std::optional<HttpResponse> refused;
        auto spooling = SpoolBody(stream, buffer, parser.content_length(), request, refused);
        const bool read_all = co_await std::move(spooling);
        if (refused) {
          auto answering = AnswerAndClose(stream, *refused, kSpooledRoutePath);
          co_await std::move(answering);
          co_return;
        }
        if (!read_all) co_return;
        std::string route_name = "unmatched";
        HttpResponse response = co_await Answer(request, route_name);
        Finish(request, response);
        metrics.CountRequest(route_name, response.status);
        stream.expires_after(options.write_timeout);
        auto res = ToBeast(response, version, keep_alive);
        auto [e, written] = co_await http::async_write(stream, res, kTuple);
        if (e || !keep_alive) co_return;
        continue;
      }
      if (!parser.is_done()) {
        stream.expires_after(options.body_timeout);
        auto [body_error, body_bytes] = co_await http::async_read(stream, buffer, parser, kTuple);
        if (body_error == http::error::body_limit) {
          const std::string message =
              "request body larger than " + std::to_string(options.max_body) + " bytes";
          co_await Refuse(stream, 413, "payload_too_large", message);
          co_return;
        }
        if (body_error) co_return;
      }
      http::request<http::string_body> req = parser.release();
      bool bad_query = false;
      HttpRequest request = ToRequest(req, bad_query);
      Attribute(request, remote);

      if (request.method == "GET" && request.path == "/api/v1/events" && !bad_query) {
        // Each stream holds a connection and a queue for as long as the client stays: bounded.
        if (metrics.sse_clients >= options.max_event_streams) {
          HttpResponse full = JsonError(
              503, "unavailable",
              "too many event streams open (" + std::to_string(options.max_event_streams) +
                  "); poll GET /api/v1/runs, or retry later");
          full.headers.emplace_back("Retry-After", "5");
          auto answering = AnswerAndClose(stream, full, "/api/v1/events");
          co_await std::move(answering);
          co_return;
        }
        metrics.CountRequest("/api/v1/events", 200);
        co_await StreamEvents(stream, request);
        co_return;
      }

      std::string route_name = "unmatched";
      HttpResponse response;
      if (bad_query) {
        response = JsonError(400, "invalid_argument", "malformed %-escape in the query");
      } else {
        response = co_await Answer(request, route_name);
      }
      Finish(request, response);
      metrics.CountRequest(route_name, response.status);
      const bool keep_alive = req.keep_alive() && !stopping;
      stream.expires_after(options.write_timeout);
      boost::system::error_code write_error;
      if (response.shared_body) {
        auto res = ToBeastShared(response, req.version(), keep_alive);
        auto [e, written] = co_await http::async_write(stream, res, kTuple);
        write_error = e;
      } else {
        auto res = ToBeast(response, req.version(), keep_alive);
        auto [e, written] = co_await http::async_write(stream, res, kTuple);
        write_error = e;
      }
      if (write_error || !keep_alive) co_return;
    }
  }

  // Linux grows a socket's send buffer up to tcp_wmem's maximum (4 MB by default) as the peer
  // acknowledges: a stream whose reader stopped would hold megabytes in the kernel (1,024 of
  // them, gigabytes) and take that long to be found stalled. Events are small and a stream's
  // backlog waits in the hub, bounded: a fixed buffer is enough.
  void LimitSendBuffer(beast::tcp_stream& stream) const {
    if (options.event_stream_send_buffer == 0) return;
    boost::system::error_code ignored;
    stream.socket().set_option(
        asio::socket_base::send_buffer_size(static_cast<int>(options.event_stream_send_buffer)),
        ignored);
  }

  asio::awaitable<void> StreamEvents(beast::tcp_stream& stream, const HttpRequest& request) {
    std::string head =
        "HTTP/1.1 200 OK\r\nServer: droidlab\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: close\r\n";
    if (IsAllowedOrigin(options.cors_origins, request.origin)) {
      head += "Access-Control-Allow-Origin: " + request.origin + "\r\nVary: Origin\r\n";
    }
    head += "\r\n: droidlab events\n\n";
    auto subscriber = hub.Subscribe();
    ++metrics.sse_clients;
    LimitSendBuffer(stream);
    stream.expires_after(options.write_timeout);
    auto [head_error, head_bytes] = co_await asio::async_write(stream, asio::buffer(head), kTuple);
    while (!head_error && !subscriber->closed && !stopping) {
      std::string out;
      if (subscriber->pending.empty()) {
        subscriber->wake.expires_after(options.sse_keepalive);
        boost::system::error_code ec;
        co_await subscriber->wake.async_wait(asio::redirect_error(use_awaitable, ec));
        if (subscriber->closed || stopping) break;
        if (!ec) out = ": keepalive\n\n";  // the timer ran out
      }
      out += EventHub::TakePending(*subscriber);
      if (out.empty()) continue;
      // A reader that stopped: the write waits on a full socket until write_timeout, while its
      // queue in the hub loses its oldest events, then the stream is dropped.
      stream.expires_after(options.write_timeout);
      auto [error, bytes] = co_await asio::async_write(stream, asio::buffer(out), kTuple);
      if (error) break;
    }
    --metrics.sse_clients;
    hub.Unsubscribe(subscriber);
  }
};

Server::Server(asio::any_io_executor executor, Services services, ServerOptions options)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(services), std::move(options))) {}

Server::~Server() = default;

const Router& Server::router() const { return impl_->router; }

size_t Server::open_connections() const { return impl_->connections.size(); }

size_t Server::event_streams() const { return impl_->hub.subscribers(); }

size_t Server::largest_event_backlog() const { return impl_->hub.largest_backlog(); }

BasicResult<uint16_t, std::string> Server::Listen() {
  Impl& s = *impl_;
  const std::string where = s.options.host + ":" + std::to_string(s.options.port);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(s.options.host, ec);
  if (ec) return "cannot listen on " + where + ": not an IP address";
  const tcp::endpoint endpoint(address, s.options.port);
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return "cannot listen on " + where + ": " + ec.message();
  s.guard.has_token = s.options.token.has_value();
  s.guard.loopback_listener = address.is_loopback();
  s.guard.cors_origins = &s.options.cors_origins;
  return s.acceptor.local_endpoint().port();
}

asio::awaitable<void> Server::Run() {
  std::shared_ptr<Impl> self = impl_;
  co_await asio::this_coro::throw_if_cancelled(false);
  Impl& s = *self;

  uint64_t run_listener = 0;
  if (s.services.queue) {
    std::weak_ptr<Impl> weak = self;
    run_listener = s.services.queue->Subscribe([weak](const orchestrator::RunEvent& e) {
      auto impl = weak.lock();
      if (!impl) return;
      impl->cache.Clear();
      impl->hub.Publish("run", RunEventData(e));
    });
  }
  uint64_t device_listener = 0;
  if (s.services.registry) {
    std::weak_ptr<Impl> weak = self;
    device_listener =
        s.services.registry->Subscribe([weak](const orchestrator::DeviceSnapshot& device) {
          auto impl = weak.lock();
          if (!impl) return;
          impl->cache.Clear();
          impl->hub.Publish("device", DeviceEventData(device));
        });
  }

  for (;;) {
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      break;
    }
    auto [ec, socket] = co_await s.acceptor.async_accept(kTuple);
    if (ec) {
      if (ec == asio::error::operation_aborted) break;
      // Out of file descriptors and the like: keep serving the connections there are.
      asio::steady_timer pause(s.executor, std::chrono::milliseconds(50));
      boost::system::error_code ignored;
      co_await pause.async_wait(asio::redirect_error(use_awaitable, ignored));
      if ((co_await asio::this_coro::cancellation_state).cancelled() !=
          asio::cancellation_type::none) {
        break;
      }
      continue;
    }
    boost::system::error_code peer_error;
    const tcp::endpoint peer = socket.remote_endpoint(peer_error);
    size_t from_peer = 0;
    if (!peer_error) {
      auto counted = s.connections_from.find(peer.address());
      if (counted != s.connections_from.end()) from_peer = counted->second;
    }
    if (peer_error || s.connections.size() >= s.options.max_connections ||
        from_peer >= s.options.max_connections_per_client) {
      boost::system::error_code ignored;
      socket.close(ignored);  // gone already, or over a bound: closed at once
      continue;
    }
    ++s.connections_from[peer.address()];
    auto session = Impl::Session(self, std::move(socket), peer.address());
    asio::co_spawn(s.executor, std::move(session), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);  // a bug: let it be seen
    });
  }
  co_await asio::this_coro::reset_cancellation_state();

  // Graceful stop: no new connections; idle ones close now; busy ones after their response.
  s.stopping = true;
  boost::system::error_code ignored;
  s.acceptor.close(ignored);
  if (run_listener) s.services.queue->Unsubscribe(run_listener);
  if (device_listener) s.services.registry->Unsubscribe(device_listener);
  s.hub.CloseAll();
  for (auto& [id, connection] : s.connections) {
    if (!connection.busy) connection.stream->cancel();
  }
  if (!s.connections.empty()) {
    s.all_closed = std::make_shared<asio::steady_timer>(s.executor, s.options.drain_timeout);
    boost::system::error_code ec;
    co_await s.all_closed->async_wait(asio::redirect_error(use_awaitable, ec));
    for (auto& [id, connection] : s.connections) connection.stream->socket().close(ignored);
    while (!s.connections.empty()) {
      s.all_closed = std::make_shared<asio::steady_timer>(s.executor, std::chrono::milliseconds(100));
      co_await s.all_closed->async_wait(asio::redirect_error(use_awaitable, ec));
    }
  }
}

}  // namespace droidlab::api
