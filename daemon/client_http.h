// The client commands' side of the REST API: one HTTP/1.1 exchange per call on its own
// connection, blocking the caller (command-line code, never on the daemon's io_context), with a
// deadline on every step; and the Server-Sent-Event stream of GET /api/v1/events. Beast stays in
// client_http.cpp (compiled against droidlab_beast).
//
// Thread-safety: an ApiClient is immutable; calls may run on any thread. A call made from an
// event callback is fine (each call runs its own io_context).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "daemon/client_options.h"
#include "daemon/event_stream_parser.h"

namespace droidlab::daemon {

struct HttpReply {
  int status = 0;
  std::string body;
};

// No HTTP answer: refused, timed out, reset, or bytes that are not HTTP. One line, naming the
// server ("cannot reach the daemon at http://127.0.0.1:8765: Connection refused").
struct TransportError {
  std::string message;
};

// What a client command fails with: the exit code it ends with and one line for stderr.
struct ClientFailure {
  int exit_code = kExitApiError;
  std::string message;
  int http_status = 0;  // the daemon's answer, 0 when there was none
};

enum class StreamStep { kContinue, kStop };

// How an event stream ended, short of a TransportError.
struct StreamEnd {
  bool stopped = false;              // a callback said kStop
  std::optional<HttpReply> refused;  // the daemon answered something other than 200
};

class ApiClient {
 public:
  ApiClient(ServerAddress server, std::optional<std::string> token,
            std::chrono::milliseconds timeout = std::chrono::seconds(15));

  // METHOD base_path+target; `body` is sent as JSON when not empty.
  BasicResult<HttpReply, TransportError> Request(std::string_view method, const std::string& target,
                                                 const std::string& body = "") const;

  // POSTs the file at `path` as the body (streamed from disk, as
  // application/vnd.android.package-archive, its name in X-File-Name): `droidlab build add`.
  // A file that cannot be opened is a TransportError naming it.
  BasicResult<HttpReply, TransportError> Upload(const std::string& target,
                                                const std::string& path) const;
  // POSTs the files at `paths` as one multipart/form-data body, a part `file` each with its file
  // name (as curl -F 'file=@PATH'), streamed from disk: `droidlab build add BASE SPLIT… [APP.dm]`.
  // A file that cannot be read, or whose name no part header can carry, is a TransportError
  // beginning "cannot read ".
  BasicResult<HttpReply, TransportError> UploadParts(const std::string& target,
                                                     const std::vector<std::string>& paths) const;

  // Reads the event stream at `target`. `on_open` runs once the daemon has answered 200 (it has
  // subscribed this client: what happens after this is in the stream), then `on_event` for each
  // event. Returns when a callback says kStop, or the daemon refuses (non-200), or it closes the
  // stream; a TransportError for no answer, a broken connection, or `idle` with no byte (the
  // daemon sends a keep-alive comment every 15 s).
  BasicResult<StreamEnd, TransportError> FollowEvents(
      const std::string& target, const std::function<StreamStep()>& on_open,
      const std::function<StreamStep(const ServerEvent&)>& on_event,
      std::chrono::milliseconds idle) const;

  const ServerAddress& server() const { return server_; }

 private:
  ServerAddress server_;
  std::optional<std::string> token_;
  std::chrono::milliseconds timeout_;
};

// The API's error text of a 4xx/5xx body ({"error":{"code","message"}}), or the body itself.
std::string ApiErrorMessage(const HttpReply& reply);

// One call whose answer must be `expected_status` with a JSON body: the parsed body, or the
// failure — kExitUnreachable for no answer, kExitApiError with the daemon's message otherwise
// ("GET /api/v1/runs/7: 404 not found: no run 7").
BasicResult<nlohmann::json, ClientFailure> CallApi(const ApiClient& client, std::string_view method,
                                                   const std::string& target,
                                                   const std::string& body = "",
                                                   int expected_status = 200);

// A run's rows (GET /api/v1/runs/{id}/launches, /looper-stats, /proc-samples at `path`) come a
// page at a time, at most 10,000 a response: follows "next_cursor" to the last page (null).
// {key: every row, in order}, or the first failing call's failure.
BasicResult<nlohmann::json, ClientFailure> CallApiAllRows(const ApiClient& client,
                                                          const std::string& path,
                                                          const std::string& key);

}  // namespace droidlab::daemon
