// The fixture of the store's per-iteration tables (frames, faults, memory): a store on a real
// file in a temporary folder and runs that have ended, to hang rows on.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "store/store.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"

namespace droidlab::store {

class EndedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testutil::OpenTestStore(dir_);
    ASSERT_TRUE(store_);
  }

  // A run of com.a on s1 created at `created_at` (retention prunes by it), ended as `status`.
  int64_t AddRun(int64_t created_at, const std::string& mode = "cold",
                 RunStatus status = RunStatus::kSucceeded) {
    NewRun run;
    run.spec_json = "{}";
    run.serial = "s1";
    run.package = "com.a";
    run.mode = mode;
    run.iterations = 2;
    run.created_at = created_at;
    auto id = store_->CreateRun(run);
    EXPECT_TRUE(id.ok()) << id.error().message;
    if (!id.ok()) return 0;
    RunStatusUpdate done;
    done.run_id = *id;
    done.status = status;
    EXPECT_TRUE(store_->UpdateRunStatus(done).ok());
    return *id;
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
};

}  // namespace droidlab::store
