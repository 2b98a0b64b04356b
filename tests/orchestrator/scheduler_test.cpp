// Scheduler with a real SQLite store and a real RunQueue (its executor faked: runs need devices):
// a due schedule queues one run and records the firing first, so a restarted scheduler at the
// same moment queues nothing; a firing missed beyond the grace window is skipped; a schedule
// whose stored spec no longer parses is left alone while the others fire.
#include "orchestrator/lab/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/async_store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::orchestrator {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

// 2026-11-23 02:00:00 UTC.
constexpr int64_t kTwoAm = 1'795'399'200'000;

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
    RunQueueOptions queue_options;
    queue_options.now_ms = [this] { return now_ms_; };
    // Runs end at once: the scheduler's part ends when the run is queued.
    queue_ = std::make_unique<RunQueue>(
        *store_,
        [this](int64_t id, RunSpec, RunExecutorOptions) -> asio::awaitable<RunOutcome> {
          store::RunStatusUpdate end;
          end.run_id = id;
          end.status = store::RunStatus::kSucceeded;
          store::AsyncStore door(*store_);
          auto marking_end = door.UpdateRunStatus(end);
          co_await std::move(marking_end);
          RunOutcome outcome;
          outcome.status = store::RunStatus::kSucceeded;
          co_return outcome;
        },
        std::move(queue_options));
    asio::co_spawn(io_, queue_->Run(),
                   asio::bind_cancellation_slot(stop_queue_.slot(), [](std::exception_ptr) {}));
  }

  void TearDown() override {
    stop_queue_.emit(asio::cancellation_type::terminal);
    io_.restart();
    io_.run_for(milliseconds(200));
  }

  int64_t AddSchedule(const std::string& cron, const std::string& spec_json, int64_t created_at) {
    store::NewSchedule schedule;
    schedule.cron = cron;
    schedule.timezone = "UTC";
    schedule.run_spec_json = spec_json;
    schedule.created_at = created_at;
    auto id = store_->CreateSchedule(schedule);
    EXPECT_TRUE(id) << id.error().message;
    return *id;
  }

  // Runs a scheduler until `runs` runs were started (or `limit` passes), then stops it.
  int64_t RunScheduler(int64_t runs, milliseconds limit, std::vector<std::string>* logs = nullptr,
                       std::function<bool()> leading = {}) {
    SchedulerOptions options;
    options.now_ms = [this] { return now_ms_; };
    options.leading = std::move(leading);
    options.lead_check = milliseconds(20);
    options.grace = std::chrono::minutes(30);
    options.log = [logs](std::string_view line) {
      if (logs) logs->emplace_back(line);
    };
    Scheduler scheduler(*store_, *queue_, {}, std::move(options));
    asio::cancellation_signal stop;
    bool ended = false;
    asio::co_spawn(io_, scheduler.Run(),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e) {
                     EXPECT_FALSE(e);
                     ended = true;
                   }));
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (scheduler.runs_started() < runs && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(milliseconds(5));
    }
    stop.emit(asio::cancellation_type::terminal);
    while (!ended && std::chrono::steady_clock::now() < deadline + std::chrono::seconds(5)) {
      io_.restart();
      io_.run_for(milliseconds(5));
    }
    EXPECT_TRUE(ended);
    return scheduler.runs_started();
  }

  std::vector<store::Run> Runs() {
    auto page = store_->Read([](store::Reader& r) { return r.ListRuns({}); });
    EXPECT_TRUE(page);
    return page ? page->runs : std::vector<store::Run>{};
  }

  static std::string SpecJson() {
    return R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold","iterations":5})";
  }

  testutil::TempDir dir_;
  // Before the store, so that it goes after it: a store call left outstanding completes into it
  // from the writer's thread until the store's close joins that thread (run_queue_test.cpp).
  asio::io_context io_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<RunQueue> queue_;
  asio::cancellation_signal stop_queue_;
  int64_t now_ms_ = kTwoAm + 5'000;  // 02:00:05
};

TEST_F(SchedulerTest, DueScheduleQueuesOneRunAndARestartDoesNotRepeatIt) {
  const int64_t id = AddSchedule("0 2 * * *", SpecJson(), kTwoAm - 3'600'000);
  EXPECT_EQ(RunScheduler(1, milliseconds(3000)), 1);
  auto runs = Runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].schedule_id, id);
  EXPECT_EQ(runs[0].package, "com.example.app");
  EXPECT_EQ(runs[0].iterations, 5);
  auto schedule = store_->Read([&](store::Reader& r) { return r.GetSchedule(id); });
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule->last_fired_at, kTwoAm);  // the firing it stands for, not `now`

  // The daemon restarts a minute later: the 02:00 firing is recorded, nothing is due.
  now_ms_ += 60'000;
  EXPECT_EQ(RunScheduler(1, milliseconds(300)), 0);
  EXPECT_EQ(Runs().size(), 1u);

  // The next night fires again.
  now_ms_ = kTwoAm + 86'400'000 + 1'000;
  EXPECT_EQ(RunScheduler(1, milliseconds(3000)), 1);
  EXPECT_EQ(Runs().size(), 2u);
}

// Several daemons on one database (issue 17 §2): only the one doing the lab's chores fires; the
// others look again every lead_check and fire once the chores are theirs.
TEST_F(SchedulerTest, OnlyTheDaemonDoingTheLabsChoresFiresASchedule) {
  const int64_t id = AddSchedule("0 2 * * *", SpecJson(), kTwoAm - 3'600'000);
  EXPECT_EQ(RunScheduler(1, milliseconds(300), nullptr, [] { return false; }), 0);
  EXPECT_TRUE(Runs().empty());
  auto schedule = store_->Read([&](store::Reader& r) { return r.GetSchedule(id); });
  ASSERT_TRUE(schedule);
  EXPECT_FALSE(schedule->last_fired_at) << "not fired, not recorded: the leader's to fire";

  int asked = 0;
  EXPECT_EQ(RunScheduler(1, milliseconds(3000), nullptr, [&] { return ++asked > 3; }), 1);
  EXPECT_GT(asked, 3) << "it looked again until the chores were its own";
  EXPECT_EQ(Runs().size(), 1u);
}

// A partition (issue 17 §2): the daemon that did the lab's chores lost its database lock but
// has not seen it yet, and another took the chores over: both fire the same 02:00. Both read
// the schedules before either records the firing (their reads are in flight together); the
// store records a firing once, so one run is queued and the other daemon says why it queued
// none.
TEST_F(SchedulerTest, TwoDaemonsThatBothThinkTheyDoTheChoresQueueAFiringOnce) {
  AddSchedule("0 2 * * *", SpecJson(), kTwoAm - 3'600'000);
  std::vector<std::string> logs;
  auto options = [&] {
    SchedulerOptions o;
    o.now_ms = [this] { return now_ms_; };
    o.leading = [] { return true; };
    o.grace = std::chrono::minutes(30);
    o.log = [&logs](std::string_view line) { logs.emplace_back(line); };
    return o;
  };
  Scheduler old_leader(*store_, *queue_, {}, options());
  Scheduler new_leader(*store_, *queue_, {}, options());
  asio::cancellation_signal stop_old, stop_new;
  int ended = 0;
  auto on_end = [&](std::exception_ptr e) {
    EXPECT_FALSE(e);
    ++ended;
  };
  asio::co_spawn(io_, old_leader.Run(), asio::bind_cancellation_slot(stop_old.slot(), on_end));
  asio::co_spawn(io_, new_leader.Run(), asio::bind_cancellation_slot(stop_new.slot(), on_end));
  // Generous: on a loaded machine (tests run four at a time) this once took over 3 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // Until both have looked (a run queued, and the other's refusal logged), then a little more.
  auto both_looked = [&] {
    return old_leader.runs_started() + new_leader.runs_started() >= 1 &&
           std::any_of(logs.begin(), logs.end(), [](const std::string& l) {
             return l.find("fired by another daemon") != std::string::npos;
           });
  };
  while (!both_looked() && std::chrono::steady_clock::now() < deadline) {
    io_.restart();
    io_.run_for(milliseconds(5));
  }
  io_.restart();
  io_.run_for(milliseconds(100));
  stop_old.emit(asio::cancellation_type::terminal);
  stop_new.emit(asio::cancellation_type::terminal);
  while (ended < 2 && std::chrono::steady_clock::now() < deadline + std::chrono::seconds(5)) {
    io_.restart();
    io_.run_for(milliseconds(5));
  }
  EXPECT_EQ(old_leader.runs_started() + new_leader.runs_started(), 1);
  EXPECT_EQ(Runs().size(), 1u);
  EXPECT_TRUE(both_looked()) << ::testing::PrintToString(logs);
}

TEST_F(SchedulerTest, FiringMissedBeyondTheGraceIsSkippedAndRecorded) {
  const int64_t id = AddSchedule("0 2 * * *", SpecJson(), kTwoAm - 3'600'000);
  now_ms_ = kTwoAm + 2 * 3'600'000;  // 04:00, grace 30 min
  std::vector<std::string> logs;
  EXPECT_EQ(RunScheduler(1, milliseconds(300), &logs), 0);
  EXPECT_TRUE(Runs().empty());
  auto schedule = store_->Read([&](store::Reader& r) { return r.GetSchedule(id); });
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule->last_fired_at, kTwoAm);
  bool said = false;
  for (const auto& line : logs) said = said || line.find("skipped") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(SchedulerTest, ABrokenStoredSpecIsLeftAloneAndOthersFire) {
  AddSchedule("0 2 * * *", R"({"serial":"R58M123ABC","package":"com.x;reboot","mode":"cold","iterations":5})",
              kTwoAm - 3'600'000);
  const int64_t good = AddSchedule("0 2 * * *", SpecJson(), kTwoAm - 3'600'000);
  std::vector<std::string> logs;
  EXPECT_EQ(RunScheduler(1, milliseconds(3000), &logs), 1);
  auto runs = Runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].schedule_id, good);
  bool said = false;
  for (const auto& line : logs) said = said || line.find("package") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace droidlab::orchestrator
