// A fresh history database for a test: the real store (store/) on a file in the test's temporary
// folder — or, in a test binary built with DROIDLAB_TEST_STORE_POSTGRES (droidlab_store_pg_test:
// the store suite compiled a second time), on a fresh database of the binary's real PostgreSQL
// server (pg_server.h), so one suite checks both backends. Header-only, so only the tests that
// link droidlab_store include it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "store/store.h"
#include "tests/common/temp_dir.h"
#ifdef DROIDLAB_TEST_STORE_POSTGRES
#include "tests/common/pg_server.h"
#endif

namespace droidlab::testutil {

#ifdef DROIDLAB_TEST_STORE_POSTGRES
inline constexpr bool kTestStoreIsPostgres = true;
#else
inline constexpr bool kTestStoreIsPostgres = false;
#endif

// In a test of SQLite's own machinery (its files, PRAGMAs, query plans, online backup): skipped,
// saying why, when the suite runs against PostgreSQL.
#define DROIDLAB_SQLITE_ONLY(why)                                  \
  do {                                                             \
    if (::droidlab::testutil::kTestStoreIsPostgres) GTEST_SKIP() << (why); \
  } while (false)

// Where the test's store dir/name lives: the file, or the URL of the database made for that file
// name the first time it is asked (a test that reopens its store finds its rows again).
inline std::string TestStoreLocation(const TempDir& dir, const std::string& name = "droidlab.db") {
  const std::string file = dir.File(name);
#ifdef DROIDLAB_TEST_STORE_POSTGRES
  static std::mutex mu;
  static std::map<std::string, std::string> urls;
  std::lock_guard lock(mu);
  auto [at, added] = urls.try_emplace(file);
  if (added) {
    at->second = SharedPgServer().CreateDatabase("store");
  }
  return at->second;
#else
  return file;
#endif
}

// The store opened at `location`; null (and a failed expectation naming why) when it does not.
inline std::unique_ptr<store::Store> OpenTestStoreAt(const std::string& location) {
  store::StoreOptions options;
  options.path = location;
  auto opened = store::Store::Open(options);
  EXPECT_TRUE(opened.ok()) << "opening " << options.path << ": " << opened.error().message;
  if (!opened.ok()) return nullptr;
  return std::move(opened).value();
}

// The store opened on dir/name (or its database); null (and a failed expectation naming why)
// when it does not open. Callers ASSERT_TRUE on the result.
inline std::unique_ptr<store::Store> OpenTestStore(const TempDir& dir,
                                                   const std::string& name = "droidlab.db") {
  return OpenTestStoreAt(TestStoreLocation(dir, name));
}

}  // namespace droidlab::testutil
