// Real device output kept under tests/data/ (by kind and Android version).
#pragma once

#include <string>
#include <string_view>

namespace droidlab::testutil {

// The whole file tests/data/<relative>, e.g. "logcat/android9_threadtime.txt". A missing file
// fails the calling test (and returns "").
std::string ReadTestData(std::string_view relative);

// The path of tests/data/<relative>, for what takes a file name (certificates, APKs).
std::string TestDataPath(std::string_view relative);

}  // namespace droidlab::testutil
