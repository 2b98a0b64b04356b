#include "tests/soak/bad_requests.h"

#include <chrono>

namespace droidlab::soak {

using std::chrono::milliseconds;
using testutil::HttpRequestBytes;
using testutil::RawHttpClient;

namespace {

struct BadRequest {
  std::string name;
  std::string bytes;
  bool close_is_fine = false;  // the server may just hang up (random bytes)
};

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::vector<BadRequest> Requests(std::mt19937_64& rng) {
  const std::string run_head =
      R"({"serial":"127.0.0.1:1","package":"com.example.app","mode":"cold",)";
  std::vector<BadRequest> requests;
  requests.push_back({"runs: a value nested 100,000 deep",
                      HttpRequestBytes("POST", "/api/v1/runs",
                                       run_head + R"("iterations":1,"activity":)" +
                                           Nested(100'000) + "}")});
  requests.push_back(
      {"schedules: a run nested 200,000 deep (the issue's crash)",
       HttpRequestBytes("POST", "/api/v1/schedules",
                        R"({"cron":"0 2 * * *","run":{"serial":"R58M123ABC","package":"a.b",)"
                        R"("mode":"cold","iterations":3,"activity":)" +
                            Nested(200'000) + "}}")});
  requests.push_back({"runs: a 3 MB body",
                      HttpRequestBytes("POST", "/api/v1/runs",
                                       run_head + R"("iterations":1,"x":")" +
                                           std::string(3 << 20, 'a') + "\"}"),
                      true});
  requests.push_back({"runs: Content-Length of 10 GB",
                      "POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                      "application/json\r\nContent-Length: 10000000000\r\n\r\n{",
                      true});
  requests.push_back({"a 100 KB header",
                      HttpRequestBytes("GET", "/api/v1/health", "",
                                       "X-Padding: " + std::string(100'000, 'p') + "\r\n"),
                      true});
  requests.push_back({"runs: iterations of the wrong type",
                      HttpRequestBytes("POST", "/api/v1/runs", run_head + R"("iterations":"3"})")});
  requests.push_back({"runs: iterations 1e999",
                      HttpRequestBytes("POST", "/api/v1/runs", run_head + R"("iterations":1e999})")});
  requests.push_back(
      {"runs: iterations 18446744073709551616",
       HttpRequestBytes("POST", "/api/v1/runs", run_head + R"("iterations":18446744073709551616})")});
  requests.push_back({"runs: duplicate keys",
                      HttpRequestBytes("POST", "/api/v1/runs",
                                       run_head + R"("iterations":1,"iterations":2})")});
  requests.push_back({"runs: a serial that is a shell command",
                      HttpRequestBytes("POST", "/api/v1/runs",
                                       R"({"serial":"x; reboot","package":"com.example.app",)"
                                       R"("mode":"cold","iterations":1})")});
  requests.push_back({"runs: text/plain",
                      "POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                      "text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"});
  requests.push_back({"runs: a cross-site Origin",
                      HttpRequestBytes("POST", "/api/v1/runs", run_head + R"("iterations":1})",
                                       "Origin: http://evil.example\r\n")});
  requests.push_back({"runs: not JSON",
                      HttpRequestBytes("POST", "/api/v1/runs", "{\"serial\": tru")});
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> size(16, 8192);
  std::string garbage(size(rng), '\0');
  for (char& c : garbage) c = static_cast<char>(byte(rng));
  requests.push_back({"random bytes", garbage, true});
  return requests;
}

}  // namespace

int BadRequestBursts::Burst(uint16_t port, std::vector<std::string>& problems) {
  int sent = 0;
  for (auto& request : Requests(rng_)) {
    RawHttpClient client(port);
    if (!client.connected()) return sent;  // the daemon is going down: not this burst's doing
    client.Send(request.bytes);
    ++sent;
    const auto responses = client.Read(1, milliseconds(20000));
    const int status = responses.empty() ? 0 : responses[0].status;
    const bool refused = status >= 400 && status < 500;
    if (!refused && !(status == 0 && request.close_is_fine)) {
      problems.push_back("bad request '" + request.name + "' → " +
                         (status == 0 ? std::string("no answer within 20 s")
                                      : std::to_string(status) + " " +
                                            responses[0].body.substr(0, 200)));
    }
  }
  // Slow clients: half a request line, half a header, half a body; left open until the next
  // burst, so they are there while the runs go on.
  slow_clients_.clear();
  const std::vector<std::string> halves = {
      "POST /api/v1/ru",
      "GET /api/v1/health HTTP/1.1\r\nHost: loc",
      "POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"serial\":"};
  for (const auto& half : halves) {
    auto client = std::make_unique<RawHttpClient>(port);
    if (!client->connected()) continue;
    client->Send(half);
    ++sent;
    slow_clients_.push_back(std::move(client));
  }
  return sent;
}

}  // namespace droidlab::soak
