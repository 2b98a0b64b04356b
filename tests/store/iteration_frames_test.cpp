// A run's frames per iteration in the store (schema/0011_iteration_frames.sql), on a real file:
// stored through the batching writer, read back in iteration order with every column, and
// deleted with their run by retention.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "store/reader.h"
#include "store/store.h"
#include "tests/store/ended_run_fixture.h"

namespace droidlab::store {
namespace {

class IterationFramesTest : public EndedRunTest {
 protected:
  static IterationFrames Frames(int64_t run_id, int64_t iteration) {
    IterationFrames f;
    f.run_id = run_id;
    f.iteration = iteration;
    f.total_frames = 31 + iteration;
    f.janky_frames = 3;
    f.gfx_p50_ms = 5;
    f.gfx_p90_ms = 13;
    f.gfx_p95_ms = 21;
    f.gfx_p99_ms = std::nullopt;  // a version that prints none
    f.frame_rows = 30;
    f.counted = 29;
    f.refresh_period_ns = 16'666'667;
    f.p50_ms = 6.25;
    f.p90_ms = 14.5;
    f.p95_ms = 22.0;
    f.p99_ms = 41.75;
    f.over_16_7ms = 4;
    f.over_33ms = 2;
    f.over_50ms = 1;
    f.matrix_normal = 2;
    f.matrix_middle = 1;
    f.matrix_high = 0;
    f.matrix_frozen = 0;
    f.dropped_frames = 11;
    f.jank = 1;
    f.big_jank = 0;
    f.columns_json = R"(["Flags","IntendedVsync","FrameCompleted"])";
    f.rows_json = "[[0,100," + std::to_string(200 + iteration) + "]]";
    return f;
  }

  std::vector<IterationFrames> Read(int64_t run_id) {
    auto listed = store_->Read([&](Reader& r) { return r.ListIterationFrames(run_id); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? *listed : std::vector<IterationFrames>{};
  }

};

TEST_F(IterationFramesTest, StoredThroughTheWriterAndReadBackInIterationOrder) {
  const int64_t run = AddRun(1000);
  const int64_t other = AddRun(1001);
  ASSERT_TRUE(store_->AddIterationFrames({Frames(run, 2), Frames(other, 1), Frames(run, 1)}).ok());
  ASSERT_TRUE(store_->Flush().ok());

  const auto frames = Read(run);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].iteration, 1);
  EXPECT_EQ(frames[1].iteration, 2);
  const IterationFrames want = Frames(run, 2);
  const IterationFrames& got = frames[1];
  EXPECT_EQ(got.run_id, run);
  EXPECT_EQ(got.total_frames, want.total_frames);
  EXPECT_EQ(got.janky_frames, 3);
  EXPECT_EQ(got.gfx_p50_ms, 5);
  EXPECT_EQ(got.gfx_p95_ms, 21);
  EXPECT_EQ(got.gfx_p99_ms, std::nullopt);
  EXPECT_EQ(got.frame_rows, 30);
  EXPECT_EQ(got.counted, 29);
  EXPECT_EQ(got.refresh_period_ns, 16'666'667);
  EXPECT_EQ(got.p50_ms, 6.25);
  EXPECT_EQ(got.p99_ms, 41.75);
  EXPECT_EQ(got.over_16_7ms, 4);
  EXPECT_EQ(got.over_33ms, 2);
  EXPECT_EQ(got.over_50ms, 1);
  EXPECT_EQ(got.matrix_normal, 2);
  EXPECT_EQ(got.matrix_middle, 1);
  EXPECT_EQ(got.dropped_frames, 11);
  EXPECT_EQ(got.jank, 1);
  EXPECT_EQ(got.columns_json, want.columns_json);
  EXPECT_EQ(got.rows_json, "[[0,100,202]]");
  EXPECT_EQ(Read(other).size(), 1u);
  EXPECT_TRUE(Read(999).empty());
}

// What summaries and verdicts read: every figure, in iteration order, without the rows.
TEST_F(IterationFramesTest, FiguresAreReadWithoutTheRows) {
  const int64_t run = AddRun(1000);
  ASSERT_TRUE(store_->AddIterationFrames({Frames(run, 2), Frames(run, 1)}).ok());
  ASSERT_TRUE(store_->Flush().ok());
  auto listed = store_->Read([&](Reader& r) { return r.ListIterationFrameFigures(run); });
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  const IterationFrames& got = (*listed)[1];
  EXPECT_EQ((*listed)[0].iteration, 1);
  EXPECT_EQ(got.iteration, 2);
  EXPECT_EQ(got.total_frames, 33);
  EXPECT_EQ(got.janky_frames, 3);
  EXPECT_EQ(got.gfx_p99_ms, std::nullopt);
  EXPECT_EQ(got.p90_ms, 14.5);
  EXPECT_EQ(got.p99_ms, 41.75);
  EXPECT_EQ(got.big_jank, 0);
  EXPECT_EQ(got.jank, 1);
  EXPECT_EQ(got.columns_json, "[]");
  EXPECT_EQ(got.rows_json, "[]");
}

TEST_F(IterationFramesTest, RetentionDeletesARunsFramesWithIt) {
  const int64_t old_run = AddRun(1000);
  const int64_t new_run = AddRun(5000);
  ASSERT_TRUE(store_->AddIterationFrames({Frames(old_run, 1), Frames(new_run, 1)}).ok());
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
