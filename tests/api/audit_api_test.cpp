// Named tokens and the audit log (issue 17 §3) over real HTTP: each request is let in by any of
// the daemon's named tokens, and every one that changed something is in GET /api/v1/audit with
// that token's name, the client's address and what it made; reads, refusals and failures are not.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/api/api_server_fixture.h"

namespace droidlab::api {
namespace {

const std::string kCi = "Authorization: Bearer ci-secret-1\r\n";
const std::string kAlice = "Authorization: Bearer alice-secret-2\r\n";

class AuditApiTest : public ApiTest {
 protected:
  void StartWithNamedTokens() {
    ServerOptions options;
    options.tokens = {{"ci", "ci-secret-1"}, {"alice", "alice-secret-2"}};
    Start(options);
  }
  Json Audit(const std::string& query = "") {
    auto response = Call("GET", "/api/v1/audit" + query, "", kCi);
    EXPECT_EQ(response.status, 200) << response.body;
    return Json::parse(response.body, nullptr, false);
  }
};

TEST_F(AuditApiTest, EveryChangeIsRecordedWithTheNameOfItsToken) {
  StartWithNamedTokens();
  auto created =
      Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "3"), kAlice);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string location = created.headers["location"];
  auto cancelled = Call("DELETE", location, "", kCi);
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;

  // Not recorded: reads, a request without a valid token, a refused body, a failed change.
  EXPECT_EQ(Call("GET", "/api/v1/runs", "", kAlice).status, 200);
  EXPECT_EQ(Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "3"),
                 "Authorization: Bearer wrong\r\n")
                .status,
            401);
  EXPECT_EQ(Call("POST", "/api/v1/runs", RunBody(kSerial, "a;b", "cold", "3"), kCi).status, 400);
  EXPECT_EQ(Call("DELETE", location, "", kCi).status, 409);

  Json entries = Audit()["entries"];
  ASSERT_EQ(entries.size(), 2u) << entries.dump();
  EXPECT_EQ(entries[0]["caller"], "ci") << "newest first";
  EXPECT_EQ(entries[0]["method"], "DELETE");
  EXPECT_EQ(entries[0]["path"], location);
  EXPECT_EQ(entries[0]["status"], 200);
  EXPECT_EQ(entries[1]["caller"], "alice");
  EXPECT_EQ(entries[1]["method"], "POST");
  EXPECT_EQ(entries[1]["path"], "/api/v1/runs");
  EXPECT_EQ(entries[1]["status"], 201);
  EXPECT_EQ(entries[1]["location"], location) << "what the request made";
  EXPECT_EQ(entries[1]["remote"], "127.0.0.1");
  EXPECT_GT(entries[1]["at"].get<int64_t>(), 1'700'000'000'000);
}

TEST_F(AuditApiTest, TheAuditLogIsPagedAndNeedsAToken) {
  StartWithNamedTokens();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(
        Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "3"), kCi).status,
        201);
  }
  Json first = Audit("?limit=2");
  ASSERT_EQ(first["entries"].size(), 2u);
  ASSERT_TRUE(first["next_cursor"].is_string());
  Json second = Audit("?limit=2&cursor=" + first["next_cursor"].get<std::string>());
  ASSERT_EQ(second["entries"].size(), 1u);
  EXPECT_TRUE(second["next_cursor"].is_null());
  EXPECT_LT(second["entries"][0]["id"], first["entries"][1]["id"]);
  EXPECT_EQ(Call("GET", "/api/v1/audit?limit=0", "", kCi).status, 400);
  EXPECT_EQ(Call("GET", "/api/v1/audit?cursor=r100", "", kCi).status, 400);
  EXPECT_EQ(Call("GET", "/api/v1/audit").status, 401);
}

TEST_F(AuditApiTest, WithNoTokenTheCallerIsLocal) {
  Start();
  ASSERT_EQ(Call("POST", "/api/v1/runs", RunBody(kSerial, "com.example.app", "cold", "3")).status,
            201);
  Json entries = Audit()["entries"];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["caller"], "local");
}

}  // namespace
}  // namespace droidlab::api
