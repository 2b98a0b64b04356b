// A lost PostgreSQL connection (issue 17 §1): the store's writer reconnects with back-off and
// applies the lost batch again, so nothing acknowledged is lost or stored twice; a reader whose
// connection broke reconnects on its next lend; a store closed while the server refuses
// connections still ends. The connections are broken the way an operator or a restarted server
// breaks them: pg_terminate_backend on the real server (tests/common/pg_server.h), aimed at the
// store's writer or readers by their application_name.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/pg/connection.h"
#include "store/pg/migrate.h"
#include "store/pg/reader.h"
#include "store/pg/write_session.h"
#include "store/store.h"
#include "tests/common/pg_server.h"
#include "tests/store/pg_test_queries.h"

namespace droidlab::store::pg {
namespace {

using testutil::SharedPgServer;
using namespace std::chrono_literals;

constexpr const char* kWriterName = "droidlab-writer";
constexpr const char* kReaderName = "droidlab-reader";

// "postgresql://user:pw@/NAME?host=..." -> NAME.
std::string DatabaseOf(const std::string& url) {
  const size_t from = url.find("@/") + 2;
  return url.substr(from, url.find('?', from) - from);
}

// The server's own database: a connection that is not cut off with the test's database.
Connection Admin() { return Connect(SharedPgServer().SocketUrl("postgres")); }

// Terminates the backends of `database` that the store opened as `application_name`, waiting
// for each to end (PostgreSQL 14's timeout argument); how many there were.
int64_t Kill(Connection& admin, const std::string& database, const char* application_name) {
  // OFFSET 0 keeps the filter inside: the planner may not call pg_terminate_backend first.
  return Count(admin, "SELECT count(*) FROM (SELECT pid FROM pg_stat_activity WHERE datname = '" +
                          database + "' AND application_name = '" + application_name +
                          "' AND pid <> pg_backend_pid() OFFSET 0) AS store"
                          " WHERE pg_terminate_backend(pid, 5000)");
}

std::unique_ptr<Store> OpenStore(const std::string& url, size_t readers = 1,
                                 std::function<void(WriteSession&, bool)> before_commit = {}) {
  StoreOptions options;
  options.path = url;
  options.reader_connections = readers;
  options.before_commit = std::move(before_commit);
  auto opened = Store::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.error().message;
  return opened.ok() ? std::move(opened).value() : nullptr;
}

NewRun ARun() {
  NewRun run;
  run.spec_json = R"({"package":"com.example"})";
  run.serial = "R58M123ABC";
  run.package = "com.example";
  run.mode = "cold";
  run.created_at = 1'700'000'000'000;
  return run;
}

std::vector<ProcSample> Samples(int64_t run_id, int64_t first_t, int n) {
  std::vector<ProcSample> samples;
  for (int i = 0; i < n; ++i) {
    ProcSample s;
    s.run_id = run_id;
    s.t_ms = first_t + i;
    s.pid = 4242;
    s.rss_kb = 1000 + i;
    samples.push_back(s);
  }
  return samples;
}

// Waits up to 20 s for `done`; false if it never came true.
template <class F>
bool Eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

TEST(PgReconnectTest, WriterKilledFiveTimesLosesNothingAndStoresNothingTwice) {
  const std::string url = SharedPgServer().CreateDatabase("reconnect");
  const std::string database = DatabaseOf(url);
  auto store = OpenStore(url);
  ASSERT_TRUE(store);
  auto run = store->CreateRun(ARun());
  ASSERT_TRUE(run.ok()) << run.error().message;

  // A producer writes samples (no unique key: a batch applied twice would show as duplicates)
  // and, now and then, a run (a durable batch of its own) while the writer's backend is killed.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acked{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> runs_created{0};
  std::mutex mu;
  std::string first_failure;
  auto note_failure = [&](const std::string& what) {
    ++failed;
    std::lock_guard lock(mu);
    if (first_failure.empty()) first_failure = what;
  };
  int64_t pushed = 0;
  std::thread producer([&] {
    for (int chunk = 0; !stop; ++chunk) {
      constexpr int kChunk = 50;
      const auto pushed_now =
          store->AddProcSamples(Samples(*run, pushed, kChunk), [&](const Status& s) {
            if (s) {
              acked += kChunk;
            } else {
              note_failure(s.error().message);
            }
          });
      if (!pushed_now) note_failure(pushed_now.error().message);
      pushed += kChunk;
      if (chunk % 40 == 39) {
        auto created = store->CreateRun(ARun());
        if (created) {
          ++runs_created;
        } else {
          note_failure(created.error().message);
        }
      }
    }
  });

  Connection admin = Admin();
  constexpr int kKills = 5;
  for (int kill = 1; kill <= kKills; ++kill) {
    std::this_thread::sleep_for(150ms);
    EXPECT_EQ(Kill(admin, database, kWriterName), 1) << "kill " << kill;
    EXPECT_TRUE(Eventually([&] { return store->stats().reconnects == uint64_t(kill); }))
        << "the writer did not reconnect after kill " << kill;
  }
  std::this_thread::sleep_for(100ms);
  stop = true;
  producer.join();
  ASSERT_TRUE(store->Flush());

  EXPECT_EQ(failed, 0) << first_failure;
  EXPECT_EQ(acked, pushed);
  Connection check = Connect(url);
  const std::string of_run = " FROM proc_samples WHERE run_id = " + std::to_string(*run);
  EXPECT_EQ(Count(check, "SELECT count(*)" + of_run), pushed);
  EXPECT_EQ(Count(check, "SELECT count(DISTINCT t_ms)" + of_run), pushed);
  EXPECT_EQ(Count(check, "SELECT count(*) FROM runs"), 1 + runs_created);
  const StoreStats stats = store->stats();
  EXPECT_EQ(stats.connection_losses, uint64_t(kKills));
  EXPECT_EQ(stats.reconnects, uint64_t(kKills));
  EXPECT_EQ(stats.batches_lost, 0u);
  EXPECT_EQ(stats.records_lost, 0u);
}

TEST(PgReconnectTest, ReaderWhoseBackendWasKilledAnswersAgain) {
  const std::string url = SharedPgServer().CreateDatabase("reconnect");
  auto store = OpenStore(url, /*readers=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Read([](Reader& r) { return r.ListDevices(); }).ok());

  Connection admin = Admin();
  ASSERT_EQ(Kill(admin, DatabaseOf(url), kReaderName), 1);
  // The query that meets the broken connection fails; the reader's next one reconnects.
  auto broken = store->Read([](Reader& r) { return r.ListDevices(); });
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code, StoreErrorCode::kUnavailable) << broken.error().message;
  auto again = store->Read([](Reader& r) { return r.ListDevices(); });
  EXPECT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(store->stats().reader_reconnects, 1u);

  // Reopened read-only like the first.
  auto run = store->CreateRun(ARun());
  ASSERT_TRUE(run.ok()) << run.error().message;
  auto write = store->Read([](Reader& r) -> Status {
    auto& pg = static_cast<PgReader&>(r);
    return pg.connection().Execute("DELETE FROM runs", "writing through a reader");
  });
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.error().code, StoreErrorCode::kReadOnly) << write.error().message;
}

TEST(PgReconnectTest, StoreClosedWhileTheServerRefusesConnectionsEndsAndReportsTheBatchLost) {
  const std::string url = SharedPgServer().CreateDatabase("reconnect");
  const std::string database = DatabaseOf(url);
  auto store = OpenStore(url);
  ASSERT_TRUE(store);
  auto run = store->CreateRun(ARun());
  ASSERT_TRUE(run.ok()) << run.error().message;

  Connection admin = Admin();
  ASSERT_TRUE(admin.Execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false",
                            "refusing connections"));
  ASSERT_EQ(Kill(admin, database, kWriterName), 1);

  std::promise<Status> done;
  auto committed = done.get_future();
  ASSERT_TRUE(
      store->AddProcSamples(Samples(*run, 0, 10), [&](const Status& s) { done.set_value(s); }));
  // While the store is open the writer keeps trying: the batch is not reported lost.
  EXPECT_EQ(committed.wait_for(1500ms), std::future_status::timeout);
  EXPECT_EQ(store->stats().connection_losses, 1u);
  EXPECT_EQ(store->stats().reconnects, 0u);
  EXPECT_EQ(store->stats().batches_lost, 0u);

  const auto closing = std::chrono::steady_clock::now();
  store.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - closing, 5s);
  ASSERT_EQ(committed.wait_for(0s), std::future_status::ready);
  const Status lost = committed.get();
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().code, StoreErrorCode::kUnavailable) << lost.error().message;

  ASSERT_TRUE(admin.Execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true",
                            "accepting connections again"));
}

TEST(PgReconnectTest, BatchWhoseCommitWasCutOffIsAppliedAgainOnce) {
  const std::string url = SharedPgServer().CreateDatabase("reconnect");
  const std::string database = DatabaseOf(url);
  // Right before the first durable batch's COMMIT, its backend is killed: the COMMIT never
  // reaches the server, the writer finds the transaction aborted and applies the batch again.
  std::atomic<bool> armed{false};
  Connection killer = Admin();
  auto store = OpenStore(url, 1, [&](WriteSession&, bool durable) {
    if (durable && armed.exchange(false)) {
      EXPECT_EQ(Kill(killer, database, kWriterName), 1);
    }
  });
  ASSERT_TRUE(store);
  armed = true;
  auto run = store->CreateRun(ARun());
  ASSERT_TRUE(run.ok()) << run.error().message;
  Connection check = Connect(url);
  EXPECT_EQ(Count(check, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(Count(check, "SELECT count(*) FROM runs WHERE id = " + std::to_string(*run)), 1);
  EXPECT_EQ(store->stats().connection_losses, 1u);
  EXPECT_EQ(store->stats().reconnects, 1u);
  EXPECT_EQ(store->stats().batches_lost, 0u);
}

TEST(PgReconnectTest, SessionTellsWhetherItsLastCommitTookEffect) {
  const std::string url = SharedPgServer().CreateDatabase("reconnect");
  Connection connection = Connect(url);
  ASSERT_TRUE(MigratePostgres(connection).ok());
  PgWriteSession session(std::move(connection), url);
  ASSERT_TRUE(session.CanReconnect());

  ASSERT_TRUE(session.BeginBatch(/*durable=*/false));
  ASSERT_TRUE(session.InsertRun(ARun()).ok());
  ASSERT_TRUE(session.CommitBatch());
  ASSERT_TRUE(session.Reconnect());
  auto committed = session.LostCommitTookEffect();
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  EXPECT_TRUE(*committed);

  ASSERT_TRUE(session.BeginBatch(/*durable=*/true));
  ASSERT_TRUE(session.InsertRun(ARun()).ok());
  session.RollbackBatch();
  auto rolled_back = session.LostCommitTookEffect();
  ASSERT_TRUE(rolled_back.ok()) << rolled_back.error().message;
  EXPECT_FALSE(*rolled_back);
}

}  // namespace
}  // namespace droidlab::store::pg
