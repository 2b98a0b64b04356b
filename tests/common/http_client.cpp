#include "tests/common/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>

namespace droidlab::testutil {

namespace {

std::vector<HttpResponse> Parse(const std::string& data) {
  std::vector<HttpResponse> out;
  size_t pos = 0;
  for (;;) {
    const size_t end = data.find("\r\n\r\n", pos);
    if (end == std::string::npos) break;
    HttpResponse r;
    r.status = std::atoi(data.c_str() + pos + 9);
    size_t line = data.find("\r\n", pos) + 2;
    while (line < end) {
      const size_t next = data.find("\r\n", line);
      const std::string header = data.substr(line, next - line);
      const size_t colon = header.find(':');
      std::string name = header.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = colon + 2 <= header.size() ? header.substr(colon + 2) : "";
      line = next + 2;
    }
    const size_t length =
        r.headers.count("content-length") ? std::stoul(r.headers["content-length"]) : 0;
    if (data.size() < end + 4 + length) break;
    r.body = data.substr(end + 4, length);
    out.push_back(std::move(r));
    pos = end + 4 + length;
  }
  return out;
}

}  // namespace

RawHttpClient::RawHttpClient(uint16_t port, uint8_t source_host) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (source_host != 0) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    source.sin_addr.s_addr = htonl((127u << 24) | source_host);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0) return;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

RawHttpClient::~RawHttpClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawHttpClient::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::vector<HttpResponse> RawHttpClient::Read(size_t want, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<HttpResponse> out;
  for (;;) {
    out = Parse(buffer_);
    if (out.size() >= want || closed_) return out;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Past the limit, still one look at what has already arrived (a close, say).
    if (!ReadSome(std::max<int64_t>(left.count(), 0))) return out;
  }
}

bool RawHttpClient::ReadSome(int64_t wait_ms) {
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait_ms)) <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    closed_ = true;
  } else {
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  return true;
}

bool RawHttpClient::ReadUntil(std::string_view needle, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (buffer_.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (closed_ || left.count() <= 0 || !ReadSome(left.count())) return false;
  }
  return true;
}

bool RawHttpClient::ClosedWithin(std::chrono::milliseconds limit) {
  Read(1000, limit);
  return closed_;
}

std::string HttpRequestBytes(const std::string& method, const std::string& target,
                             const std::string& body, const std::string& extra_headers,
                             bool close) {
  std::string r = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + extra_headers;
  if (!body.empty() || method == "POST") {
    r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n";
  }
  if (close) r += "Connection: close\r\n";
  return r + "\r\n" + body;
}

HttpResponse HttpCall(uint16_t port, const std::string& method, const std::string& target,
                      const std::string& body, const std::string& extra_headers) {
  RawHttpClient client(port);
  if (!client.connected()) return {};
  client.Send(HttpRequestBytes(method, target, body, extra_headers));
  auto responses = client.Read(1);
  return responses.empty() ? HttpResponse{} : responses[0];
}

}  // namespace droidlab::testutil
