#include "orchestrator/builds/build_library.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>
#include <utility>

#include "orchestrator/builds/apk_reader.h"
#include "orchestrator/builds/multipart.h"
#include "orchestrator/builds/apk_signature.h"
#include "store/async_store.h"
#include "store/store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;
namespace fs = std::filesystem;

// The file thread: every blocking file operation of the library, one at a time, in order.
class FileThread {
 public:
  FileThread() : work_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~FileThread() {
    work_.reset();
    thread_.join();
  }

  // Runs `fn` on the file thread; resumes the caller on its own executor with the result.
  template <class T>
  asio::awaitable<T> Run(std::function<T()> fn) {
    // Tracked: the caller's io_context must not run out of work while the file thread works.
    auto executor =
        asio::prefer(co_await asio::this_coro::executor, asio::execution::outstanding_work.tracked);
    auto initiation = [this, executor, fn = std::move(fn)](auto handler) mutable {
      asio::post(io_, [executor, fn = std::move(fn), handler = std::move(handler)]() mutable {
        T value = fn();
        asio::post(executor, [handler = std::move(handler), value = std::move(value)]() mutable {
          std::move(handler)(std::move(value));
        });
      });
    };
    auto completion = asio::async_initiate<decltype(asio::use_awaitable), void(T)>(
        std::move(initiation), asio::use_awaitable);
    co_return co_await std::move(completion);
  }

  // Runs `fn` on the file thread; nothing waits for it.
  void Post(std::function<void()> fn) { asio::post(io_, std::move(fn)); }

  std::atomic<uint64_t> next_upload{1};

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

namespace {

std::string ErrnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

std::string Hex(const unsigned char* bytes, unsigned n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (unsigned i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

// The bytes of one upload: a file in incoming/ and the SHA-256 of what went in (OpenSSL's EVP).
// The file is written on the file thread and hashed on the hash thread, each in order; Finish
// reads both after every write and hash has come back.
struct SpoolState {
  std::string path;
  int fd = -1;             // the file thread's
  int64_t written = 0;     // the file thread's
  int64_t flushing = 0;    // the file thread's: writeback started up to here (sync_file_range)
  EVP_MD_CTX* sha = nullptr;  // the hash thread's
  int64_t size = 0;           // the hash thread's
  bool finished = false;

  ~SpoolState() {
    if (fd >= 0) ::close(fd);
    if (sha != nullptr) EVP_MD_CTX_free(sha);
    if (!finished && !path.empty()) ::unlink(path.c_str());
  }
};

class SpoolUpload : public BuildLibrary::Upload {
 public:
  SpoolUpload(FileThread& files, FileThread& hasher, std::shared_ptr<SpoolState> state,
              size_t buffer_size)
      : files_(files),
        hasher_(hasher),
        state_(std::move(state)),
        buffer_size_(std::max<size_t>(buffer_size, 1)) {}
  // The file is closed and removed on the file thread, after any write still queued there.
  ~SpoolUpload() override {
    // The last reference dropped there: an unfinished file is closed and unlinked off this thread.
    if (state_) files_.Post([state = std::move(state_)]() mutable { state.reset(); });
  }

  UploadBuffer Buffer() override {
    if (behind_->free.empty()) {
      ++behind_->made;
      return UploadBuffer(buffer_size_);
    }
    UploadBuffer buffer = std::move(behind_->free.back());
    behind_->free.pop_back();
    buffer.resize(0);
    return buffer;
  }

  size_t buffers_made() const override { return behind_->made; }

  // Write-behind: the bytes go to the file thread and to the hash thread, and the caller goes
  // back to its socket at once, at most kWritesInFlight chunks ahead of the slower of the two:
  // receiving, writing and hashing overlap (SHA-256 costs as much CPU as the rest of an upload,
  // so hashing on the thread that writes halved the speed). Both threads read the same buffer,
  // which comes back to the caller's Buffer once both are done with it. A write that failed is
  // said by the next Write (or Finish).
  asio::awaitable<std::optional<std::string>> Write(UploadBuffer bytes) override {
    auto waiting = WaitForWrites(behind_, kWritesInFlight - 1);
    co_await std::move(waiting);
    if (behind_->error) co_return behind_->error;
    ++behind_->in_flight;
    auto executor =
        asio::prefer(co_await asio::this_coro::executor, asio::execution::outstanding_work.tracked);
    auto chunk = std::make_shared<Chunk>();
    chunk->bytes = std::move(bytes);
    // On the caller's thread, once per thread: the second one gives the buffer back. The worker
    // threads only read the buffer, and each is done with it before it posts this.
    // A chunk is in flight until both are done with it: counting each thread's completion
    // instead let a slow disk behind a fast hash hold six buffers, not four.
    auto done = [behind = behind_, chunk](std::optional<std::string> error) {
      if (error && !behind->error) behind->error = std::move(error);
      if (--chunk->users > 0) return;
      --behind->in_flight;
      behind->free.push_back(std::move(chunk->bytes));
      if (behind->wake) behind->wake->cancel();
    };
    files_.Post([state = state_, executor, chunk, done]() {
      std::optional<std::string> error = WriteAll(*state, chunk->bytes.data(), chunk->bytes.size());
      asio::post(executor, [done, error = std::move(error)]() mutable { done(std::move(error)); });
    });
    hasher_.Post([state = state_, executor, chunk, done]() {
      EVP_DigestUpdate(state->sha, chunk->bytes.data(), chunk->bytes.size());
      state->size += static_cast<int64_t>(chunk->bytes.size());
      asio::post(executor, [done]() { done(std::nullopt); });
    });
    co_return std::nullopt;
  }

  asio::awaitable<BasicResult<SpooledFile, std::string>> Finish() override {
    auto draining = WaitForWrites(behind_, 0);
    co_await std::move(draining);
    if (behind_->error) co_return *behind_->error;
    std::shared_ptr<SpoolState> state = state_;
    std::function<BasicResult<SpooledFile, std::string>()> finish =
        [state]() -> BasicResult<SpooledFile, std::string> {
      // On disk before the store says the build exists.
      if (::fsync(state->fd) != 0) return ErrnoText("syncing " + state->path);
      ::close(state->fd);
      state->fd = -1;
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned n = 0;
      EVP_DigestFinal_ex(state->sha, digest, &n);
      state->finished = true;
      return SpooledFile{state->path, state->size, Hex(digest, n)};
    };
    auto finishing = files_.Run(std::move(finish));
    co_return co_await std::move(finishing);
  }

 private:
  static constexpr int kWritesInFlight = 4;
  static constexpr int kPerChunk = 2;  // a write and a hash
  // Writeback is started every this many bytes, so that Finish's fsync waits for the last few
  // megabytes only, not for the whole APK (measured: ~30 ms of a 52 MB upload's ~100 ms).
  static constexpr int64_t kFlushEvery = 8 << 20;

  // The chunks on their way, counted on the caller's thread; each chunk's end wakes the waiter.
  struct WriteBehind {
    int in_flight = 0;
    std::optional<std::string> error;  // the first write that failed
    std::optional<asio::steady_timer> wake;
    std::vector<UploadBuffer> free;  // written and hashed: Buffer's to give again
    size_t made = 0;
  };

  // One Write's bytes, read by the file and the hash thread.
  struct Chunk {
    UploadBuffer bytes;
    int users = kPerChunk;  // the caller's thread's: completions still to come
  };

  // Until at most `most` chunks are in flight (or a write failed).
  static asio::awaitable<void> WaitForWrites(std::shared_ptr<WriteBehind> behind, int most) {
    if (!behind->wake) behind->wake.emplace(co_await asio::this_coro::executor);
    while (behind->in_flight > most && !behind->error) {
      behind->wake->expires_at(asio::steady_timer::time_point::max());
      boost::system::error_code ignored;
      co_await behind->wake->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
  }

  static std::optional<std::string> WriteAll(SpoolState& state, const char* p, size_t size) {
    size_t left = size;
    while (left > 0) {
      const ssize_t n = ::write(state.fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoText("writing " + state.path);
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    state.written += static_cast<int64_t>(size);
    if (state.written - state.flushing >= kFlushEvery) {
      // Only starts the writeback (no wait); a failure here is found by Finish's fsync.
      ::sync_file_range(state.fd, state.flushing, state.written - state.flushing,
                        SYNC_FILE_RANGE_WRITE);
      state.flushing = state.written;
    }
    return std::nullopt;
  }

  FileThread& files_;
  FileThread& hasher_;
  std::shared_ptr<SpoolState> state_;
  size_t buffer_size_;
  std::shared_ptr<WriteBehind> behind_ = std::make_shared<WriteBehind>();
};

std::optional<std::string> BareName(std::optional<std::string> name) {
  if (!name || name->empty() || name->find('/') != std::string::npos || name->size() > 255) {
    return std::nullopt;
  }
  return name;
}

std::string NameForPeople(const std::optional<std::string>& file_name) {
  auto bare = BareName(file_name);
  return bare ? *bare : std::string("the upload");
}

BuildError Failed(std::string message) { return BuildError{BuildError::Kind::kFailed, std::move(message)}; }
BuildError Invalid(std::string message) {
  return BuildError{BuildError::Kind::kInvalid, std::move(message)};
}

std::string Sha256Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr);
  return Hex(digest, n);
}

// One part of a multipart upload, written to incoming/ as it was read.
struct PartFile {
  std::string path;
  std::string name;  // the part's filename, bare
  std::string sha256;
  int64_t size = 0;
  BuildFileFacts facts;
  std::optional<parsers::ApkManifest> manifest;
  std::optional<std::string> signature;  // an APK's signers as dumpsys prints them; unsigned: none
};

void UnlinkParts(const std::vector<PartFile>& parts) {
  for (const PartFile& part : parts) ::unlink(part.path.c_str());
}

// Reads the spooled multipart body at `body` (then removes it) into one file per part under
// `incoming`, each hashed as written; then reads each part: a .dm (by its name) must hold
// primary.prof, anything else is an APK whose manifest is read. Blocking: the file thread only.
// On error nothing is left behind.
BasicResult<std::vector<PartFile>, std::string> SplitParts(const std::string& body,
                                                         const std::string& boundary,
                                                         const std::string& incoming,
                                                         uint64_t upload) {
  std::vector<PartFile> parts;
  std::optional<std::string> error;
  int out = -1;
  EVP_MD_CTX* sha = EVP_MD_CTX_new();
  auto close_part = [&]() {
    if (out >= 0) ::close(out);
    out = -1;
  };
  MultipartReader::Sink sink;
  sink.begin = [&](const MultipartPart& part) {
    if (error) return;
    auto name = BareName(part.filename);
    if (!name) {
      error = "part " + std::to_string(parts.size() + 1) +
              " has no file name (Content-Disposition filename=\"…\", without a '/')";
      return;
    }
    PartFile file;
    file.path = incoming + "/upload-" + std::to_string(::getpid()) + "-" + std::to_string(upload) +
                "-part" + std::to_string(parts.size()) + ".part";
    file.name = *name;
    out = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
      error = ErrnoText("cannot create " + file.path);
      return;
    }
    parts.push_back(std::move(file));
    EVP_DigestInit_ex(sha, EVP_sha256(), nullptr);
  };
  sink.data = [&](std::string_view bytes) {
    if (error || out < 0) return;
    EVP_DigestUpdate(sha, bytes.data(), bytes.size());
    parts.back().size += static_cast<int64_t>(bytes.size());
    while (!bytes.empty()) {
      const ssize_t n = ::write(out, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = ErrnoText("writing " + parts.back().path);
        return;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  };
  sink.end = [&]() {
    if (error || out < 0) return;
    if (::fsync(out) != 0) error = ErrnoText("syncing " + parts.back().path);
    close_part();
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(sha, digest, &n);
    parts.back().sha256 = Hex(digest, n);
  };
  MultipartReader reader(boundary, MultipartLimits{}, std::move(sink));
  const int in = ::open(body.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) error = ErrnoText("cannot open " + body);
  std::vector<char> chunk(256 * 1024);
  while (in >= 0 && !error) {
    const ssize_t n = ::read(in, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = ErrnoText("reading " + body);
    if (n <= 0) break;
    if (auto refused = reader.Feed(std::string_view(chunk.data(), static_cast<size_t>(n)))) {
      if (!error) error = std::move(refused);
    }
  }
  if (!error) error = reader.Finish();
  if (in >= 0) ::close(in);
  ::unlink(body.c_str());
  close_part();
  EVP_MD_CTX_free(sha);
  if (error) {
    UnlinkParts(parts);
    return *error;
  }
  for (PartFile& part : parts) {
    std::optional<std::string> why;
    part.facts.name = part.name;
    if (part.name.size() > 3 && part.name.ends_with(".dm")) {
      part.facts.dex_metadata = true;
      if (auto dm = CheckDexMetadata(part.path); !dm) why = dm.error();
    } else if (auto manifest = ReadApkManifest(part.path); !manifest) {
      why = manifest.error();
    } else {
      part.facts.package = manifest->package;
      part.facts.version_code = manifest->version_code;
      part.facts.split = manifest->split;
      part.manifest = std::move(*manifest);
      if (auto signers = ReadApkSignature(part.path); !signers) {
        why = signers.error();
      } else if (*signers) {
        part.signature = (*signers)->Text();
      }
    }
    if (why) {
      // The reader names the spool's path, which means nothing to the client.
      if (why->starts_with(part.path)) *why = part.name + why->substr(part.path.size());
      UnlinkParts(parts);
      return *why;
    }
  }
  return parts;
}

// The build's files in their order — the base, the splits by name, a .dm — and the build's
// sha256: one file's own, or the SHA-256 of the set's lines "SHA256 KIND WHAT\n" (WHAT: "base",
// the split's name, or for a .dm the APK it goes with), so that the same base with other splits
// or without its .dm is another build.
std::string OrderAndHash(std::vector<PartFile>& parts) {
  auto rank = [](const PartFile& p) { return p.facts.dex_metadata ? 2 : (p.facts.split ? 1 : 0); };
  std::stable_sort(parts.begin(), parts.end(), [&](const PartFile& a, const PartFile& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.facts.split.value_or("") < b.facts.split.value_or("");
  });
  if (parts.size() == 1) return parts.front().sha256;
  std::string lines;
  for (const PartFile& p : parts) {
    std::string what = "base";
    if (p.facts.split) what = *p.facts.split;
    if (p.facts.dex_metadata) {
      for (const PartFile& apk : parts) {
        if (!apk.facts.dex_metadata && apk.name.substr(0, apk.name.rfind('.')) ==
                                           p.name.substr(0, p.name.rfind('.'))) {
          what = apk.facts.split.value_or("base");
        }
      }
    }
    const char* kind = p.facts.dex_metadata ? "dm" : (p.facts.split ? "split" : "base");
    lines += p.sha256 + " " + kind + " " + what + "\n";
  }
  return Sha256Hex(lines);
}

store::BuildFile FileRow(const PartFile& p) {
  store::BuildFile file;
  file.name = p.name;
  file.kind = p.facts.dex_metadata ? "dm" : (p.facts.split ? "split" : "base");
  file.split = p.facts.split;
  file.sha256 = p.sha256;
  file.size = p.size;
  return file;
}

// Moves each part to its kept path (or drops it: those bytes are kept already), then makes the
// renames durable. Blocking: the file thread only.
std::optional<std::string> KeepParts(const std::vector<PartFile>& parts, const std::string& dir) {
  std::optional<std::string> error;
  for (const PartFile& part : parts) {
    const std::string kept = KeptFilePath(dir, FileRow(part));
    if (error || ::access(kept.c_str(), F_OK) == 0) {
      ::unlink(part.path.c_str());
    } else if (::rename(part.path.c_str(), kept.c_str()) != 0) {
      error = ErrnoText("cannot move the upload to " + kept);
      ::unlink(part.path.c_str());
    }
  }
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
  return error;
}

// What an upload is, read before anything is kept: its manifest, and who signed it (an APK whose
// signing block cannot be read is refused: no phone would install it either).
struct ReadApk {
  parsers::ApkManifest manifest;
  std::optional<std::string> signature;  // as dumpsys prints it; nullopt: unsigned
};

BasicResult<ReadApk, std::string> ReadManifestAndSignature(const std::string& path) {
  auto manifest = ReadApkManifest(path);
  if (!manifest) return manifest.error();
  auto signature = ReadApkSignature(path);
  if (!signature) return signature.error();
  ReadApk apk;
  apk.manifest = std::move(*manifest);
  if (*signature) apk.signature = (*signature)->Text();
  return apk;
}

}  // namespace

BuildLibrary::BuildLibrary(store::Store& store, std::string dir)
    : impl_(std::make_unique<FileThread>()),
      hasher_(std::make_unique<FileThread>()),
      store_(store),
      dir_(std::move(dir)) {}

BuildLibrary::~BuildLibrary() = default;

std::optional<std::string> BuildLibrary::Open() {
  std::error_code ec;
  const fs::path incoming = fs::path(dir_) / "incoming";
  fs::create_directories(incoming, ec);
  if (ec) return "cannot create the builds directory " + incoming.string() + ": " + ec.message();
  for (const auto& entry : fs::directory_iterator(incoming, ec)) {
    std::error_code ignored;
    fs::remove(entry.path(), ignored);  // an upload a crash cut off
  }
  if (ec) return "cannot read " + incoming.string() + ": " + ec.message();
  return std::nullopt;
}

std::string BuildLibrary::PathOf(const store::Build& build) const {
  for (const store::BuildFile& file : build.files) {
    if (file.kind == "base") return KeptFilePath(dir_, file);
  }
  return KeptApkPath(dir_, build.sha256);
}

asio::awaitable<BasicResult<std::unique_ptr<BuildLibrary::Upload>, std::string>>
BuildLibrary::BeginUpload(size_t buffer_size) {
  const uint64_t n = impl_->next_upload++;
  const std::string path = (fs::path(dir_) / "incoming" /
                            ("upload-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".part"))
                               .string();
  std::function<BasicResult<std::shared_ptr<SpoolState>, std::string>()> open =
      [path]() -> BasicResult<std::shared_ptr<SpoolState>, std::string> {
    auto state = std::make_shared<SpoolState>();
    state->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (state->fd < 0) return ErrnoText("cannot create " + path);
    state->path = path;
    state->sha = EVP_MD_CTX_new();
    if (state->sha == nullptr || EVP_DigestInit_ex(state->sha, EVP_sha256(), nullptr) != 1) {
      return std::string("SHA-256 is not available (OpenSSL)");
    }
    return state;
  };
  auto opening = impl_->Run(std::move(open));
  auto opened = co_await std::move(opening);
  if (!opened) co_return opened.error();
  std::unique_ptr<Upload> upload =
      std::make_unique<SpoolUpload>(*impl_, *hasher_, std::move(opened).value(), buffer_size);
  co_return upload;
}

asio::awaitable<BuildResult<KeptBuild>> BuildLibrary::Add(SpooledFile file,
                                                         std::optional<std::string> file_name,
                                                         int64_t now_ms) {
  const std::string spooled = file.path;
  std::function<BasicResult<ReadApk, std::string>()> read = [spooled]() {
    auto apk = ReadManifestAndSignature(spooled);
    if (!apk) ::unlink(spooled.c_str());  // refused: nothing kept
    return apk;
  };
  auto reading = impl_->Run(std::move(read));
  auto apk = co_await std::move(reading);
  if (!apk) {
    // The reader names the file it read: the spool's, which means nothing to the client.
    std::string words = apk.error();
    if (words.starts_with(spooled)) words = NameForPeople(file_name) + words.substr(spooled.size());
    co_return BuildError{BuildError::Kind::kInvalid, std::move(words)};
  }
  const parsers::ApkManifest* manifest = &apk->manifest;
  if (manifest->split) {
    std::function<int()> drop_split = [spooled]() { return ::unlink(spooled.c_str()); };
    auto dropping_split = impl_->Run(std::move(drop_split));
    co_await std::move(dropping_split);
    co_return BuildError{BuildError::Kind::kInvalid,
                         "a split APK (split \"" + *manifest->split + "\" of " +
                             manifest->package + ") is not a build by itself: upload the base APK"};
  }

  store::AsyncStore door(store_);
  auto finding = door.GetBuildBySha256(file.sha256);
  auto found = co_await std::move(finding);
  if (found) {
    std::function<int()> drop = [spooled]() { return ::unlink(spooled.c_str()); };
    auto dropping = impl_->Run(std::move(drop));
    co_await std::move(dropping);
    co_return KeptBuild{std::move(found).value(), false};
  }
  if (found.error().code != store::StoreErrorCode::kNotFound) {
    co_return Failed(found.error().message);
  }

  const std::string kept = KeptApkPath(dir_, file.sha256);
  const std::string dir = dir_;
  std::function<std::optional<std::string>()> move = [spooled, kept, dir]() {
    if (::rename(spooled.c_str(), kept.c_str()) != 0) {
      std::optional<std::string> error = ErrnoText("cannot move the upload to " + kept);
      ::unlink(spooled.c_str());
      return error;
    }
    // The rename itself on disk, before the store names the file.
    const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
      ::fsync(d);
      ::close(d);
    }
    return std::optional<std::string>();
  };
  auto moving = impl_->Run(std::move(move));
  std::optional<std::string> moved = co_await std::move(moving);
  if (moved) co_return Failed(*moved);

  store::NewBuild row;
  row.sha256 = file.sha256;
  row.package = manifest->package;
  row.version_code = manifest->version_code;
  row.version_name = manifest->version_name;
  row.min_sdk = manifest->min_sdk;
  if (manifest->target_sdk) row.target_sdk = *manifest->target_sdk;
  row.size = file.size;
  row.file_name = BareName(std::move(file_name));
  row.created_at = now_ms;
  row.signature = apk->signature;
  store::BuildFile base;
  base.name = row.file_name.value_or("base.apk");
  base.kind = "base";
  base.sha256 = row.sha256;
  base.size = row.size;
  row.files.push_back(std::move(base));
  auto adding = door.AddBuild(row);
  auto added = co_await std::move(adding);
  if (!added) co_return Failed("the build is not stored: " + added.error().message);
  store::Build build;
  static_cast<store::NewBuild&>(build) = std::move(row);
  build.id = added->id;
  if (!added->created) {
    // Kept meanwhile by another upload of the same bytes: that row is the build.
    auto again = door.GetBuild(added->id);
    auto existing = co_await std::move(again);
    if (existing) build = std::move(existing).value();
  }
  co_return KeptBuild{std::move(build), added->created};
}

asio::awaitable<BuildResult<bool>> BuildLibrary::Delete(int64_t build_id) {
  store::AsyncStore door(store_);
  auto getting = door.GetBuild(build_id);
  auto build = co_await std::move(getting);
  if (!build) {
    if (build.error().code == store::StoreErrorCode::kNotFound) {
      co_return BuildError{BuildError::Kind::kNotFound, build.error().message};
    }
    co_return Failed(build.error().message);
  }
  auto counting = door.CountRunsUsingBuild(build_id);
  auto users = co_await std::move(counting);
  if (!users) co_return Failed(users.error().message);
  if (*users > 0) {
    co_return BuildError{BuildError::Kind::kInUse,
                         "build " + std::to_string(build_id) + " is used by " +
                             std::to_string(*users) + " queued or running run(s)"};
  }
  auto deleting = door.DeleteBuild(build_id);
  store::Status deleted = co_await std::move(deleting);
  if (!deleted) {
    if (deleted.error().code == store::StoreErrorCode::kNotFound) {
      co_return BuildError{BuildError::Kind::kNotFound, deleted.error().message};
    }
    co_return Failed(deleted.error().message);
  }
  std::vector<std::string> unkept;
  if (build->files.empty()) unkept.push_back(PathOf(*build));
  for (const store::BuildFile& file : build->files) {
    auto counting_others = door.CountBuildsWithFile(file.sha256);
    auto others = co_await std::move(counting_others);
    if (others && *others == 0) unkept.push_back(KeptFilePath(dir_, file));
  }
  std::function<int()> unlink = [unkept]() {
    for (const std::string& path : unkept) ::unlink(path.c_str());
    return 0;
  };
  auto unlinking = impl_->Run(std::move(unlink));
  co_await std::move(unlinking);
  co_return true;
}

asio::awaitable<BuildResult<KeptBuild>> BuildLibrary::AddMultipart(SpooledFile body,
                                                                  std::string content_type,
                                                                  int64_t now_ms) {
  auto boundary = MultipartBoundary(content_type);
  if (!boundary) {
    const std::string spooled = body.path;
    std::function<int()> drop = [spooled]() { return ::unlink(spooled.c_str()); };
    auto dropping = impl_->Run(std::move(drop));
    co_await std::move(dropping);
    co_return Invalid(boundary.error().message);
  }
  const std::string body_path = body.path;
  const std::string incoming = (fs::path(dir_) / "incoming").string();
  const uint64_t upload = impl_->next_upload++;
  const std::string boundary_text = *boundary;
  std::function<BasicResult<std::vector<PartFile>, std::string>()> split = [=]() {
    return SplitParts(body_path, boundary_text, incoming, upload);
  };
  auto splitting = impl_->Run(std::move(split));
  auto split_parts = co_await std::move(splitting);
  if (!split_parts) co_return Invalid(split_parts.error());
  std::vector<PartFile> parts = std::move(split_parts).value();
  std::vector<BuildFileFacts> facts;
  for (const PartFile& part : parts) facts.push_back(part.facts);
  auto checked = CheckBuildFiles(facts);
  if (!checked) {
    std::function<int()> drop_parts = [parts]() {
      UnlinkParts(parts);
      return 0;
    };
    auto dropping_parts = impl_->Run(std::move(drop_parts));
    co_await std::move(dropping_parts);
    co_return Invalid(checked.error());
  }
  const std::string sha256 = OrderAndHash(parts);

  store::AsyncStore door(store_);
  auto finding = door.GetBuildBySha256(sha256);
  auto found = co_await std::move(finding);
  if (found || found.error().code != store::StoreErrorCode::kNotFound) {
    std::function<int()> drop_kept = [parts]() {
      UnlinkParts(parts);
      return 0;
    };
    auto dropping_kept = impl_->Run(std::move(drop_kept));
    co_await std::move(dropping_kept);
    if (!found) co_return Failed(found.error().message);
    co_return KeptBuild{std::move(found).value(), false};
  }
  const std::string dir = dir_;
  std::function<std::optional<std::string>()> keep = [parts, dir]() {
    return KeepParts(parts, dir);
  };
  auto keeping = impl_->Run(std::move(keep));
  std::optional<std::string> kept_error = co_await std::move(keeping);
  if (kept_error) co_return Failed(*kept_error);

  const parsers::ApkManifest& manifest = *parts.front().manifest;
  store::NewBuild row;
  row.sha256 = sha256;
  row.package = manifest.package;
  row.version_code = manifest.version_code;
  row.version_name = manifest.version_name;
  row.min_sdk = manifest.min_sdk;
  if (manifest.target_sdk) row.target_sdk = *manifest.target_sdk;
  for (const PartFile& part : parts) {
    row.size += part.size;
    row.files.push_back(FileRow(part));
  }
  row.file_name = parts.front().name;
  row.created_at = now_ms;
  row.signature = parts.front().signature;  // the base APK's: what dumpsys package shows
  auto adding = door.AddBuild(row);
  auto added = co_await std::move(adding);
  if (!added) co_return Failed("the build is not stored: " + added.error().message);
  auto reading = door.GetBuild(added->id);
  auto stored = co_await std::move(reading);
  if (!stored) co_return Failed(stored.error().message);
  co_return KeptBuild{std::move(stored).value(), added->created};
}

asio::awaitable<BuildResult<int64_t>> BuildLibrary::Prune(int64_t created_before) {
  store::AsyncStore door(store_);
  auto listing = door.ListBuildsCreatedBefore(created_before);
  auto old = co_await std::move(listing);
  if (!old) co_return Failed(old.error().message);
  int64_t deleted = 0;
  for (const store::Build& build : *old) {
    auto deleting = Delete(build.id);
    auto d = co_await std::move(deleting);
    if (d) ++deleted;
  }
  co_return deleted;
}

}  // namespace droidlab::orchestrator
