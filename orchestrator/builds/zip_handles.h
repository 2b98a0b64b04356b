// libzip's handles as unique_ptrs, for the APK readers (apk_reader.cpp, apk_signature.cpp):
// archives opened read-only are discarded (nothing to write back), entries closed.
#pragma once

#include <zip.h>

#include <memory>

namespace droidlab::orchestrator {

struct ZipArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipEntryCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipArchiveCloser>;
using ZipEntry = std::unique_ptr<zip_file_t, ZipEntryCloser>;

}  // namespace droidlab::orchestrator
