// What the PostgreSQL store tests ask of a connection: opening one (a failed open fails the test
// and leaves a closed connection) and reading one count.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "store/pg/connection.h"

namespace droidlab::store::pg {

inline Connection Connect(const std::string& url) {
  auto connection = Connection::Open(url);
  EXPECT_TRUE(connection.ok()) << connection.error().message;
  return connection.ok() ? std::move(connection).value() : Connection();
}

// The first column of the first row of `sql` as an integer; -1 (and a failure) when it fails.
inline int64_t Count(Connection& connection, const std::string& sql) {
  auto result = connection.Query(sql, sql);
  EXPECT_TRUE(result.ok()) << result.error().message;
  if (!result.ok()) return -1;
  auto value = result->Int64(0, 0);
  EXPECT_TRUE(value.ok()) << value.error().message;
  return value.ok() ? *value : -1;
}

}  // namespace droidlab::store::pg
