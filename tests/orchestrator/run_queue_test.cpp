// RunQueue with a real SQLite store and a fake executor (the real one needs devices: see
// tests/e2e): order per device, parallel devices, cancelling queued and running runs, start-up
// recovery of the store's runs, and the events a dashboard is sent.
#include "orchestrator/lab/run_queue.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "orchestrator/lab/run_summaries.h"
#include "store/async_store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

RunSpec Spec(const std::string& serial, int64_t iterations = 3) {
  RunSpec spec;
  spec.serial = serial;
  spec.package = "com.example.app";
  spec.activity = ".MainActivity";
  spec.mode = LaunchMode::kCold;
  spec.iterations = iterations;
  return spec;
}

// A stand-in for ExecuteRun that keeps its promise (records running and the end) and finishes
// when the test releases it, or when cancelled.
class FakeExecutor {
 public:
  explicit FakeExecutor(store::Store& st) : store_(st) {}

  RunExecuteFunction Function() {
    return [this](int64_t run_id, RunSpec spec, RunExecutorOptions options) {
      return Execute(run_id, std::move(spec), std::move(options));
    };
  }

  asio::awaitable<RunOutcome> Execute(int64_t run_id, RunSpec spec, RunExecutorOptions options) {
    auto executor = co_await asio::this_coro::executor;
    co_await asio::this_coro::throw_if_cancelled(false);
    started.push_back(run_id);
    ++running_[spec.serial];
    max_running_per_device = std::max(max_running_per_device, running_[spec.serial]);
    int total = 0;
    for (auto& [s, n] : running_) total += n;
    max_running_total = std::max(max_running_total, total);

    store::RunStatusUpdate running;
    running.run_id = run_id;
    running.status = store::RunStatus::kRunning;
    running.started_at = 1;
    store::AsyncStore door(store_);
    auto marking_running = door.UpdateRunStatus(running);
    co_await std::move(marking_running);
    if (options.on_progress) {
      options.on_progress(RunProgress{run_id, "launching", 1, spec.iterations, 1, true});
    }

    auto release = std::make_shared<asio::steady_timer>(executor, asio::steady_timer::time_point::max());
    releases_[run_id] = release;
    boost::system::error_code ec;
    co_await release->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    const bool cancelled =
        (co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none;

    RunOutcome outcome;
    outcome.status = cancelled ? store::RunStatus::kCancelled : store::RunStatus::kSucceeded;
    store::RunStatusUpdate end;
    end.run_id = run_id;
    end.status = outcome.status;
    end.finished_at = 2;
    co_await asio::this_coro::reset_cancellation_state();
    if (before_the_end) before_the_end();
    if (throw_at_the_end) {
      --running_[spec.serial];
      finished.push_back(run_id);
      throw std::runtime_error("a bug in the executor");
    }
    if (end_not_stored) {
      outcome.status_stored = false;  // as the real executor reports a write the disk refused
    } else {
      auto marking_end = door.UpdateRunStatus(end);
      co_await std::move(marking_end);
    }
    --running_[spec.serial];
    finished.push_back(run_id);
    co_return outcome;
  }

  // Lets a run end successfully.
  void Release(int64_t run_id) {
    auto it = releases_.find(run_id);
    if (it != releases_.end()) it->second->cancel();
  }
  bool Waiting(int64_t run_id) const { return releases_.count(run_id) > 0; }

  std::vector<int64_t> started;
  std::vector<int64_t> finished;
  bool end_not_stored = false;
  bool throw_at_the_end = false;  // breaks the promise to record the end: the queue records it
  std::function<void()> before_the_end;
  int max_running_per_device = 0;
  int max_running_total = 0;

 private:
  store::Store& store_;
  std::map<std::string, int> running_;
  std::map<int64_t, std::shared_ptr<asio::steady_timer>> releases_;
};

class RunQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
    executor_ = std::make_unique<FakeExecutor>(*store_);
  }

  void StartQueue() {
    RunQueueOptions options;
    options.now_ms = [this] { return ++clock_; };
    queue_ = std::make_unique<RunQueue>(*store_, executor_->Function(), std::move(options));
    queue_->Subscribe([this](const RunEvent& e) { events_.push_back(e); });
    asio::co_spawn(io_, queue_->Run(),
                   asio::bind_cancellation_slot(stop_.slot(), [this](std::exception_ptr e) {
                     queue_ended_ = true;
                     if (e) std::rethrow_exception(e);
                   }));
    RunUntil([] { return false; }, milliseconds(50));  // recovery
  }

  void TearDown() override {
    if (queue_ && !queue_ended_) {
      stop_.emit(asio::cancellation_type::terminal);
      RunUntil([this] { return queue_ended_; });
      EXPECT_TRUE(queue_ended_);
    }
  }

  // Drives the io_context until `done` holds (or the limit passes).
  bool RunUntil(const std::function<bool()>& done, milliseconds limit = milliseconds(5000)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      io_.restart();
      io_.run_for(milliseconds(5));
    }
    return true;
  }

  // Runs one awaitable to completion on the io_context.
  template <class T>
  T Await(asio::awaitable<T> op) {
    std::optional<T> result;
    // co_spawn wants a default-constructible result: carry it in an optional.
    auto wrapped = [](asio::awaitable<T> inner) -> asio::awaitable<std::optional<T>> {
      co_return co_await std::move(inner);
    };
    asio::co_spawn(io_, wrapped(std::move(op)), [&](std::exception_ptr e, std::optional<T> value) {
      if (e) std::rethrow_exception(e);
      result = std::move(value);
    });
    EXPECT_TRUE(RunUntil([&] { return result.has_value(); }));
    return std::move(*result);
  }

  int64_t Submit(const RunSpec& spec) {
    auto run = Await(queue_->Submit(spec, std::string("Pixel 7"), std::nullopt));
    EXPECT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->status, store::RunStatus::kQueued);
    return run->id;
  }

  store::RunStatus StoredStatus(int64_t id) {
    auto run = store_->Read([&](store::Reader& r) { return r.GetRun(id); });
    EXPECT_TRUE(run);
    return run ? run->status : store::RunStatus::kFailed;
  }

  testutil::TempDir dir_;
  // Before the store, so that it goes after it: a store call the queue left outstanding when it
  // stopped (a lease expiry) completes on the writer's thread into this io_context; the store's
  // close joins that thread first. The other way round, ASan once found the completion posted to
  // a destroyed io_context (PgRunQueueTest, where writes take longer). Before the executor too:
  // its timers must go before the io_context.
  asio::io_context io_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<FakeExecutor> executor_;
  asio::cancellation_signal stop_;
  std::unique_ptr<RunQueue> queue_;
  bool queue_ended_ = false;
  int64_t clock_ = 1'700'000'000'000;
  std::vector<RunEvent> events_;
};

TEST_F(RunQueueTest, OneRunAtATimePerDeviceInOrderDevicesInParallel) {
  StartQueue();
  const int64_t a1 = Submit(Spec("A"));
  const int64_t a2 = Submit(Spec("A"));
  const int64_t b1 = Submit(Spec("B"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(a1) && executor_->Waiting(b1); }));
  EXPECT_FALSE(executor_->Waiting(a2));  // behind a1
  EXPECT_EQ(queue_->Pending("A"), 2u);
  EXPECT_EQ(StoredStatus(a2), store::RunStatus::kQueued);

  executor_->Release(a1);
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(a2); }));
  executor_->Release(a2);
  executor_->Release(b1);
  // The executor is done before the queue is: a succeeded run's series summary is stored (and
  // its history judged) after it, and only then does the device's queue move on.
  ASSERT_TRUE(RunUntil([&] {
    return executor_->finished.size() == 3 && queue_->Pending("A") == 0 &&
           queue_->Pending("B") == 0;
  }));

  EXPECT_EQ(executor_->started, (std::vector<int64_t>{a1, b1, a2}));
  EXPECT_EQ(executor_->max_running_per_device, 1);
  EXPECT_EQ(executor_->max_running_total, 2);
  EXPECT_EQ(StoredStatus(a1), store::RunStatus::kSucceeded);
  EXPECT_EQ(StoredStatus(a2), store::RunStatus::kSucceeded);
  EXPECT_EQ(queue_->Pending("A"), 0u);
}

TEST_F(RunQueueTest, CancellingAQueuedRunNeverStartsIt) {
  StartQueue();
  const int64_t first = Submit(Spec("A"));
  const int64_t second = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(first); }));

  auto cancelled = Await(queue_->Cancel(second));
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, store::RunStatus::kCancelled);
  EXPECT_EQ(queue_->Pending("A"), 1u);

  executor_->Release(first);
  ASSERT_TRUE(RunUntil([&] { return executor_->finished.size() == 1; }));
  EXPECT_EQ(executor_->started, (std::vector<int64_t>{first}));
  EXPECT_EQ(StoredStatus(second), store::RunStatus::kCancelled);
  // Every terminal run says why (the soak found a queued run cancelled with no reason).
  EXPECT_EQ(cancelled->error, std::optional<std::string>("cancelled before it started"));
  auto stored = store_->Read([&](store::Reader& r) { return r.GetRun(second); });
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->error, std::optional<std::string>("cancelled before it started"));
}

TEST_F(RunQueueTest, CancellingARunningRunWaitsForItsEnd) {
  StartQueue();
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  EXPECT_TRUE(queue_->Progress(id).has_value());

  auto cancelled = Await(queue_->Cancel(id));
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, store::RunStatus::kCancelled);
  EXPECT_FALSE(queue_->Progress(id).has_value());

  auto again = Await(queue_->Cancel(id));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, RunQueueError::Code::kConflict);
  auto unknown = Await(queue_->Cancel(9999));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, RunQueueError::Code::kNotFound);
}

TEST_F(RunQueueTest, InvalidSpecIsRefusedWithItsField) {
  StartQueue();
  RunSpec spec = Spec("A");
  spec.package = "com.x;reboot";
  auto run = Await(queue_->Submit(spec, std::nullopt, std::nullopt));
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, RunQueueError::Code::kInvalidArgument);
  EXPECT_EQ(run.error().field, "package");

  spec = Spec("A", 0);
  run = Await(queue_->Submit(spec, std::nullopt, std::nullopt));
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().field, "iterations");
  EXPECT_TRUE(executor_->started.empty());
  auto page = store_->Read([](store::Reader& r) { return r.ListRuns({}); });
  ASSERT_TRUE(page);
  EXPECT_TRUE(page->runs.empty());  // nothing stored for a refused spec
}

TEST_F(RunQueueTest, StartUpInterruptsRunningRunsAndRequeuesQueuedOnes) {
  // What a crashed daemon leaves: one run running, two queued (the older first).
  auto make = [&](int64_t created_at) {
    store::NewRun run;
    run.spec_json = RunSpecToJson(Spec("A"));
    run.serial = "A";
    run.package = "com.example.app";
    run.mode = "cold";
    run.iterations = 3;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id);
    return *id;
  };
  const int64_t was_running = make(10);
  const int64_t older = make(20);
  const int64_t newer = make(30);
  store::RunStatusUpdate running;
  running.run_id = was_running;
  running.status = store::RunStatus::kRunning;
  ASSERT_TRUE(store_->UpdateRunStatus(running));

  StartQueue();
  EXPECT_EQ(StoredStatus(was_running), store::RunStatus::kInterrupted);
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(older); }));
  executor_->Release(older);
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(newer); }));
  executor_->Release(newer);
  ASSERT_TRUE(RunUntil([&] { return executor_->finished.size() == 2; }));
  EXPECT_EQ(executor_->started, (std::vector<int64_t>{older, newer}));
}

// A run submitted while start-up recovery still reads the store's queued runs is found by both:
// it must run once.
TEST_F(RunQueueTest, ARunSubmittedDuringRecoveryRunsOnce) {
  RunQueueOptions options;
  options.now_ms = [this] { return ++clock_; };
  queue_ = std::make_unique<RunQueue>(*store_, executor_->Function(), std::move(options));
  asio::co_spawn(io_, queue_->Run(),
                 asio::bind_cancellation_slot(stop_.slot(), [this](std::exception_ptr e) {
                   queue_ended_ = true;
                   if (e) std::rethrow_exception(e);
                 }));
  const int64_t id = Submit(Spec("A"));  // no wait for recovery first
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil([&] { return executor_->finished.size() == 1; }));
  RunUntil([] { return false; }, milliseconds(200));  // a second start would come meanwhile
  EXPECT_EQ(executor_->started, (std::vector<int64_t>{id}));
  EXPECT_EQ(queue_->Pending("A"), 0u);
}

// Issue 13 §3: what listeners hear (the event stream, dashboards) is what the store holds at
// that moment — never `running` for a run still `queued` on disk, never an end it lost.
TEST_F(RunQueueTest, EachAnnouncedStatusIsTheOneTheStoreHolds) {
  StartQueue();
  std::vector<std::string> mismatches;
  queue_->Subscribe([&](const RunEvent& e) {
    auto stored = store_->Read([&](store::Reader& r) { return r.GetRun(e.run_id); });
    if (!stored || stored->status != e.status) {
      mismatches.push_back(std::string("announced ") + store::RunStatusName(e.status) +
                           ", stored " + (stored ? store::RunStatusName(stored->status) : "?"));
    }
  });
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil([&] {
    return !events_.empty() && events_.back().status == store::RunStatus::kSucceeded;
  }));
  EXPECT_TRUE(mismatches.empty()) << ::testing::PrintToString(mismatches);
}

// Issue 15 §1: a run's point of its series is stored before its success is announced, so a
// dashboard that refetches the series on the event finds it.
TEST_F(RunQueueTest, ASucceededRunIsSummarisedBeforeItsEndIsAnnounced) {
  StartQueue();
  std::vector<size_t> summaries_when_announced;
  queue_->Subscribe([&](const RunEvent& e) {
    if (e.status != store::RunStatus::kSucceeded) return;
    auto stored = store_->Read([&](store::Reader& r) { return r.RunSummaries(e.run_id); });
    summaries_when_announced.push_back(stored ? stored->size() : 0);
  });
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil([&] {
    return !events_.empty() && events_.back().status == store::RunStatus::kSucceeded;
  }));
  // one per metric
  EXPECT_EQ(summaries_when_announced, (std::vector<size_t>{SeriesMetrics().size()}));
}

// Issue 17 §2: another host's run, told through the store (daemon/lab_run_relay.h): its status
// and progress reach this queue's listeners marked remote, Progress answers with it while it
// runs, and its end (or its return to the pool) clears it.
TEST_F(RunQueueTest, AnotherHostsProgressIsAnnouncedAndAnsweredUntilItsEnd) {
  StartQueue();
  RunEvent told;
  told.run_id = 900;
  told.serial = "B1";
  told.status = store::RunStatus::kRunning;
  told.progress = RunProgress{900, "launching", 4, 20, 4, true};
  queue_->Announce(told);
  ASSERT_FALSE(events_.empty());
  EXPECT_TRUE(events_.back().remote);
  ASSERT_TRUE(events_.back().progress);
  EXPECT_EQ(events_.back().progress->iterations_done, 4);
  auto progress = queue_->Progress(900);
  ASSERT_TRUE(progress);
  EXPECT_EQ(progress->iterations_done, 4);
  EXPECT_EQ(progress->iterations, 20);
  EXPECT_EQ(progress->phase, "launching");

  RunEvent status_only = told;  // a status change heard without progress keeps the last one
  status_only.progress.reset();
  queue_->Announce(status_only);
  EXPECT_TRUE(queue_->Progress(900));

  RunEvent ended = status_only;
  ended.status = store::RunStatus::kSucceeded;
  queue_->Announce(ended);
  EXPECT_FALSE(queue_->Progress(900));
  EXPECT_TRUE(events_.back().remote);
  // Its last progress heard after its end (another connection): not told, not answered.
  const size_t events_before = events_.size();
  queue_->Announce(told);
  EXPECT_EQ(events_.size(), events_before) << "a dashboard would show it running again";
  EXPECT_FALSE(queue_->Progress(900));

  RunEvent other = told;  // a pool run claimed elsewhere, then given back to the pool
  other.run_id = other.progress->run_id = 901;
  queue_->Announce(other);
  EXPECT_TRUE(queue_->Progress(901));
  RunEvent requeued = other;
  requeued.progress.reset();
  requeued.status = store::RunStatus::kQueued;
  queue_->Announce(requeued);
  EXPECT_FALSE(queue_->Progress(901));
  queue_->Announce(other);  // claimed again: not ended, so its progress counts
  EXPECT_TRUE(queue_->Progress(901));

  // This host's own runs are not remote.
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil(
      [&] { return !events_.empty() && events_.back().status == store::RunStatus::kSucceeded; }));
  EXPECT_FALSE(events_.back().remote);
}

TEST_F(RunQueueTest, AnEndTheStoreCouldNotRecordIsNotAnnounced) {
  executor_->end_not_stored = true;
  StartQueue();
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil([&] { return executor_->finished.size() == 1; }));
  RunUntil([] { return false; }, milliseconds(100));
  ASSERT_FALSE(events_.empty());
  EXPECT_EQ(events_.back().status, store::RunStatus::kRunning);
  auto stored = store_->Read([&](store::Reader& r) { return r.GetRun(id); });
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, store::RunStatus::kRunning);
}

// Issue 13 §3: an executor that broke its promise (threw) leaves the end to the queue; on a disk
// that filled (a real SQLite write failure: this process may not grow the WAL, RLIMIT_FSIZE,
// SIGXFSZ ignored) the queue's own `failed` is not stored, so it is not announced either.
TEST_F(RunQueueTest, AnEndTheQueueCouldNotRecordAfterAnExecutorThrewIsNotAnnounced) {
  DROIDLAB_SQLITE_ONLY("the full disk is SQLite's WAL file; the server's is not this process's");
  ASSERT_TRUE(store_->Flush().ok());
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  auto previous_xfsz = std::signal(SIGXFSZ, SIG_IGN);
  const std::string wal = dir_.File("droidlab.db-wal");
  executor_->throw_at_the_end = true;
  executor_->before_the_end = [&] {
    struct stat st {};
    ASSERT_EQ(::stat(wal.c_str(), &st), 0);
    rlimit full = before;
    full.rlim_cur = static_cast<rlim_t>(st.st_size);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &full), 0);
  };
  StartQueue();
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  const bool ended = RunUntil([&] { return queue_->Progress(id) == std::nullopt; });
  ::setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, previous_xfsz);
  ASSERT_TRUE(ended);
  RunUntil([] { return false; }, milliseconds(100));
  ASSERT_FALSE(events_.empty());
  for (const RunEvent& e : events_) {
    EXPECT_NE(e.status, store::RunStatus::kFailed) << "announced an end the store does not have";
  }
  EXPECT_EQ(StoredStatus(id), store::RunStatus::kRunning);
}

TEST_F(RunQueueTest, ListenersHearQueuedRunningProgressAndTheEnd) {
  StartQueue();
  const int64_t id = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(id); }));
  executor_->Release(id);
  ASSERT_TRUE(RunUntil([&] { return executor_->finished.size() == 1; }));
  ASSERT_TRUE(RunUntil([&] {
    return !events_.empty() && events_.back().status == store::RunStatus::kSucceeded;
  }));
  std::vector<store::RunStatus> statuses;
  for (const auto& e : events_) {
    EXPECT_EQ(e.run_id, id);
    statuses.push_back(e.status);
  }
  // Queued at submission; running once the executor committed it, with its progress; the end.
  ASSERT_GE(statuses.size(), 3u);
  EXPECT_EQ(statuses.front(), store::RunStatus::kQueued);
  EXPECT_EQ(statuses[1], store::RunStatus::kRunning);
  EXPECT_TRUE(events_[1].progress.has_value());
  EXPECT_EQ(events_[1].progress->phase, "launching");
  EXPECT_EQ(statuses.back(), store::RunStatus::kSucceeded);
}

TEST_F(RunQueueTest, StoppingCancelsRunningRunsAndLeavesQueuedOnesQueued) {
  StartQueue();
  const int64_t running = Submit(Spec("A"));
  const int64_t queued = Submit(Spec("A"));
  ASSERT_TRUE(RunUntil([&] { return executor_->Waiting(running); }));
  stop_.emit(asio::cancellation_type::terminal);
  ASSERT_TRUE(RunUntil([&] { return queue_ended_; }));
  EXPECT_EQ(StoredStatus(running), store::RunStatus::kCancelled);
  EXPECT_EQ(StoredStatus(queued), store::RunStatus::kQueued);  // taken up at the next start
}

// Issue 17 §2: two hosts' queues on one store (as two daemons on one PostgreSQL database), each
// with its own phones and executor, claiming runs in the store.
class RunQueueLabTest : public RunQueueTest {
 protected:
  struct Host {
    std::string name;
    std::vector<std::string> phones;
    std::unique_ptr<FakeExecutor> executor;
    std::unique_ptr<RunQueue> queue;
    asio::cancellation_signal stop;
    bool ended = false;
  };

  void Phone(const std::string& serial, const std::string& host,
             std::vector<std::string> labels = {"nightly"}) {
    store::Device d;
    d.serial = serial;
    d.model = "Pixel 7";
    d.sdk = 34;
    d.state = "device";
    d.first_seen = 1;
    d.last_seen = 1;
    d.host = host;
    ASSERT_TRUE(store_->UpsertDevice(d).ok());
    ASSERT_TRUE(store_->Flush().ok());
    ASSERT_TRUE(store_->SetDeviceLabels(serial, std::move(labels)).ok());
  }

  // `now_ms`: the host's own clock; by default the test's, moving a millisecond a reading.
  Host& StartHost(const std::string& name, std::vector<std::string> phones,
                  milliseconds renew_every = milliseconds(40), int64_t lease_ms = 30'000,
                  std::function<int64_t()> now_ms = {}) {
    auto host = std::make_unique<Host>();
    host->name = name;
    host->phones = std::move(phones);
    host->executor = std::make_unique<FakeExecutor>(*store_);
    RunQueueOptions options;
    options.now_ms =
        now_ms ? std::move(now_ms) : std::function<int64_t()>([this] { return ++clock_; });
    options.host = name;
    options.claim_every = milliseconds(10);
    options.renew_every = renew_every;
    options.lease_ms = lease_ms;
    options.local_phones = [h = host.get()] { return h->phones; };
    host->queue = std::make_unique<RunQueue>(*store_, host->executor->Function(), options);
    asio::co_spawn(
        io_, host->queue->Run(),
        asio::bind_cancellation_slot(host->stop.slot(), [h = host.get()](std::exception_ptr e) {
          h->ended = true;
          if (e) std::rethrow_exception(e);
        }));
    hosts_.push_back(std::move(host));
    RunUntil([] { return false; }, milliseconds(30));  // recovery
    return *hosts_.back();
  }

  void TearDown() override {
    for (auto& host : hosts_) {
      if (host->ended) continue;
      host->stop.emit(asio::cancellation_type::terminal);
      EXPECT_TRUE(RunUntil([&] { return host->ended; }));
    }
    RunQueueTest::TearDown();
  }

  static RunSpec PoolSpec() {
    RunSpec spec = Spec("");
    spec.pool = DevicePool{std::string("Pixel 7"), 34, {"nightly"}};
    return spec;
  }

  store::Run Stored(int64_t id) {
    auto run = store_->Read([&](store::Reader& r) { return r.GetRun(id); });
    EXPECT_TRUE(run);
    return run ? *run : store::Run{};
  }

  std::vector<std::unique_ptr<Host>> hosts_;
};

TEST_F(RunQueueLabTest, APoolsRunsGoToIdleMatchingPhonesOfEitherHostEachOnce) {
  Phone("A1", "lab-a");
  Phone("A2", "lab-a");
  Phone("B1", "lab-b");
  Phone("B2", "lab-b", {"smoke"});  // not in the pool: no "nightly"
  Host& a = StartHost("lab-a", {"A1", "A2"});
  Host& b = StartHost("lab-b", {"B1", "B2"});
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    auto run = Await(a.queue->Submit(PoolSpec(), std::nullopt, std::nullopt));
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(run->pool);
    EXPECT_EQ(run->serial, "") << "no phone yet";
    ids.push_back(run->id);
  }
  // Three matching phones: three runs at once, one per phone; the rest wait for an idle one.
  ASSERT_TRUE(
      RunUntil([&] { return a.executor->started.size() + b.executor->started.size() == 3; }));
  RunUntil([] { return false; }, milliseconds(60));
  EXPECT_EQ(a.executor->started.size(), 2u);
  EXPECT_EQ(b.executor->started.size(), 1u);
  for (int round = 0; round < 6; ++round) {
    for (Host* h : {&a, &b}) {
      for (int64_t id : h->executor->started) h->executor->Release(id);
    }
    RunUntil([] { return false; }, milliseconds(40));
  }
  ASSERT_TRUE(RunUntil(
      [&] { return a.executor->finished.size() + b.executor->finished.size() == ids.size(); }));
  std::set<int64_t> seen;
  for (Host* h : {&a, &b}) {
    EXPECT_EQ(h->executor->max_running_per_device, 1) << h->name;
    for (int64_t id : h->executor->started) {
      EXPECT_TRUE(seen.insert(id).second) << "run " << id << " started twice";
      store::Run run = Stored(id);
      EXPECT_EQ(run.host, h->name);
      EXPECT_EQ(run.status, store::RunStatus::kSucceeded);
      EXPECT_NE(std::find(h->phones.begin(), h->phones.end(), run.serial), h->phones.end())
          << "run " << id << " measured on " << run.serial;
      EXPECT_NE(run.serial, "B2") << "B2 is not in the pool";
      EXPECT_EQ(run.device_model, "Pixel 7");
    }
  }
  EXPECT_EQ(seen, std::set<int64_t>(ids.begin(), ids.end()));
}

TEST_F(RunQueueLabTest, ARunPostedForAnotherHostsPhoneRunsOnThatHost) {
  Phone("A1", "lab-a");
  Phone("B1", "lab-b");
  Host& a = StartHost("lab-a", {"A1"});
  Host& b = StartHost("lab-b", {"B1"});
  auto run = Await(a.queue->Submit(Spec("B1"), std::string("Pixel 7"), std::nullopt));
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_FALSE(run->host) << "lab-a does not claim lab-b's phone";
  ASSERT_TRUE(RunUntil([&] { return b.executor->Waiting(run->id); }));
  EXPECT_TRUE(a.executor->started.empty());
  EXPECT_EQ(Stored(run->id).host, "lab-b");
  EXPECT_EQ(b.queue->Pending("B1"), 1u);
  b.executor->Release(run->id);
  ASSERT_TRUE(RunUntil([&] { return Stored(run->id).status == store::RunStatus::kSucceeded; }));
}

TEST_F(RunQueueLabTest, ACancelThroughAnotherDaemonReachesTheRunAtItsHostsNextRenewal) {
  Phone("A1", "lab-a");
  Phone("B1", "lab-b");
  Host& a = StartHost("lab-a", {"A1"});
  Host& b = StartHost("lab-b", {"B1"});
  auto run = Await(b.queue->Submit(Spec("B1"), std::string("Pixel 7"), std::nullopt));
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_TRUE(RunUntil([&] { return b.executor->Waiting(run->id); }));

  auto asked = Await(a.queue->Cancel(run->id));
  ASSERT_TRUE(asked) << asked.error().message;
  EXPECT_TRUE(asked->cancel_requested);
  EXPECT_EQ(asked->status, store::RunStatus::kRunning) << "lab-b ends it, restoring its phone";
  // The store holds the end before the executor's coroutine resumes from writing it: wait for both.
  ASSERT_TRUE(RunUntil([&] {
    return Stored(run->id).status == store::RunStatus::kCancelled && !b.executor->finished.empty();
  }));
  EXPECT_EQ(b.executor->finished, (std::vector<int64_t>{run->id}));

  // A queued run no host holds is cancelled by whichever daemon is asked.
  Phone("GONE", "lab-c");  // its host is down: nobody claims its runs
  auto waiting = Await(a.queue->Submit(Spec("GONE"), std::nullopt, std::nullopt));
  ASSERT_TRUE(waiting);
  auto cancelled = Await(b.queue->Cancel(waiting->id));
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled->status, store::RunStatus::kCancelled);
  EXPECT_EQ(cancelled->error, "cancelled before it started");
}

// Two hosts whose clocks are ten minutes apart (one not synchronised, say) agree on when a lease
// lapses: leases are kept in the database server's clock. With each host's own clock, lab-a's
// renewals wrote leases lab-b saw as ten minutes lapsed, and lab-b interrupted the run lab-a
// was measuring.
TEST_F(RunQueueLabTest, HostsWhoseClocksDisagreeStillAgreeWhenALeaseLapses) {
  if (!testutil::kTestStoreIsPostgres) {
    GTEST_SKIP() << "one host per SQLite file: its clock is the database's";
  }
  const auto wall = [] {
    return std::chrono::duration_cast<milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  Phone("A1", "lab-a");
  Phone("B1", "lab-b");
  Host& a = StartHost("lab-a", {"A1"}, milliseconds(50), 2'000, [&] { return wall() - 600'000; });
  Host& b = StartHost("lab-b", {"B1"}, milliseconds(50), 2'000, wall);
  auto run = Await(a.queue->Submit(Spec("A1"), std::string("Pixel 7"), std::nullopt));
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_TRUE(RunUntil([&] { return a.executor->Waiting(run->id); }));

  // Both renew and expire every 50 ms for three times the lease.
  RunUntil([] { return false; }, milliseconds(6'000));
  store::Run held = Stored(run->id);
  EXPECT_EQ(held.status, store::RunStatus::kRunning) << held.error.value_or("");
  EXPECT_EQ(held.host, "lab-a");
  EXPECT_TRUE(b.executor->started.empty());
  a.executor->Release(run->id);
  ASSERT_TRUE(RunUntil([&] { return Stored(run->id).status == store::RunStatus::kSucceeded; }));
}

// Issue 17 §3: a phone quarantined while a run was already claimed for it and queued on its host
// starts none of them: the run is given back unclaimed and waits for the phone's release (no
// host claims it meanwhile); released, the phone claims it again.
TEST_F(RunQueueLabTest, ARunQueuedForAPhoneQuarantinedMeanwhileWaitsForItsRelease) {
  Phone("A1", "lab-a");
  Host& a = StartHost("lab-a", {"A1"});
  auto first = Await(a.queue->Submit(Spec("A1"), std::string("Pixel 7"), std::nullopt));
  auto second = Await(a.queue->Submit(Spec("A1"), std::string("Pixel 7"), std::nullopt));
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(second) << second.error().message;
  ASSERT_TRUE(RunUntil([&] { return a.executor->Waiting(first->id); }));
  ASSERT_EQ(Stored(second->id).host, "lab-a") << "claimed, queued behind the first";

  auto event = [](std::string kind, int64_t at) {
    store::DeviceEvent e;
    e.serial = "A1";
    e.host = "lab-a";
    e.at = at;
    e.kind = std::move(kind);
    e.detail = "test";
    return e;
  };
  ASSERT_TRUE(store_->QuarantineDevice(event("quarantined", 10)).ok());
  a.executor->Release(first->id);
  ASSERT_TRUE(RunUntil([&] { return !Stored(second->id).host.has_value(); }))
      << "the queued run kept its claim on a quarantined phone";
  RunUntil([] { return false; }, milliseconds(300));  // the claim loop looks every 10 ms
  EXPECT_EQ(a.executor->started, (std::vector<int64_t>{first->id}));
  store::Run waiting = Stored(second->id);
  EXPECT_EQ(waiting.status, store::RunStatus::kQueued);
  EXPECT_FALSE(waiting.host) << "claimed again for a quarantined phone";
  EXPECT_EQ(a.queue->Pending("A1"), 0u);

  ASSERT_TRUE(store_->ReleaseDevice(event("released", 20)).ok());
  ASSERT_TRUE(RunUntil([&] { return a.executor->Waiting(second->id); }));
  EXPECT_EQ(Stored(second->id).host, "lab-a");
  a.executor->Release(second->id);
  ASSERT_TRUE(RunUntil([&] { return Stored(second->id).status == store::RunStatus::kSucceeded; }));
}

TEST_F(RunQueueLabTest, AHostThatStopsRenewingLosesItsRunAndThePoolRunGoesToAnother) {
  Phone("B1", "lab-b");
  // lab-b claims with a short lease and never renews it (as a host that was kill -9'd). The
  // test's clock moves a millisecond each time a queue reads it.
  Host& b = StartHost("lab-b", {"B1"}, std::chrono::hours(1), 40);
  auto run = Await(b.queue->Submit(PoolSpec(), std::nullopt, std::nullopt));
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_TRUE(RunUntil([&] { return b.executor->Waiting(run->id); }));
  EXPECT_EQ(Stored(run->id).host, "lab-b");

  Phone("A1", "lab-a");
  Host& a = StartHost("lab-a", {"A1"});
  ASSERT_TRUE(RunUntil([&] { return !a.executor->started.empty(); }, milliseconds(10'000)));
  store::Run lost = Stored(run->id);
  EXPECT_EQ(lost.status, store::RunStatus::kInterrupted);
  EXPECT_NE(lost.error.value_or("").find("host lab-b stopped renewing"), std::string::npos)
      << lost.error.value_or("");
  const int64_t again = a.executor->started.front();
  EXPECT_NE(again, run->id) << "queued again as a new run";
  EXPECT_NE(lost.error.value_or("").find("queued again as run " + std::to_string(again)),
            std::string::npos)
      << lost.error.value_or("");
  store::Run fresh = Stored(again);
  EXPECT_EQ(fresh.host, "lab-a");
  EXPECT_EQ(fresh.serial, "A1");
  EXPECT_EQ(fresh.spec_json, lost.spec_json);

  // lab-b comes back and its executor ends the run it still had: the end lab-a wrote is kept.
  b.executor->Release(run->id);
  ASSERT_TRUE(RunUntil([&] { return !b.executor->finished.empty(); }));
  store::Run kept = Stored(run->id);
  EXPECT_EQ(kept.status, store::RunStatus::kInterrupted) << "a late end overwrote it";
  EXPECT_EQ(kept.error, lost.error);
}

}  // namespace
}  // namespace droidlab::orchestrator
