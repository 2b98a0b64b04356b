// `droidlab serve --db postgresql://…` as a process (issue 17 §1): the real adb server on a
// private port, a droidlab-devsim phone, and a real PostgreSQL server (tests/common/pg_server.h)
// instead of a SQLite file. A run posted to the API is measured and read back, and is in the
// database after the daemon stops; a second daemon on the same database under the same host name
// exits 1 naming the first (one daemon per host name: store/pg/serving_lock.h); no output carries
// the database's password; `droidlab migrate` takes the URL and `droidlab backup` points to
// pg_dump.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "store/pg/connection.h"
#include "store/store.h"
#include "tests/common/http_client.h"
#include "tests/common/pg_server.h"
#include "tests/common/subprocess.h"
#include "tests/common/test_store.h"
#include "tests/common/wait_until.h"
#include "tests/e2e/daemon_lab.h"

namespace droidlab::testutil {
namespace {

using Json = nlohmann::json;
using std::chrono::seconds;

class PostgresServeE2eTest : public DaemonLabTest {
 protected:
  ProcessResult Droidlab(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/timeout", "20", DROIDLAB_BINARY});
    return RunProcess(args);
  }
};

TEST_F(PostgresServeE2eTest, ARunIsMeasuredIntoPostgresAndASecondDaemonOnItExits1) {
  const std::string url = SharedPgServer().CreateDatabase("lab");
  const std::string password = PgServer::kPassword;
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string serial = devices[0].address;

  const ProcessResult migrated = Droidlab({"migrate", "--db", url});
  EXPECT_EQ(migrated.exit_code, 0) << migrated.out << migrated.err;
  EXPECT_NE(migrated.out.find(store::pg::RedactUrl(url) + ": schema version"), std::string::npos)
      << migrated.out;

  const uint16_t port = StartDaemon({"--db", url});
  ASSERT_NE(port, 0) << "the daemon did not print its address";
  ASSERT_TRUE(WaitUntil([&] { return DeviceListed(port, serial); }, seconds(20)));
  const std::string body = R"({"serial":")" + serial +
                           R"(","package":"com.example.app","mode":"cold","iterations":3,)"
                           R"("proc_sample_interval_ms":50})";
  auto created = HttpCall(port, "POST", "/api/v1/runs", body);
  ASSERT_EQ(created.status, 201) << created.body;
  const int64_t id = Json::parse(created.body)["id"];
  ASSERT_TRUE(WaitUntil([&] { return RunStatus(port, id) == "succeeded"; }, seconds(60)))
      << Get(port, "/api/v1/runs/" + std::to_string(id)).dump();
  Json run = Get(port, "/api/v1/runs/" + std::to_string(id));
  EXPECT_EQ(run["summary"]["displayed_ms"]["count"], 3);
  EXPECT_EQ(Get(port, "/api/v1/runs/" + std::to_string(id) + "/launches")["launches"].size(), 3u);
  EXPECT_FALSE(
      Get(port, "/api/v1/runs/" + std::to_string(id) + "/proc-samples")["samples"].empty());

  // A second daemon on the same database under the same host name (the machine's, as the
  // first's): refused before it listens, naming the host and the database without its password;
  // the first goes on serving.
  const ProcessResult second =
      Droidlab({"serve", "--listen", "127.0.0.1:0", "--db", url, "--adb-server",
                "tcp:127.0.0.1:" + std::to_string(server_.port()), "--adb-path", AdbPath()});
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_NE(second.err.find("another droidlab daemon is serving host "), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find(" on " + store::pg::RedactUrl(url)), std::string::npos) << second.err;
  EXPECT_EQ(second.out.find("listening"), std::string::npos) << second.out;
  EXPECT_EQ((second.out + second.err).find(password), std::string::npos);
  EXPECT_TRUE(Get(port, "/api/v1/health").is_object());

  EXPECT_EQ(daemon_->Stop(), 0);
  // What the daemon reported is in the database.
  auto st = OpenTestStoreAt(url);
  ASSERT_TRUE(st);
  auto stored = st->Read([&](store::Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  EXPECT_EQ(stored->status, store::RunStatus::kSucceeded);
  auto launches = st->Read([&](store::Reader& r) { return r.ListLaunches(id); });
  ASSERT_TRUE(launches.ok());
  EXPECT_EQ(launches->size(), 3u);

  const ProcessResult backup = Droidlab({"backup", "--db", url, "--to", dir_.File("b.dump")});
  EXPECT_EQ(backup.exit_code, 2);
  EXPECT_NE(backup.err.find("pg_dump"), std::string::npos) << backup.err;
  EXPECT_EQ(backup.err.find(password), std::string::npos) << backup.err;
}

}  // namespace
}  // namespace droidlab::testutil
