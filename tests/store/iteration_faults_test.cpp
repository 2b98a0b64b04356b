// A run's app faults per iteration in the store (schema/0012_iteration_faults.sql), on a real
// file: stored through the batching writer, read back in iteration order (each iteration's in
// the order they came) with every column and the stack's lines, and deleted with their run by
// retention.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "store/reader.h"
#include "store/store.h"
#include "tests/store/ended_run_fixture.h"

namespace droidlab::store {
namespace {

class IterationFaultsTest : public EndedRunTest {
 protected:
  int64_t AddRun(int64_t created_at) {
    return EndedRunTest::AddRun(created_at, "cold", RunStatus::kFailed);
  }

  static IterationFault Crash(int64_t run_id, int64_t iteration, int64_t seq) {
    IterationFault f;
    f.run_id = run_id;
    f.iteration = iteration;
    f.seq = seq;
    f.kind = "crash";
    f.time = "1767323045.678";
    f.at_ms = 81'234 + iteration;
    f.pid = 4321 + iteration;
    f.process_name = "com.a:remote";
    f.reason = "java.lang.IllegalStateException: boom " + std::to_string(iteration);
    f.stack = {"\tat com.a.Main.onResume(Main.java:42)",
               "\tat android.app.Activity.performResume(Activity.java:8135)"};
    return f;
  }

  std::vector<IterationFault> Read(int64_t run_id) {
    auto listed = store_->Read([&](Reader& r) { return r.ListIterationFaults(run_id); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? *listed : std::vector<IterationFault>{};
  }

};

TEST_F(IterationFaultsTest, StoredThroughTheWriterAndReadBackInOrder) {
  const int64_t run = AddRun(1000);
  const int64_t other = AddRun(1001);
  IterationFault anr;
  anr.run_id = run;
  anr.iteration = 1;
  anr.seq = 1;
  anr.kind = "anr";
  anr.time = "1767323050.001";
  anr.process_name = "com.a";
  anr.reason = "Input dispatching timed out (Application does not have a focused window)";
  // at_ms, pid and duration_ms unknown; no stack.
  ASSERT_TRUE(
      store_->AddIterationFaults({Crash(run, 2, 0), anr, Crash(other, 1, 0), Crash(run, 1, 0)})
          .ok());
  ASSERT_TRUE(store_->Flush().ok());

  const auto faults = Read(run);
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].iteration, 1);
  EXPECT_EQ(faults[0].seq, 0);
  EXPECT_EQ(faults[1].iteration, 1);
  EXPECT_EQ(faults[1].seq, 1);
  EXPECT_EQ(faults[2].iteration, 2);

  const IterationFault want = Crash(run, 2, 0);
  const IterationFault& got = faults[2];
  EXPECT_EQ(got.run_id, run);
  EXPECT_EQ(got.kind, "crash");
  EXPECT_EQ(got.time, want.time);
  EXPECT_EQ(got.at_ms, 81'236);
  EXPECT_EQ(got.pid, 4323);
  EXPECT_EQ(got.process_name, "com.a:remote");
  EXPECT_EQ(got.reason, "java.lang.IllegalStateException: boom 2");
  EXPECT_EQ(got.stack, want.stack);
  EXPECT_EQ(got.duration_ms, std::nullopt);

  const IterationFault& got_anr = faults[1];
  EXPECT_EQ(got_anr.kind, "anr");
  EXPECT_EQ(got_anr.reason, anr.reason);
  EXPECT_EQ(got_anr.at_ms, std::nullopt);
  EXPECT_EQ(got_anr.pid, std::nullopt);
  EXPECT_TRUE(got_anr.stack.empty());

  EXPECT_EQ(Read(other).size(), 1u);
  EXPECT_TRUE(Read(999).empty());
}

// A fault found after its iteration was stored (an ANR logged seconds after the launch,
// orchestrator/run/launch_iteration.h): filed under that iteration after its faults, and its
// launch made invalid; a launch that had a reason keeps it. A fault filed under another
// iteration than the call's is refused with nothing written.
TEST_F(IterationFaultsTest, ALateFaultJoinsItsIterationAndMakesItsLaunchInvalid) {
  const int64_t run = AddRun(1000);
  std::vector<Launch> launches(3);
  for (int64_t i = 0; i < 3; ++i) {
    launches[i].run_id = run;
    launches[i].iteration = i + 1;
    launches[i].displayed_ms = 200 + i;
  }
  launches[2].valid = false;
  launches[2].invalid_reason = "no Displayed line";
  ASSERT_TRUE(store_->AddLaunches(launches).ok());
  ASSERT_TRUE(store_->AddIterationFaults({Crash(run, 1, 0)}).ok());

  IterationFault anr = Crash(run, 1, 1);
  anr.kind = "anr";
  anr.reason = "Input dispatching timed out";
  ASSERT_TRUE(store_->AddLateIterationFaults(run, 1, {anr}, "anr: Input dispatching timed out").ok());
  ASSERT_TRUE(store_->AddLateIterationFaults(run, 3, {Crash(run, 3, 0)}, "crash: boom").ok());
  ASSERT_TRUE(store_->AddLateIterationFaults(run, 2, {Crash(run, 3, 1)}, "crash: elsewhere").ok());
  ASSERT_TRUE(store_->Flush().ok());

  const auto faults = Read(run);
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].kind, "crash");
  EXPECT_EQ(faults[1].kind, "anr");
  EXPECT_EQ(faults[1].iteration, 1);
  EXPECT_EQ(faults[1].seq, 1);
  EXPECT_EQ(faults[2].iteration, 3);
  auto listed = store_->Read([&](Reader& r) { return r.ListLaunches(run); });
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_FALSE((*listed)[0].valid);
  EXPECT_EQ((*listed)[0].invalid_reason, "anr: Input dispatching timed out");
  EXPECT_TRUE((*listed)[1].valid);  // the misfiled fault changed nothing
  EXPECT_FALSE((*listed)[2].valid);
  EXPECT_EQ((*listed)[2].invalid_reason, "no Displayed line");
}

TEST_F(IterationFaultsTest, RetentionDeletesARunsFaultsWithIt) {
  const int64_t old_run = AddRun(1000);
  const int64_t new_run = AddRun(5000);
  ASSERT_TRUE(store_->AddIterationFaults({Crash(old_run, 1, 0), Crash(new_run, 1, 0)}).ok());
  ASSERT_TRUE(store_->Flush().ok());
  RetentionPolicy policy;
  policy.max_age = std::chrono::milliseconds(1000);
  policy.now_ms = 5000;
  ASSERT_TRUE(store_->Prune(policy).ok());
  EXPECT_TRUE(Read(old_run).empty());
  EXPECT_EQ(Read(new_run).size(), 1u);
}

}  // namespace
}  // namespace droidlab::store
