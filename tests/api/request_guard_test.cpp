// Who may reach the API, and how much of it: the Host and Origin fence of a daemon with no token
// (api/request_guard.h) — DNS rebinding and cross-site posts refused —, the token checked before
// a body is read, and the bounds that keep one client or a crowd from taking the daemon: slow
// clients at every phase, 1,100 connections from several addresses, 1,024 event streams.
// Issue 13, §1 and §4. Real HTTP over loopback (tests/api/api_server_fixture.h).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <memory>
#include <string>
#include <vector>

#include "api/request_guard.h"
#include "tests/api/api_server_fixture.h"
#include "tests/common/wait_until.h"

namespace droidlab::api {
namespace {

// A request with its own Host line ("" for none) and extra headers.
std::string WithHost(const std::string& method, const std::string& target, const std::string& host,
                     const std::string& headers = "", const std::string& body = "") {
  std::string r = method + " " + target + " HTTP/1.1\r\n";
  if (!host.empty()) r += "Host: " + host + "\r\n";
  r += headers;
  if (!body.empty() || method == "POST") {
    r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return r + "Connection: close\r\n\r\n" + body;
}

// Raises this process's open-file limit to `want` or says why not.
bool EnoughDescriptors(rlim_t want) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < want) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, want);
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur >= want;
}

class RequestGuardTest : public ApiTest {
 protected:
  Response Raw(const std::string& bytes) {
    RawClient client(port_);
    EXPECT_TRUE(client.connected());
    client.Send(bytes);
    auto responses = client.Read(1);
    return responses.empty() ? Response{} : responses[0];
  }
};

TEST(RequestGuard, LoopbackNamesAreTheOnlyOnesALoopbackDaemonAnswersTo) {
  for (const char* host : {"localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackName(host)) << host;
  }
  for (const char* host : {"evil.example", "127.0.0.1.evil.example", "localhost.evil.example",
                           "128.0.0.1", "127.0.0", "127.0.0.256", "0.0.0.0", "", "[::2]"}) {
    EXPECT_FALSE(IsLoopbackName(host)) << host;
  }
  EXPECT_EQ(HostWithoutPort("localhost:8765"), "localhost");
  EXPECT_EQ(HostWithoutPort("[::1]:8765"), "[::1]");
  EXPECT_EQ(HostWithoutPort("127.0.0.1"), "127.0.0.1");
}

TEST(RequestGuard, WithATokenNeitherHostNorOriginIsAsked) {
  GuardPolicy policy;
  policy.has_token = true;
  policy.loopback_listener = true;
  EXPECT_FALSE(CheckHostAndOrigin(policy, "POST", "evil.example", "http://evil.example"));
}

TEST(RequestGuard, WithoutATokenAForeignOriginMayReadButNotChange) {
  GuardPolicy policy;
  policy.loopback_listener = true;
  std::vector<std::string> cors{"https://dash.example"};
  policy.cors_origins = &cors;
  EXPECT_FALSE(CheckHostAndOrigin(policy, "GET", "localhost:8765", "http://evil.example"));
  EXPECT_FALSE(CheckHostAndOrigin(policy, "POST", "localhost:8765", "http://localhost:8765"));
  EXPECT_FALSE(CheckHostAndOrigin(policy, "POST", "localhost:8765", "https://dash.example"));
  EXPECT_FALSE(CheckHostAndOrigin(policy, "POST", "localhost:8765", ""));  // curl, scripts
  auto refused = CheckHostAndOrigin(policy, "DELETE", "localhost:8765", "http://localhost:3000");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->message.find("http://localhost:3000"), std::string::npos);
  // A sandboxed frame or a file:// page says "null": not this daemon's origin either.
  EXPECT_TRUE(CheckHostAndOrigin(policy, "POST", "localhost:8765", "null"));
  EXPECT_TRUE(CheckHostAndOrigin(policy, "POST", "localhost:8765", "https://localhost:8765"));
  // Listening beyond loopback (--insecure), any name may be the daemon's; the Origin still counts.
  policy.loopback_listener = false;
  EXPECT_FALSE(CheckHostAndOrigin(policy, "GET", "lab-host-7:8765", ""));
  EXPECT_TRUE(CheckHostAndOrigin(policy, "POST", "lab-host-7:8765", "http://evil.example"));
}

TEST_F(RequestGuardTest, ADnsRebindingHostIsRefusedWithoutAToken) {
  SeedRun("A", "com.one", 1000, {800});
  Start();
  const Response rebound = Raw(WithHost("GET", "/api/v1/runs/1", "evil.example:8765"));
  EXPECT_EQ(rebound.status, 403);
  EXPECT_NE(rebound.body.find("evil.example"), std::string::npos) << rebound.body;
  EXPECT_EQ(Raw(WithHost("GET", "/api/v1/runs/1", "localhost:8765")).status, 200);
  EXPECT_EQ(Raw(WithHost("GET", "/api/v1/runs/1", "127.0.0.1:" + std::to_string(port_))).status,
            200);
  EXPECT_EQ(Raw(WithHost("GET", "/api/v1/runs/1", "[::1]:8765")).status, 200);
}

TEST_F(RequestGuardTest, WithATokenAnyHostThatHasItIsServed) {
  SeedRun("A", "com.one", 1000, {800});
  ServerOptions options;
  options.token.emplace("s3cret-token");  // (assigning trips g++ 12's false maybe-uninitialized)
  Start(options);
  EXPECT_EQ(Raw(WithHost("GET", "/api/v1/runs/1", "droidlab.lab.example",
                         "Authorization: Bearer s3cret-token\r\n"))
                .status,
            200);
}

// A page on another site can send a text/plain or form POST without a CORS preflight; with no
// token it must change nothing, and the daemon must stay up.
TEST_F(RequestGuardTest, ACrossSitePostWithoutATokenIsRefusedAndStoresNothing) {
  Start();
  const std::string body = RunBody(kSerial, "com.example.app", "cold", "3");
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "application/json"}) {
    const Response r = Raw(WithHost("POST", "/api/v1/runs", "localhost:8765",
                                    std::string("Origin: http://evil.example\r\nContent-Type: ") +
                                        type + "\r\n",
                                    body));
    EXPECT_EQ(r.status, 403) << type << ": " << r.body;
  }
  EXPECT_EQ(StoredRuns(), 0);
  EXPECT_EQ(Call("GET", "/api/v1/health").status, 200);
  // The daemon's own page (Origin = http:// + its Host) may post.
  const Response own = Raw(WithHost("POST", "/api/v1/runs", "localhost:8765",
                                    "Origin: http://localhost:8765\r\n"
                                    "Content-Type: application/json\r\n",
                                    body));
  EXPECT_EQ(own.status, 201) << own.body;
}

// The 401 comes back while the client still holds most of its body: nothing of a body is read
// (nor buffered, up to max_body) for a request that may not be made.
TEST_F(RequestGuardTest, WithoutTheTokenTheBodyIsNotRead) {
  ServerOptions options;
  options.token.emplace("s3cret-token");  // (assigning trips g++ 12's false maybe-uninitialized)
  Start(options);
  RawClient client(port_);
  ASSERT_TRUE(client.connected());
  const size_t announced = 900 * 1024;
  client.Send("POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\n"
              "Content-Type: application/json\r\nContent-Length: " +
              std::to_string(announced) + "\r\n\r\n{\"serial\":");
  auto responses = client.Read(1, milliseconds(3000));
  ASSERT_EQ(responses.size(), 1u) << client.raw();
  EXPECT_EQ(responses[0].status, 401);
  EXPECT_EQ(responses[0].headers["connection"], "close");
  EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(StoredRuns(), 0);
}

// A body that is not declared JSON is refused on the header: the 415 comes back while the client
// still holds most of it (a cross-site text/plain post is refused without being read).
TEST_F(RequestGuardTest, ABodyThatIsNotJsonIsRefusedBeforeItIsRead) {
  Start();
  RawClient client(port_);
  ASSERT_TRUE(client.connected());
  client.Send("POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\n"
              "Content-Type: text/plain\r\nContent-Length: " +
              std::to_string(900 * 1024) + "\r\n\r\n{\"serial\":");
  auto responses = client.Read(1, milliseconds(3000));
  ASSERT_EQ(responses.size(), 1u) << client.raw();
  EXPECT_EQ(responses[0].status, 415);
  EXPECT_EQ(responses[0].headers["connection"], "close");
  EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(StoredRuns(), 0);
}

// Every state-changing method, not only POST: a DELETE needs no body, but one it carries must
// be JSON — a text/plain DELETE with a body cancels nothing.
TEST_F(RequestGuardTest, ADeleteWithABodyThatIsNotJsonIsRefused) {
  Start();
  ASSERT_EQ(Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "3")).status,
            201);
  const Response refused = Raw(WithHost("DELETE", "/api/v1/runs/1", "localhost",
                                        "Content-Type: text/plain\r\n", "cancel"));
  EXPECT_EQ(refused.status, 415) << refused.body;
  EXPECT_NE(refused.body.find("a DELETE body must be sent with Content-Type: application/json"),
            std::string::npos)
      << refused.body;
  const Response run = Call("GET", "/api/v1/runs/1");
  EXPECT_NE(Json::parse(run.body)["status"], "cancelled") << run.body;
  // Without a body, as API.md has it, the DELETE cancels.
  EXPECT_EQ(Raw(WithHost("DELETE", "/api/v1/runs/1", "localhost")).status, 200);
}

// Each phase of a request has its own deadline, and a client that stalls in one is dropped
// without slowing anyone else: the header (ApiTest.ASilentClientIsDroppedAndOthersAreNotSlowed),
// the body, and reading the answer.
TEST_F(RequestGuardTest, AClientStalledInItsBodyOrInReadingTheAnswerIsDropped) {
  ServerOptions options;
  options.header_timeout = milliseconds(5000);
  options.body_timeout = milliseconds(300);
  options.write_timeout = milliseconds(300);
  Start(options);
  RawClient stalled_body(port_);
  stalled_body.Send("POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\n"
                    "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"se");
  // Chart.js (~200 KB) asked for again and again, never read: the server's writes fill the
  // socket buffers and stop.
  RawClient stalled_reader(port_);
  std::string requests;
  for (int i = 0; i < 64; ++i) {
    requests += Request("GET", "/ui/chart.min.js", "", "", false);
  }
  stalled_reader.Send(requests);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Call("GET", "/api/v1/health").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(250));
  EXPECT_TRUE(stalled_body.ClosedWithin(milliseconds(3000)));
  EXPECT_TRUE(testutil::WaitUntil([&] { return OpenConnections() == 0; }, milliseconds(5000)))
      << OpenConnections() << " connection(s) still open";
}

// 1,100 connections at once: 200 from one address (over its bound of 128), 900 from nine
// others (the global bound of 1,024 is reached). Those over a bound are closed at once, the
// daemon goes on, and once the crowd leaves a new client is served.
TEST_F(RequestGuardTest, ElevenHundredConnectionsMeetThePerClientAndGlobalBounds) {
  if (!EnoughDescriptors(2600)) GTEST_SKIP() << "open-file limit below 2,600";
  ServerOptions options;
  options.header_timeout = milliseconds(20'000);
  options.max_connections = 1024;
  options.max_connections_per_client = 128;
  Start(options);
  std::vector<std::unique_ptr<RawClient>> crowd;
  for (int i = 0; i < 200; ++i) crowd.push_back(std::make_unique<RawClient>(port_, 2));
  EXPECT_TRUE(testutil::WaitUntil([&] { return OpenConnections() == 128; }, milliseconds(5000)))
      << OpenConnections();
  for (uint8_t host = 3; host < 12; ++host) {
    for (int i = 0; i < 100; ++i) crowd.push_back(std::make_unique<RawClient>(port_, host));
  }
  EXPECT_TRUE(testutil::WaitUntil([&] { return OpenConnections() == 1024; }, milliseconds(10000)))
      << OpenConnections();
  // 72 over the first address's bound and 4 over the global one, closed by the server as soon
  // as it accepted them.
  size_t closed = 0;
  EXPECT_TRUE(testutil::WaitUntil(
      [&] {
        closed = 0;
        for (auto& client : crowd) closed += client->ClosedWithin(milliseconds(1)) ? 1 : 0;
        return closed == 1100 - 1024;
      },
      milliseconds(15000)))
      << closed;
  EXPECT_EQ(OpenConnections(), 1024u);
  crowd.clear();
  EXPECT_TRUE(testutil::WaitUntil([&] { return OpenConnections() == 0; }, milliseconds(10000)))
      << OpenConnections();
  EXPECT_EQ(Call("GET", "/api/v1/health").status, 200);
}

// 1,024 dashboards on the event stream all hear of a new run; one more is told to come back.
TEST_F(RequestGuardTest, AThousandAndTwentyFourEventStreamsAllHearAndOneMoreGets503) {
  if (!EnoughDescriptors(2600)) GTEST_SKIP() << "open-file limit below 2,600";
  ServerOptions options;
  options.max_connections = 1100;
  options.max_connections_per_client = 128;
  options.max_event_streams = 1024;
  Start(options);
  std::vector<std::unique_ptr<RawClient>> streams;
  for (int i = 0; i < 1024; ++i) {
    streams.push_back(std::make_unique<RawClient>(port_, static_cast<uint8_t>(2 + i / 100)));
    streams.back()->Send(Request("GET", "/api/v1/events", "", "", false));
  }
  for (auto& s : streams) ASSERT_TRUE(s->ReadUntil("droidlab events")) << s->raw();
  RawClient one_more(port_, 20);
  one_more.Send(Request("GET", "/api/v1/events", "", "", false));
  auto refused = one_more.Read(1);
  ASSERT_EQ(refused.size(), 1u) << one_more.raw();
  EXPECT_EQ(refused[0].status, 503);
  EXPECT_EQ(refused[0].headers["retry-after"], "5");

  ASSERT_EQ(Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "2")).status,
            201);
  size_t heard = 0;
  for (auto& s : streams) heard += s->ReadUntil("\"status\":\"queued\"") ? 1 : 0;
  EXPECT_EQ(heard, 1024u);
}

}  // namespace
}  // namespace droidlab::api
