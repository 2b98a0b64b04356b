// What the `droidlab parse` tests share: the real binary run on a file of the test's own
// temporary folder (or stdin), as a script runs it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"

namespace droidlab::testutil {

class ParseCommandFixture : public ::testing::Test {
 protected:
  std::string WriteFile(const std::string& name, const std::string& content) {
    WriteFileBytes(dir_.File(name), content);
    return dir_.File(name);
  }

  static ProcessResult Parse(const std::string& kind, const std::string& path,
                             const std::string& stdin_data = "") {
    return RunProcess({DROIDLAB_BINARY, "parse", kind, path}, stdin_data);
  }

  TempDir dir_;
};

}  // namespace droidlab::testutil
