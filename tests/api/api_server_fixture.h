// The API test fixture: a real Server on loopback (port 0) with a real SQLite store and a real
// RunQueue whose executor only waits to be cancelled (runs need devices: tests/e2e has those),
// and raw-socket calls. Shared by tests/api/api_test.cpp and the connection tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/server.h"
#include "store/async_store.h"
#include "tests/common/http_client.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::api {


namespace asio = boost::asio;
using std::chrono::milliseconds;
using Json = nlohmann::json;

using testutil::HttpRequestBytes;
using Response = testutil::HttpResponse;
using RawClient = testutil::RawHttpClient;

inline std::string Request(const std::string& method, const std::string& target,
                    const std::string& body = "", const std::string& extra_headers = "",
                    bool close = true) {
  return HttpRequestBytes(method, target, body, extra_headers, close);
}

// A run executor stand-in: records `running` and waits to be cancelled.
inline asio::awaitable<orchestrator::RunOutcome> WaitForCancel(
    store::Store& st, int64_t run_id, orchestrator::RunExecutorOptions options) {
  co_await asio::this_coro::throw_if_cancelled(false);
  store::RunStatusUpdate running;
  running.run_id = run_id;
  running.status = store::RunStatus::kRunning;
  store::AsyncStore door(st);
  auto marking_running = door.UpdateRunStatus(running);
  co_await std::move(marking_running);
  if (options.on_progress) {  // as the executor tells the queue once `running` is committed
    options.on_progress(orchestrator::RunProgress{run_id, "launching", 0, 1, 0, true});
  }
  // A cancel that came while the status was being stored is recorded in the coroutine's state
  // only (that wait does not take cancellation): waiting on a timer now would never see it.
  if ((co_await asio::this_coro::cancellation_state).cancelled() == asio::cancellation_type::none) {
    asio::steady_timer forever(co_await asio::this_coro::executor,
                               asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await forever.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_await asio::this_coro::reset_cancellation_state();
  store::RunStatusUpdate end;
  end.run_id = run_id;
  end.status = store::RunStatus::kCancelled;
  auto marking_cancelled = door.UpdateRunStatus(end);
  co_await std::move(marking_cancelled);
  orchestrator::RunOutcome outcome;
  outcome.status = store::RunStatus::kCancelled;
  co_return outcome;
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  void Start(ServerOptions options = {}) {
    options.host = "127.0.0.1";
    options.port = 0;
    if (options.header_timeout == milliseconds(10'000)) options.header_timeout = milliseconds(500);
    options.sse_keepalive = milliseconds(200);
    options.drain_timeout = milliseconds(1000);
    store::Store& st = *store_;
    orchestrator::RunQueueOptions queue_options;
    queue_options.log = [](std::string_view) {};
    queue_ = std::make_unique<orchestrator::RunQueue>(
        st,
        [&st](int64_t id, orchestrator::RunSpec, orchestrator::RunExecutorOptions run_options) {
          return WaitForCancel(st, id, std::move(run_options));
        },
        std::move(queue_options));
    builds_ = std::make_unique<orchestrator::BuildLibrary>(*store_, dir_.File("builds"));
    ASSERT_EQ(builds_->Open(), std::nullopt);
    Services services;
    services.store = store_.get();
    services.builds = builds_.get();
    services.queue = queue_.get();
    services.version = "test";
    services.adb_version = []() -> asio::awaitable<std::optional<int>> { co_return 41; };
    server_ = std::make_unique<Server>(io_.get_executor(), services, options);
    auto port = server_->Listen();
    ASSERT_TRUE(port) << port.error();
    port_ = *port;
    asio::co_spawn(io_, queue_->Run(),
                   asio::bind_cancellation_slot(stop_queue_.slot(), [this](std::exception_ptr e) {
                     EXPECT_FALSE(e);
                     queue_ended_ = true;
                   }));
    asio::co_spawn(io_, server_->Run(),
                   asio::bind_cancellation_slot(stop_server_.slot(), [this](std::exception_ptr e) {
                     EXPECT_FALSE(e);
                     server_ended_ = true;
                   }));
    thread_ = std::thread([this] { io_.run(); });
  }

  void TearDown() override {
    if (!thread_.joinable()) return;
    asio::post(io_, [this] {
      stop_server_.emit(asio::cancellation_type::terminal);
      stop_queue_.emit(asio::cancellation_type::terminal);
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((!server_ended_ || !queue_ended_) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(10));
    }
    EXPECT_TRUE(server_ended_) << "the server did not stop";
    EXPECT_TRUE(queue_ended_) << "the queue did not stop";
    io_.stop();
    thread_.join();
  }

  Response Call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& headers = "") {
    RawClient client(port_);
    EXPECT_TRUE(client.connected());
    client.Send(Request(method, target, body, headers));
    auto responses = client.Read(1);
    EXPECT_EQ(responses.size(), 1u) << method << " " << target << ": " << client.raw();
    return responses.empty() ? Response{} : responses[0];
  }

  // The server's count of open connections, read on its own thread.
  size_t OpenConnections() {
    std::promise<size_t> answer;
    std::future<size_t> counted = answer.get_future();
    asio::post(io_, [&] { answer.set_value(server_->open_connections()); });
    return counted.get();
  }

  int64_t StoredRuns() {
    auto page = store_->Read([](store::Reader& r) { return r.ListRuns({}); });
    return page ? static_cast<int64_t>(page->runs.size()) : -1;
  }

  int64_t SeedRun(const std::string& serial, const std::string& package, int64_t created_at,
                  std::vector<int64_t> displayed, const std::string& spec_json = "{}") {
    store::NewRun run;
    run.spec_json = spec_json;
    run.serial = serial;
    run.device_model = "Pixel 7";
    run.package = package;
    run.mode = "cold";
    run.iterations = static_cast<int64_t>(displayed.size());
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id);
    std::vector<store::Launch> launches;
    for (size_t i = 0; i < displayed.size(); ++i) {
      store::Launch l;
      l.run_id = *id;
      l.iteration = static_cast<int64_t>(i + 1);
      l.displayed_ms = displayed[i];
      l.launch_state = "COLD";
      launches.push_back(l);
    }
    EXPECT_TRUE(store_->AddLaunches(std::move(launches)));
    store::RunStatusUpdate done;
    done.run_id = *id;
    done.status = store::RunStatus::kSucceeded;
    EXPECT_TRUE(store_->UpdateRunStatus(done));
    EXPECT_TRUE(store_->Flush());
    return *id;
  }

  testutil::TempDir dir_;
  // Before the store, so that it goes after it: a store call left outstanding completes into it
  // from the writer's thread until the store's close joins that thread (run_queue_test.cpp).
  asio::io_context io_;
  std::unique_ptr<store::Store> store_;
  // <dir_>/builds; after io_ so that it goes first (its file thread joined while io_ still is).
  std::unique_ptr<orchestrator::BuildLibrary> builds_;
  std::unique_ptr<orchestrator::RunQueue> queue_;
  std::unique_ptr<Server> server_;
  asio::cancellation_signal stop_server_, stop_queue_;
  std::atomic<bool> server_ended_{false}, queue_ended_{false};
  std::thread thread_;
  uint16_t port_ = 0;
};


inline const std::string kSerial = "R58M123ABC";

inline std::string RunBody(const std::string& serial, const std::string& package, const std::string& mode,
                    const std::string& iterations) {
  return R"({"serial":")" + serial + R"(","package":")" + package + R"(","mode":")" + mode +
         R"(","iterations":)" + iterations + "}";
}

}  // namespace droidlab::api
