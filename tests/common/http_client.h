// A blocking loopback HTTP/1.1 client for tests: raw bytes in, parsed responses out, so that
// tests can send what no real client would (pipelined requests, garbage, half a header) and see
// exactly what the server wrote.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::testutil {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

// Connects to 127.0.0.1:port; Send bytes; Read until the peer closes, `want` responses are
// complete (by Content-Length), or the limit passes.
class RawHttpClient {
 public:
  // `source_host` N ≠ 0: the connection comes from 127.0.0.N (loopback is all of 127/8), so a
  // test can be several clients to a server that counts connections per address.
  explicit RawHttpClient(uint16_t port, uint8_t source_host = 0);
  ~RawHttpClient();
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool connected() const { return connected_; }
  bool Send(std::string_view bytes);
  std::vector<HttpResponse> Read(size_t want,
                                 std::chrono::milliseconds limit = std::chrono::milliseconds(5000));
  // Reads until what came holds `needle` (true) or the peer closes or `limit` passes (false):
  // for streams (Server-Sent Events), where responses do not end.
  bool ReadUntil(std::string_view needle,
                 std::chrono::milliseconds limit = std::chrono::milliseconds(5000));
  // True when the server closed the connection within `limit`.
  bool ClosedWithin(std::chrono::milliseconds limit);
  const std::string& raw() const { return buffer_; }

 private:
  // Waits up to `wait_ms` for bytes (or the close) and takes them; false when none came.
  bool ReadSome(int64_t wait_ms);

  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  std::string buffer_;
};

// "METHOD TARGET HTTP/1.1" with Host, the body's Content-Type/Length, `extra_headers` (each
// ending in \r\n) and, when `close`, Connection: close.
std::string HttpRequestBytes(const std::string& method, const std::string& target,
                             const std::string& body = "", const std::string& extra_headers = "",
                             bool close = true);

// One request on its own connection; status 0 when no complete response came.
HttpResponse HttpCall(uint16_t port, const std::string& method, const std::string& target,
                      const std::string& body = "", const std::string& extra_headers = "");

}  // namespace droidlab::testutil
