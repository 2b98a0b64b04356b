#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace droidlab::testutil {

std::string TestDataPath(std::string_view relative) {
  return std::string(DROIDLAB_TEST_DATA_DIR) + "/" + std::string(relative);
}

std::string ReadTestData(std::string_view relative) {
  const std::string path = TestDataPath(relative);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace droidlab::testutil
