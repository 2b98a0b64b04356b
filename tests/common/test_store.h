// A fresh history database for a test: the real store (store/) on a file in the test's temporary
// folder. Header-only, so only the tests that link droidlab_store include it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/store.h"
#include "tests/common/temp_dir.h"

namespace droidlab::testutil {

// The store opened on dir/name; null (and a failed expectation naming why) when it does not
// open. Callers ASSERT_TRUE on the result.
inline std::unique_ptr<store::Store> OpenTestStore(const TempDir& dir,
                                                   const std::string& name = "droidlab.db") {
  store::StoreOptions options;
  options.path = dir.File(name);
  auto opened = store::Store::Open(options);
  EXPECT_TRUE(opened.ok()) << "opening " << options.path << ": " << opened.error().message;
  if (!opened.ok()) return nullptr;
  return std::move(opened).value();
}

}  // namespace droidlab::testutil
