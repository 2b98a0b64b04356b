#include "daemon/client_http.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <algorithm>
#include <exception>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#ifndef DROIDLAB_VERSION
#define DROIDLAB_VERSION "0.0.0"
#endif

namespace droidlab::daemon {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// Larger answers than this are not the API's (a page of 1000 runs is ~1 MiB).
constexpr uint64_t kMaxBody = 64ull << 20;

std::string Seconds(std::chrono::milliseconds d) {
  const auto ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// Runs `task` on a fresh io_context to its end. The coroutines below return void and write
// their outcome through a pointer: co_spawn's handler wants a default-constructible value,
// which a BasicResult is not.
void RunToCompletion(asio::io_context& io, asio::awaitable<void> task) {
  std::exception_ptr failure;
  asio::co_spawn(io, std::move(task), [&failure](std::exception_ptr e) { failure = e; });
  io.run();
  if (failure) std::rethrow_exception(failure);
}

class Exchange {
 public:
  Exchange(const ServerAddress& server, const std::optional<std::string>& token,
           std::chrono::milliseconds timeout, asio::io_context& io)
      : server_(server), token_(token), timeout_(timeout), stream_(io) {}

  std::string Fail(const std::string& what) const {
    return "cannot reach the daemon at " + server_.url + ": " + what;
  }
  std::string Describe(const boost::system::error_code& ec) const {
    if (ec == beast::error::timeout) return Fail("no answer within " + Seconds(timeout_));
    return Fail(ec.message());
  }

  // Resolves and connects; an error line or nothing.
  asio::awaitable<std::optional<std::string>> Connect() {
    tcp::resolver resolver(stream_.get_executor());
    const std::string port = std::to_string(server_.port);
    const std::string& host = server_.host;
    auto [resolve_error, endpoints] = co_await resolver.async_resolve(host, port, kTuple);
    if (resolve_error) co_return Fail(resolve_error.message());
    stream_.expires_after(timeout_);
    auto [connect_error, endpoint] = co_await stream_.async_connect(endpoints, kTuple);
    (void)endpoint;
    if (connect_error) co_return Describe(connect_error);
    co_return std::nullopt;
  }

  http::request<http::string_body> MakeRequest(http::verb verb, const std::string& target,
                                               const std::string& body, const char* accept) const {
    http::request<http::string_body> req{verb, server_.base_path + target, 11};
    const bool v6 = server_.host.find(':') != std::string::npos;
    req.set(http::field::host,
            (v6 ? "[" + server_.host + "]" : server_.host) + ":" + std::to_string(server_.port));
    req.set(http::field::user_agent, "droidlab/" DROIDLAB_VERSION);
    req.set(http::field::accept, accept);
    if (token_) req.set(http::field::authorization, "Bearer " + *token_);
    if (!body.empty()) {
      req.set(http::field::content_type, "application/json");
      req.body() = body;
    }
    req.keep_alive(false);
    req.prepare_payload();
    return req;
  }

  asio::awaitable<std::optional<std::string>> Write(http::request<http::string_body>& req) {
    stream_.expires_after(timeout_);
    auto [error, bytes] = co_await http::async_write(stream_, req, kTuple);
    (void)bytes;
    if (error) co_return Describe(error);
    co_return std::nullopt;
  }

  beast::tcp_stream& stream() { return stream_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  const ServerAddress& server_;
  const std::optional<std::string>& token_;
  std::chrono::milliseconds timeout_;
  beast::tcp_stream stream_;
};

using RequestOutcome = std::optional<BasicResult<HttpReply, TransportError>>;

asio::awaitable<void> DoRequest(Exchange& x, http::verb verb, const std::string& target,
                                const std::string& body, RequestOutcome* out) {
  if (auto error = co_await x.Connect()) {
    *out = TransportError{*error};
    co_return;
  }
  http::request<http::string_body> req = x.MakeRequest(verb, target, body, "application/json");
  if (auto error = co_await x.Write(req)) {
    *out = TransportError{*error};
    co_return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBody);
  x.stream().expires_after(x.timeout());
  auto [error, bytes] = co_await http::async_read(x.stream(), buffer, parser, kTuple);
  (void)bytes;
  if (error) {
    *out = TransportError{error.category() ==
                                  http::make_error_code(http::error::bad_version).category()
                              ? x.Fail("not an HTTP answer (" + error.message() + ")")
                              : x.Describe(error)};
    co_return;
  }
  *out = HttpReply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
}

// The same exchange with the file at `path` as the body, read from disk as it is sent.
asio::awaitable<void> ReadUploadReply(Exchange& x, RequestOutcome* out);

asio::awaitable<void> DoUpload(Exchange& x, const std::string& target, const std::string& path,
                               RequestOutcome* out) {
  http::request<http::file_body> req{http::verb::post, "", 11};
  {
    beast::error_code open_error;
    req.body().open(path.c_str(), beast::file_mode::scan, open_error);
    if (open_error) {
      *out = TransportError{"cannot read " + path + ": " + open_error.message()};
      co_return;
    }
  }
  if (auto error = co_await x.Connect()) {
    *out = TransportError{*error};
    co_return;
  }
  const http::request<http::string_body> head = x.MakeRequest(http::verb::post, target, "", "application/json");
  req.target(head.target());
  for (const auto& field : head) req.set(field.name_string(), field.value());
  req.set(http::field::content_type, "application/vnd.android.package-archive");
  req.set("X-File-Name", std::filesystem::path(path).filename().string());
  req.keep_alive(false);
  req.prepare_payload();
  // Sending takes as long as the file does: the deadline covers the step, not the whole file.
  x.stream().expires_after(std::max(x.timeout(), std::chrono::milliseconds(std::chrono::minutes(30))));
  auto [write_error, written] = co_await http::async_write(x.stream(), req, kTuple);
  (void)written;
  if (write_error) {
    *out = TransportError{x.Describe(write_error)};
    co_return;
  }
  auto reading = ReadUploadReply(x, out);
  co_await std::move(reading);
}

// The daemon's answer to an upload, once the body is sent.
asio::awaitable<void> ReadUploadReply(Exchange& x, RequestOutcome* out) {
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxBody);
  // The daemon reads the manifest and syncs the file before it answers.
  x.stream().expires_after(std::max(x.timeout(), std::chrono::milliseconds(std::chrono::minutes(5))));
  auto [error, bytes] = co_await http::async_read(x.stream(), buffer, parser, kTuple);
  (void)bytes;
  if (error) {
    *out = TransportError{x.Describe(error)};
    co_return;
  }
  *out = HttpReply{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
}

// One file of a multipart upload: its part's header, where it is, how long.
struct UploadPart {
  std::string head;
  std::string path;
  uint64_t size = 0;
};

// The files as one multipart/form-data body (RFC 7578), as curl -F 'file=@PATH' sends them:
// the part headers and CRLFs written as they come, each file read from disk in chunks and
// written as it is read, so no file is ever held whole. Content-Length is known beforehand.
asio::awaitable<void> DoUploadParts(Exchange& x, const std::string& target,
                                    std::vector<std::string> paths, RequestOutcome* out) {
  std::random_device random;
  char boundary_text[48];
  std::snprintf(boundary_text, sizeof boundary_text, "droidlab-%08x%08x%08x", random(), random(),
                random());
  const std::string boundary = boundary_text;
  std::vector<UploadPart> parts;
  uint64_t total = 0;
  for (const std::string& path : paths) {
    std::error_code size_error;
    const uint64_t size = std::filesystem::file_size(path, size_error);
    const std::string name = std::filesystem::path(path).filename().string();
    if (size_error) {
      *out = TransportError{"cannot read " + path + ": " + size_error.message()};
      co_return;
    }
    if (name.find_first_of("\"\\\r\n") != std::string::npos) {
      *out = TransportError{"cannot read " + path + ": its name holds a quote, a backslash or a "
                            "line end, which a multipart part header cannot carry"};
      co_return;
    }
    UploadPart part;
    part.head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" +
                name + "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
    part.path = path;
    part.size = size;
    total += part.head.size() + size + 2;
    parts.push_back(std::move(part));
  }
  const std::string close = "--" + boundary + "--\r\n";
  total += close.size();
  if (auto error = co_await x.Connect()) {
    *out = TransportError{*error};
    co_return;
  }
  const http::request<http::string_body> head =
      x.MakeRequest(http::verb::post, target, "", "application/json");
  http::request<http::empty_body> req{http::verb::post, head.target(), 11};
  for (const auto& field : head) req.set(field.name_string(), field.value());
  req.set(http::field::content_type, "multipart/form-data; boundary=" + boundary);
  req.content_length(total);
  req.keep_alive(false);
  x.stream().expires_after(std::max(x.timeout(), std::chrono::milliseconds(std::chrono::minutes(30))));
  http::request_serializer<http::empty_body> serializer(req);
  auto [head_error, head_bytes] = co_await http::async_write_header(x.stream(), serializer, kTuple);
  (void)head_bytes;
  std::optional<std::string> error;
  if (head_error) error = x.Describe(head_error);
  std::vector<char> chunk(256 * 1024);
  static const std::string kLineEnd = "\r\n";
  for (const UploadPart& part : parts) {
    if (error) break;
    auto [part_error, part_bytes] =
        co_await asio::async_write(x.stream(), asio::buffer(part.head), kTuple);
    (void)part_bytes;
    if (part_error) {
      error = x.Describe(part_error);
      break;
    }
    std::ifstream in(part.path, std::ios::binary);
    uint64_t left = part.size;
    while (left > 0 && !error) {
      in.read(chunk.data(), static_cast<std::streamsize>(std::min<uint64_t>(chunk.size(), left)));
      const auto got = static_cast<size_t>(in.gcount());
      if (got == 0) {
        error = "cannot read " + part.path + ": it shrank while being sent";
        break;
      }
      auto [data_error, data_bytes] =
          co_await asio::async_write(x.stream(), asio::buffer(chunk.data(), got), kTuple);
      (void)data_bytes;
      if (data_error) error = x.Describe(data_error);
      left -= got;
    }
    if (error) break;
    auto [end_error, end_bytes] = co_await asio::async_write(x.stream(), asio::buffer(kLineEnd), kTuple);
    (void)end_bytes;
    if (end_error) error = x.Describe(end_error);
  }
  if (!error) {
    auto [close_error, close_bytes] =
        co_await asio::async_write(x.stream(), asio::buffer(close), kTuple);
    (void)close_bytes;
    if (close_error) error = x.Describe(close_error);
  }
  if (error) {
    *out = TransportError{*error};
    co_return;
  }
  auto reading = ReadUploadReply(x, out);
  co_await std::move(reading);
}

using StreamOutcome = std::optional<BasicResult<StreamEnd, TransportError>>;

asio::awaitable<void> DoFollow(Exchange& x, const std::string& target,
                               const std::function<StreamStep()>& on_open,
                               const std::function<StreamStep(const ServerEvent&)>& on_event,
                               std::chrono::milliseconds idle, StreamOutcome* out) {
  if (auto error = co_await x.Connect()) {
    *out = TransportError{*error};
    co_return;
  }
  http::request<http::string_body> req =
      x.MakeRequest(http::verb::get, target, "", "text/event-stream");
  if (auto error = co_await x.Write(req)) {
    *out = TransportError{*error};
    co_return;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);  // a stream has no end but the daemon's
  x.stream().expires_after(x.timeout());
  auto [head_error, head_bytes] =
      co_await http::async_read_header(x.stream(), buffer, parser, kTuple);
  (void)head_bytes;
  if (head_error) {
    *out = TransportError{x.Describe(head_error)};
    co_return;
  }
  const int status = static_cast<int>(parser.get().result_int());
  std::string refusal;  // the body of a non-200 answer
  if (status == 200 && on_open() == StreamStep::kStop) {
    *out = StreamEnd{true, std::nullopt};
    co_return;
  }
  EventStreamParser events;
  char chunk[8192];
  while (!parser.is_done()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    x.stream().expires_after(status == 200 ? idle : x.timeout());
    auto [error, bytes] = co_await http::async_read_some(x.stream(), buffer, parser, kTuple);
    (void)bytes;
    const size_t got = sizeof chunk - parser.get().body().size;
    if (status != 200) {
      refusal.append(chunk, got);
      if (refusal.size() > kMaxBody) break;
    } else {
      for (const ServerEvent& event : events.Feed(std::string_view(chunk, got))) {
        if (on_event(event) == StreamStep::kStop) {
          *out = StreamEnd{true, std::nullopt};
          co_return;
        }
      }
    }
    if (error == http::error::need_buffer) continue;
    if (error == http::error::end_of_stream || error == asio::error::eof) break;
    if (error) {
      if (error == beast::error::timeout && status == 200) {
        *out = TransportError{x.Fail("the event stream was silent for " + Seconds(idle))};
      } else {
        *out = TransportError{x.Describe(error)};
      }
      co_return;
    }
  }
  if (status != 200) {
    *out = StreamEnd{false, HttpReply{status, std::move(refusal)}};
  } else {
    *out = StreamEnd{false, std::nullopt};
  }
}

}  // namespace

ApiClient::ApiClient(ServerAddress server, std::optional<std::string> token,
                     std::chrono::milliseconds timeout)
    : server_(std::move(server)), token_(std::move(token)), timeout_(timeout) {}

BasicResult<HttpReply, TransportError> ApiClient::Request(std::string_view method,
                                                          const std::string& target,
                                                          const std::string& body) const {
  const http::verb verb = http::string_to_verb(method);
  asio::io_context io;
  Exchange exchange(server_, token_, timeout_, io);
  RequestOutcome outcome;
  RunToCompletion(io, DoRequest(exchange, verb, target, body, &outcome));
  return std::move(*outcome);
}

BasicResult<HttpReply, TransportError> ApiClient::Upload(const std::string& target,
                                                         const std::string& path) const {
  asio::io_context io;
  Exchange exchange(server_, token_, timeout_, io);
  RequestOutcome outcome;
  RunToCompletion(io, DoUpload(exchange, target, path, &outcome));
  return std::move(*outcome);
}

BasicResult<HttpReply, TransportError> ApiClient::UploadParts(
    const std::string& target, const std::vector<std::string>& paths) const {
  asio::io_context io;
  Exchange exchange(server_, token_, timeout_, io);
  RequestOutcome outcome;
  RunToCompletion(io, DoUploadParts(exchange, target, paths, &outcome));
  return std::move(*outcome);
}

BasicResult<StreamEnd, TransportError> ApiClient::FollowEvents(
    const std::string& target, const std::function<StreamStep()>& on_open,
    const std::function<StreamStep(const ServerEvent&)>& on_event,
    std::chrono::milliseconds idle) const {
  asio::io_context io;
  Exchange exchange(server_, token_, timeout_, io);
  StreamOutcome outcome;
  RunToCompletion(io, DoFollow(exchange, target, on_open, on_event, idle, &outcome));
  return std::move(*outcome);
}

std::string ApiErrorMessage(const HttpReply& reply) {
  nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object() &&
      body["error"].contains("message") && body["error"]["message"].is_string()) {
    return body["error"]["message"].get<std::string>();
  }
  std::string text = reply.body.substr(0, 200);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text.empty() ? "(no message)" : text;
}

BasicResult<nlohmann::json, ClientFailure> CallApi(const ApiClient& client, std::string_view method,
                                                   const std::string& target,
                                                   const std::string& body, int expected_status) {
  auto reply = client.Request(method, target, body);
  if (!reply) return ClientFailure{kExitUnreachable, reply.error().message};
  const std::string what = std::string(method) + " " + target;
  if (reply->status != expected_status) {
    return ClientFailure{kExitApiError,
                         "the daemon answered " + std::to_string(reply->status) + " to " + what +
                             ": " + ApiErrorMessage(*reply),
                         reply->status};
  }
  nlohmann::json parsed = nlohmann::json::parse(reply->body, nullptr, false);
  if (parsed.is_discarded()) {
    return ClientFailure{kExitApiError, "the daemon's answer to " + what + " is not JSON",
                         reply->status};
  }
  return parsed;
}

BasicResult<nlohmann::json, ClientFailure> CallApiAllRows(const ApiClient& client,
                                                          const std::string& path,
                                                          const std::string& key) {
  nlohmann::json rows = nlohmann::json::array();
  std::string target = path;
  for (;;) {
    auto page = CallApi(client, "GET", target);
    if (!page) return page.error();
    if (auto listed = page->find(key); listed != page->end() && listed->is_array()) {
      for (nlohmann::json& row : *listed) rows.push_back(std::move(row));
    }
    const auto next = page->find("next_cursor");
    if (next == page->end() || !next->is_string()) break;
    target = path + "?cursor=" + PercentEncode(next->get<std::string>());
  }
  nlohmann::json all = nlohmann::json::object();
  all[key] = std::move(rows);
  return all;
}

}  // namespace droidlab::daemon
