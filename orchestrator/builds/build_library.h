// The builds under test the daemon keeps (issue 14 §1): APKs uploaded to POST /api/v1/builds,
// each kept once under its SHA-256 (<dir>/<sha256>.apk) and described in the store by what its
// manifest says, read before any phone sees it (apk_reader.h).
//
// An upload is spooled: its bytes go to <dir>/incoming/ as they arrive, hashed on the way, never
// held whole in memory; Add then reads the manifest, refuses what is not an APK (the file is
// removed: nothing kept), and moves it into place. The same bytes uploaded again are the same
// build. Every file operation (open, write, zip reading, rename, unlink) runs on the library's
// own file thread, never on the caller's io_context thread; the store through its door.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "store/records.h"

namespace droidlab::store {
class Store;
}

namespace droidlab::orchestrator {

class FileThread;  // build_library.cpp: where the library's blocking file calls run

// Where a kept build's APK is: <dir>/<sha256>.apk (the run executor installs it from there).
inline std::string KeptApkPath(const std::string& dir, const std::string& sha256) {
  return dir + "/" + sha256 + ".apk";
}

// Where one file of a build is kept: <dir>/<sha256>.apk, or <dir>/<sha256>.dm for a .dm.
inline std::string KeptFilePath(const std::string& dir, const store::BuildFile& file) {
  return file.kind == "dm" ? dir + "/" + file.sha256 + ".dm" : KeptApkPath(dir, file.sha256);
}

struct BuildError {
  enum class Kind {
    kInvalid,   // not an APK, a manifest that cannot be read: the client's to fix (400)
    kNotFound,  // no such build (404)
    kInUse,     // a queued or running run names it (409)
    kFailed,    // the disk or the store failed (500)
  };
  Kind kind = Kind::kFailed;
  std::string message;
};

template <class T>
using BuildResult = BasicResult<T, BuildError>;

// A request body on disk: where, how long, its SHA-256 (lower-case hex).
struct SpooledFile {
  std::string path;
  int64_t size = 0;
  std::string sha256;
};

struct KeptBuild {
  store::Build build;
  bool created = false;  // false: these bytes were kept already
};

// A buffer an upload's bytes are read into: the caller fills data()[0, capacity()), says how
// much with resize, and hands it to Upload::Write. Never zero-filled: the socket's bytes
// overwrite it, and clearing 256 KiB per chunk (with the page faults of a fresh allocation) cost
// the receiving thread a third of its time.
class UploadBuffer {
 public:
  UploadBuffer() = default;
  explicit UploadBuffer(size_t capacity)
      : bytes_(std::make_unique_for_overwrite<char[]>(capacity)), capacity_(capacity) {}
  char* data() { return bytes_.get(); }
  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void resize(size_t n) { size_ = n <= capacity_ ? n : capacity_; }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

class BuildLibrary {
 public:
  // One body on its way to disk. Destroyed before Finish, its file is removed.
  class Upload {
   public:
    virtual ~Upload() = default;
    // An empty buffer to read the next bytes into, of the size BeginUpload was given: one the
    // upload made before and got back once its bytes were written and hashed, so that an upload
    // holds a few buffers however long it is (at most the writes in flight, plus one).
    virtual UploadBuffer Buffer() = 0;
    // Appends `bytes` (its first size() bytes; it goes back to the upload's buffers once
    // written and hashed); an error (the disk is full) ends the upload.
    virtual boost::asio::awaitable<std::optional<std::string>> Write(UploadBuffer bytes) = 0;
    // How many buffers Buffer has made so far (the rest were reused): the upload's memory.
    virtual size_t buffers_made() const = 0;
    // Closes the file: what was written, hashed.
    virtual boost::asio::awaitable<BasicResult<SpooledFile, std::string>> Finish() = 0;
  };

  // `dir` is created when missing; stale files in <dir>/incoming/ (an upload cut off by a
  // crash) are removed by Open.
  BuildLibrary(store::Store& store, std::string dir);
  ~BuildLibrary();  // joins the file and hash threads
  BuildLibrary(const BuildLibrary&) = delete;
  BuildLibrary& operator=(const BuildLibrary&) = delete;

  // Creates the directories and clears <dir>/incoming/. Blocking: call once at start-up, before
  // the io_context runs. Error: the directory cannot be made or written.
  std::optional<std::string> Open();

  // `buffer_size`: the size of the buffers the upload's Buffer gives (the reads' size).
  boost::asio::awaitable<BasicResult<std::unique_ptr<Upload>, std::string>> BeginUpload(
      size_t buffer_size);
  // Reads the spooled APK's manifest and keeps it (or finds it kept). `file_name`: as the client
  // named it (a bare name; anything with a '/' is dropped).
  boost::asio::awaitable<BuildResult<KeptBuild>> Add(SpooledFile file,
                                                     std::optional<std::string> file_name,
                                                     int64_t now_ms);
  // A multipart/form-data body (`content_type` gives its boundary) spooled to `body`: each part
  // a file of one build — its base APK, split APKs, a .dm named after its APK — read from the
  // spooled file on the file thread (multipart.h), each part written to incoming/ and hashed as
  // it is read (never whole in memory), then each APK's manifest read and the set checked
  // (CheckBuildFiles); nothing is kept unless all of it is. Each file is kept under its own
  // SHA-256; the build's sha256 is that of the set (one APK: the APK's own). The same set
  // uploaded again is the same build. kInvalid for a body, part or set refused, with why.
  boost::asio::awaitable<BuildResult<KeptBuild>> AddMultipart(SpooledFile body,
                                                              std::string content_type,
                                                              int64_t now_ms);
  // The row, then its files no other build keeps; refused (kInUse) while a queued or running
  // run names the build.
  boost::asio::awaitable<BuildResult<bool>> Delete(int64_t build_id);
  // Deletes the builds created before `created_before` (retention, like runs'), those in use
  // excepted; how many.
  boost::asio::awaitable<BuildResult<int64_t>> Prune(int64_t created_before);

  // Where a kept build's base APK is.
  std::string PathOf(const store::Build& build) const;
  const std::string& dir() const { return dir_; }

 private:
  std::unique_ptr<FileThread> impl_;    // every blocking file call, in order
  std::unique_ptr<FileThread> hasher_;  // an upload's SHA-256, beside its writes
  store::Store& store_;
  std::string dir_;
};

}  // namespace droidlab::orchestrator
