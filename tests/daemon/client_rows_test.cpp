// CallApiAllRows (daemon/client_http.h): the client commands read a run's rows to the end,
// following "next_cursor" page after page (issue 13 §1: the daemon answers at most 10,000 rows a
// response), against a loopback server (port 0) that answers canned pages and records what it
// was asked.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "daemon/client_http.h"

namespace droidlab::daemon {
namespace {

// Answers each request on its own connection with the body `pages` holds for its target (404
// for any other), at most `count` connections, and lists the targets in `asked`, in order.
// Destroyed once the client has its answers (every connection it made was accepted by then), it
// shuts its listening socket, which ends a wait for a connection the client never made.
class CannedPages {
 public:
  CannedPages(std::map<std::string, std::pair<int, std::string>> pages, int count,
              std::vector<std::string>& asked)
      : pages_(std::move(pages)), asked_(asked) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, count] {
      for (int i = 0; i < count && Answer(); ++i) {
      }
    });
  }
  ~CannedPages() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }

 private:
  bool Answer() {
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return false;
    std::string request;
    char chunk[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(c, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      request.append(chunk, static_cast<size_t>(n));
    }
    const size_t start = request.find(' ') + 1;
    const std::string target = request.substr(start, request.find(' ', start) - start);
    asked_.push_back(target);
    auto page = pages_.find(target);
    const int status = page == pages_.end() ? 404 : page->second.first;
    const std::string body =
        page == pages_.end() ? R"({"error":{"code":"not_found","message":"no"}})" : page->second.second;
    const std::string reply = "HTTP/1.1 " + std::to_string(status) +
                              " X\r\nContent-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    EXPECT_EQ(::send(c, reply.data(), reply.size(), MSG_NOSIGNAL), static_cast<ssize_t>(reply.size()));
    ::close(c);
    return true;
  }

  std::map<std::string, std::pair<int, std::string>> pages_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::vector<std::string>& asked_;  // written by the thread until it is joined
  std::thread thread_;
};

ApiClient ClientOf(uint16_t port) {
  ServerAddress server;
  server.host = "127.0.0.1";
  server.port = port;
  server.url = "http://127.0.0.1:" + std::to_string(port);
  return ApiClient(server, std::nullopt, std::chrono::seconds(5));
}

TEST(ClientRowsTest, FollowsNextCursorToTheLastPageAndKeepsTheOrder) {
  const std::string path = "/api/v1/runs/7/launches";
  std::vector<std::string> asked;
  std::vector<int> iterations;
  {
    CannedPages server(
        {{path, {200, R"({"launches":[{"iteration":1},{"iteration":2}],"next_cursor":"i1 a/b"})"}},
         {path + "?cursor=i1%20a%2Fb",
          {200, R"({"launches":[{"iteration":3}],"next_cursor":"i1c"})"}},
         {path + "?cursor=i1c", {200, R"({"launches":[{"iteration":4}],"next_cursor":null})"}}},
        3, asked);
    auto all = CallApiAllRows(ClientOf(server.port()), path, "launches");
    ASSERT_TRUE(all) << all.error().message;
    for (const auto& l : (*all)["launches"]) iterations.push_back(l["iteration"].get<int>());
  }  // the server has stopped: `asked` is complete
  EXPECT_EQ(iterations, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(asked, (std::vector<std::string>{path, path + "?cursor=i1%20a%2Fb",
                                              path + "?cursor=i1c"}));
}

TEST(ClientRowsTest, AFailingPageIsTheFailure) {
  std::vector<std::string> asked;
  const std::string path = "/api/v1/runs/7/proc-samples";
  CannedPages server({{path, {200, R"({"samples":[{"t_ms":0}],"next_cursor":"p1x"})"}},
                      {path + "?cursor=p1x",
                       {400, R"({"error":{"code":"bad_request","message":"cursor: no"}})"}}},
                     2, asked);
  auto all = CallApiAllRows(ClientOf(server.port()), path, "samples");
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().http_status, 400);
}

}  // namespace
}  // namespace droidlab::daemon
