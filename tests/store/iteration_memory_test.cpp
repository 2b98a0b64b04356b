// A run's memory per iteration in the store (schema/0013_iteration_memory.sql), on a real file:
// stored through the batching writer, read back in iteration order with every column (absent
// values still absent), and deleted with their run by retention.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "store/reader.h"
#include "store/store.h"
#include "tests/store/ended_run_fixture.h"

namespace droidlab::store {
namespace {

class IterationMemoryTest : public EndedRunTest {
 protected:
  // Every column its own value, so that a column bound or read in the wrong place shows.
  int64_t AddRun(int64_t created_at) { return EndedRunTest::AddRun(created_at, "warm"); }

  static IterationMemory Memory(int64_t run_id, int64_t iteration) {
    IterationMemory m;
    m.run_id = run_id;
    m.iteration = iteration;
    m.pid = 4000 + iteration;
    m.total_pss_kb = 60000 + iteration;
    m.total_rss_kb = std::nullopt;  // Android 6-10 print no Rss
    m.total_swap_pss_kb = 401;
    m.java_heap_kb = 12001;
    m.native_heap_kb = 18002;
    m.code_kb = 9003;
    m.stack_kb = 904;
    m.graphics_kb = 6005;
    m.private_other_kb = 3006;
    m.system_kb = 8007;
    m.views = 61;
    m.view_root_impl = 2;
    m.app_contexts = 5;
    m.activities = iteration;
    m.assets = 11;
    m.asset_managers = 3;
    m.local_binders = 17;
    m.proxy_binders = 34;
    m.death_recipients = 4;
    m.webviews = std::nullopt;
    return m;
  }

  std::vector<IterationMemory> Read(int64_t run_id) {
    auto listed = store_->Read([&](Reader& r) { return r.ListIterationMemory(run_id); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? *listed : std::vector<IterationMemory>{};
  }

};

TEST_F(IterationMemoryTest, StoredThroughTheWriterAndReadBackInIterationOrder) {
  const int64_t run = AddRun(1000);
  const int64_t other = AddRun(1001);
  ASSERT_TRUE(store_->AddIterationMemory({Memory(run, 3), Memory(other, 1), Memory(run, 1)}).ok());
  ASSERT_TRUE(store_->Flush().ok());

  const auto memory = Read(run);
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[0].iteration, 1);
  EXPECT_EQ(memory[1].iteration, 3);
  const IterationMemory& got = memory[1];
  EXPECT_EQ(got.run_id, run);
  EXPECT_EQ(got.pid, 4003);
  EXPECT_EQ(got.total_pss_kb, 60003);
  EXPECT_EQ(got.total_rss_kb, std::nullopt);
  EXPECT_EQ(got.total_swap_pss_kb, 401);
  EXPECT_EQ(got.java_heap_kb, 12001);
  EXPECT_EQ(got.native_heap_kb, 18002);
  EXPECT_EQ(got.code_kb, 9003);
  EXPECT_EQ(got.stack_kb, 904);
  EXPECT_EQ(got.graphics_kb, 6005);
  EXPECT_EQ(got.private_other_kb, 3006);
  EXPECT_EQ(got.system_kb, 8007);
  EXPECT_EQ(got.views, 61);
  EXPECT_EQ(got.view_root_impl, 2);
  EXPECT_EQ(got.app_contexts, 5);
  EXPECT_EQ(got.activities, 3);
  EXPECT_EQ(got.assets, 11);
  EXPECT_EQ(got.asset_managers, 3);
  EXPECT_EQ(got.local_binders, 17);
  EXPECT_EQ(got.proxy_binders, 34);
  EXPECT_EQ(got.death_recipients, 4);
  EXPECT_EQ(got.webviews, std::nullopt);
  EXPECT_EQ(memory[0].activities, 1);
  EXPECT_EQ(Read(other).size(), 1u);
  EXPECT_TRUE(Read(999).empty());
}

TEST_F(IterationMemoryTest, RetentionDeletesARunsMemoryWithIt) {
  const int64_t old_run = AddRun(1000);
  const int64_t new_run = AddRun(5000);
  ASSERT_TRUE(store_->AddIterationMemory({Memory(old_run, 1), Memory(new_run, 1)}).ok());
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
