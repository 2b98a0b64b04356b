#include "adb/client.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>

#include "adb/async_semaphore.h"
#include "adb/protocol.h"
#include "adb/services.h"
#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"
#include "parsers/line_splitter.h"
#include "parsers/pm_install.h"

extern char** environ;  // NOLINT: posix_spawn's environment

namespace droidlab::adb {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr size_t kReadBufferSize = 64 * 1024;

AdbError Cancelled() { return MakeError(AdbErrc::kCancelled, "cancelled"); }

awaitable<bool> IsCancelled() {
  asio::cancellation_state state = co_await asio::this_coro::cancellation_state;
  co_return state.cancelled() != asio::cancellation_type::none;
}

// An I/O error as an AdbError: our own cancellation first, then EOF/reset as the decoder's view
// of where the stream ended, everything else as a lost connection with the system's words.
awaitable<AdbError> IoError(const error_code& ec, AdbError at_eof) {
  // (co_await never inside || or &&: g++ 12 miscompiles it.)
  const bool cancelled = co_await IsCancelled();
  if (cancelled || ec == asio::error::operation_aborted) co_return Cancelled();
  if (ec == asio::error::eof) co_return at_eof;
  at_eof.message += " (" + ec.message() + ")";
  co_return at_eof;
}

// True when the timer expired; false when it was cancelled.
awaitable<bool> WaitUntil(asio::steady_timer& timer) {
  auto [ec] = co_await timer.async_wait(kTuple);
  co_return !ec;
}

// Races `body` against the deadline. The body runs as its own coroutine (so its cancellation
// settings are its own); when the deadline wins, the body is cancelled, which closes its reads,
// and kTimeout is the answer. The caller's cancellation reaches the body through the group.
// For streams and tracking, whose body awaits the caller's sink: whatever the sink waits on is
// cancelled too. Short commands use the cheaper Inline + Watchdog below.
template <class T>
awaitable<Result<T>> WithDeadline(Deadline deadline, awaitable<Result<T>> body) {
  using namespace asio::experimental::awaitable_operators;  // NOLINT(google-build-using-namespace)
  asio::steady_timer timer(co_await asio::this_coro::executor, deadline);
  auto body_or_deadline = std::move(body) || WaitUntil(timer);
  std::variant<Result<T>, bool> outcome = co_await std::move(body_or_deadline);
  if (outcome.index() == 0) co_return std::get<0>(std::move(outcome));
  if (std::get<1>(outcome)) co_return MakeError(AdbErrc::kTimeout, "deadline passed");
  co_return Cancelled();
}

// The deadline of an operation that runs inline in its caller's coroutine (the short commands):
// a timer whose expiry aborts whatever the operation waits on at that moment (Armed), and then
// reads as kTimeout. Cheaper than racing the body against a timer with `||`, which spawns two
// coroutines per command (~15 us of CPU on a loopback `shell echo`, a tenth of the command).
class Watchdog {
  struct State {
    bool expired = false;
    std::function<void()> abort;
  };

 public:
  Watchdog(const asio::any_io_executor& executor, Deadline deadline)
      : deadline_(deadline), state_(std::make_shared<State>()), timer_(executor) {
    if (deadline == kNoDeadline) return;
    timer_.expires_at(deadline);
    timer_.async_wait([state = state_](const error_code& ec) {
      if (ec) return;
      state->expired = true;
      if (state->abort) state->abort();
    });
  }
  ~Watchdog() {
    state_->abort = nullptr;
    timer_.cancel();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  Deadline deadline() const { return deadline_; }
  bool expired() const {
    return state_->expired || (deadline_ != kNoDeadline && Clock::now() >= deadline_);
  }

  // While an Armed lives, expiry calls `abort` (cancel a socket's operations, wake a timer wait).
  class Armed {
   public:
    Armed(Watchdog& watchdog, std::function<void()> abort) : state_(*watchdog.state_) {
      state_.abort = std::move(abort);
    }
    ~Armed() { state_.abort = nullptr; }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    State& state_;
  };

 private:
  Deadline deadline_;
  std::shared_ptr<State> state_;
  asio::steady_timer timer_;
};

// Runs `body(watchdog)` inline in the caller's coroutine under `deadline`. The caller's
// throw_if_cancelled setting is put back afterwards, so cancellation reaches the caller as Asio
// promises; inside, a cancelled wait is a value (kCancelled), and kTimeout once the deadline
// passed.
template <class T, class Body>
awaitable<Result<T>> Inline(Deadline deadline, Body body) {
  const bool throw_if_cancelled = co_await asio::this_coro::throw_if_cancelled();
  co_await asio::this_coro::throw_if_cancelled(false);
  Result<T> result = MakeError(AdbErrc::kCancelled, "cancelled");
  {
    Watchdog watchdog(co_await asio::this_coro::executor, deadline);
    result = co_await body(watchdog);
    if (!result.ok() && result.error().code == AdbErrc::kCancelled && watchdog.expired()) {
      result = MakeError(AdbErrc::kTimeout, "deadline passed");
    }
  }
  co_await asio::this_coro::throw_if_cancelled(throw_if_cancelled);
  co_return result;
}

// One smart socket: a TCP connection to the adb server, and the bytes read but not decoded yet.
// Its reads and writes end early (operation_aborted) when its watchdog expires.
class SmartSocket {
 public:
  SmartSocket(const asio::any_io_executor& executor, Watchdog& watchdog)
      : socket_(executor), watchdog_(watchdog), storage_(new char[kReadBufferSize]) {}

  tcp::socket& socket() { return socket_; }
  Watchdog& watchdog() { return watchdog_; }

  awaitable<Result<void>> Write(std::string_view bytes, std::string_view what) {
    if (watchdog_.expired()) co_return Cancelled();
    // A request is small and goes out on an idle socket, so a non-blocking send nearly always
    // takes it whole: that skips async_write's posted completion and reactor poll, a tenth of
    // the client's own CPU per command. What it does not take goes through async_write.
    const ssize_t sent =
        ::send(socket_.native_handle(), bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent > 0) bytes.remove_prefix(static_cast<size_t>(sent));
    error_code ec;
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      ec = error_code(errno, boost::system::system_category());
    } else if (!bytes.empty()) {
      Watchdog::Armed armed(watchdog_, [this] { socket_.cancel(); });
      auto [write_ec, n] = co_await asio::async_write(socket_, asio::buffer(bytes), kTuple);
      ec = write_ec;
    }
    if (ec) {
      AdbError lost =
          MakeError(AdbErrc::kConnectionLost,
                    "connection to the adb server lost while sending " + std::string(what));
      co_return co_await IoError(ec, std::move(lost));
    }
    co_return Result<void>();
  }

  // Bytes read and not yet consumed; a decoder takes from the front.
  std::string_view& pending() { return pending_; }

  // Reads at least one byte into pending() (which must be empty). Returns the error, or none.
  awaitable<error_code> Fill() {
    const bool cancelled = co_await IsCancelled();
    if (cancelled || watchdog_.expired()) co_return asio::error::operation_aborted;
    Watchdog::Armed armed(watchdog_, [this] { socket_.cancel(); });
    auto [ec, n] =
        co_await socket_.async_read_some(asio::buffer(storage_.get(), kReadBufferSize), kTuple);
    if (ec) co_return ec;
    pending_ = std::string_view(storage_.get(), n);
    co_return error_code();
  }

  // Feeds the decoder until it has a whole frame, reading as needed: never assumes one read is
  // one frame. Errors: the decoder's, or where the stream ended.
  template <class Decoder>
  awaitable<Result<void>> Decode(Decoder& decoder) {
    for (;;) {
      if (!pending_.empty()) {
        const DecodeProgress progress = decoder.Feed(pending_);
        if (progress == DecodeProgress::kDone) co_return Result<void>();
        if (progress == DecodeProgress::kFailed) co_return decoder.error();
      }
      const error_code ec = co_await Fill();
      if (ec) {
        AdbError at_eof = decoder.ErrorAtEof();
        co_return co_await IoError(ec, std::move(at_eof));
      }
    }
  }

 private:
  tcp::socket socket_;
  Watchdog& watchdog_;
  std::unique_ptr<char[]> storage_;  // not zeroed: only ever read into
  std::string_view pending_;
};

// Runs `adb -P PORT start-server` and returns its wait status (or -1 when it cannot start).
// Blocking: called on a helper thread only. Descriptors above 2 are closed in the child, so the
// long-lived server it forks never inherits droidlab's sockets (a listening port held forever).
int RunStartServer(const std::string& adb_path, uint16_t port) {
  std::vector<std::string> argv = {adb_path, "-P", std::to_string(port), "start-server"};
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  // The daemon ignores SIGPIPE (daemon/serve_command.cpp), and an ignored signal stays ignored
  // across exec: the server starts with every signal at its default instead, as from a shell.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigfillset(&defaults);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const bool has_slash = adb_path.find('/') != std::string::npos;
  const int rc = has_slash
                     ? posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ)
                     : posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}


// A local file opened for sending: read in chunks with pread as the socket takes them.
class LocalFile {
 public:
  static Result<LocalFile> Open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return MakeError(AdbErrc::kInvalidArgument,
                       "cannot open '" + path + "': " + std::strerror(errno));
    }
    LocalFile file(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      return MakeError(AdbErrc::kInvalidArgument, "'" + path + "' is not a regular file");
    }
    file.size_ = static_cast<uint64_t>(st.st_size);
    file.mode_ = static_cast<uint32_t>(st.st_mode);
    file.mtime_ = static_cast<uint32_t>(st.st_mtime);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return file;
  }
  LocalFile(LocalFile&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        size_(other.size_),
        mode_(other.mode_),
        mtime_(other.mtime_) {}
  LocalFile& operator=(LocalFile&&) = delete;
  ~LocalFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  uint64_t size() const { return size_; }
  uint32_t mode() const { return mode_; }
  uint32_t mtime() const { return mtime_; }
  // Reads up to `count` bytes at `offset`: the count read (0 at the end), or -1 with errno.
  ssize_t ReadAt(char* out, size_t count, uint64_t offset) const {
    for (;;) {
      const ssize_t n = ::pread(fd_, out, count, static_cast<off_t>(offset));
      if (n >= 0 || errno != EINTR) return n;
    }
  }

 private:
  explicit LocalFile(int fd) : fd_(fd) {}
  int fd_ = -1;
  uint64_t size_ = 0;
  uint32_t mode_ = 0;
  uint32_t mtime_ = 0;
};

// Calls a ProgressCallback at most every kProgressInterval, and once at the end.
class ProgressMeter {
 public:
  static constexpr auto kProgressInterval = std::chrono::milliseconds(250);
  ProgressMeter(const ProgressCallback& callback, uint64_t total)
      : callback_(callback), total_(total), last_(Clock::now()) {}
  // Bytes of the earlier files of a session: Sent() counts from there.
  void StartFileAt(uint64_t base) { base_ = base; }
  void Sent(uint64_t sent_of_file) {
    const uint64_t sent = base_ + sent_of_file;
    if (!callback_ || sent >= total_) return;  // the last call is Finish's
    const Clock::time_point now = Clock::now();
    if (now - last_ < kProgressInterval) return;
    last_ = now;
    callback_(sent, total_);
  }
  void Finish() {
    if (callback_) callback_(total_, total_);
  }

 private:
  const ProgressCallback& callback_;
  uint64_t total_;
  uint64_t base_ = 0;
  Clock::time_point last_;
};

// The most file bytes per socket write on a streamed install (a sync DATA carries at most
// kSyncDataMax); larger writes cost fewer wakeups per MB.
constexpr size_t kStreamChunk = 256 * 1024;

// Where the local file's reads run: a thread of the client's own, so that a slow disk (a cold
// page cache, a network home directory) never stalls the io_context thread. One read at a time
// per transfer; the read's result is posted back to the caller's executor, tracked as work.
class FileReader {
 public:
  FileReader() : work_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~FileReader() {
    work_.reset();
    thread_.join();
  }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // pread of up to `count` bytes at `offset` into `out`: the count (0 at the end) or -errno.
  awaitable<ssize_t> ReadAt(const LocalFile& file, char* out, size_t count, uint64_t offset) {
    auto executor =
        asio::prefer(co_await asio::this_coro::executor, asio::execution::outstanding_work.tracked);
    auto initiation = [this, executor, &file, out, count, offset](auto handler) mutable {
      asio::post(io_, [executor, &file, out, count, offset,
                       handler = std::move(handler)]() mutable {
        ssize_t n = file.ReadAt(out, count, offset);
        if (n < 0) n = -errno;
        asio::post(executor, [handler = std::move(handler), n]() mutable { std::move(handler)(n); });
      });
    };
    auto reading = asio::async_initiate<decltype(asio::use_awaitable), void(ssize_t)>(
        std::move(initiation), asio::use_awaitable);
    co_return co_await std::move(reading);
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace

// One `adb start-server` at a time; everyone who found the server absent waits for it.
struct ServerStart {
  explicit ServerStart(const asio::any_io_executor& executor)
      : done(executor, asio::steady_timer::time_point::max()) {}
  asio::steady_timer done;  // cancelled when the process has ended
  bool finished = false;
  int status = -1;
};

struct Client::Impl {
  Impl(asio::any_io_executor ex, const ClientOptions& opts)
      : executor(std::move(ex)), options(opts) {}

  ~Impl() {
    std::lock_guard lock(threads_mutex);
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
  }

  asio::any_io_executor executor;
  const ClientOptions& options;
  std::vector<tcp::endpoint> endpoints;
  std::map<std::string, std::unique_ptr<AsyncSemaphore>, std::less<>> semaphores;
  std::map<std::string, FeatureSet, std::less<>> features;
  std::shared_ptr<ServerStart> start_in_flight;
  int server_starts = 0;
  std::mutex threads_mutex;
  std::vector<std::thread> threads;
  std::unique_ptr<FileReader> file_reader;  // made by the first transfer

  FileReader& Reader() {
    if (!file_reader) file_reader = std::make_unique<FileReader>();
    return *file_reader;
  }

  AsyncSemaphore& SemaphoreFor(const Serial& serial) {
    auto it = semaphores.find(serial.str());
    if (it == semaphores.end()) {
      it = semaphores
               .emplace(serial.str(), std::make_unique<AsyncSemaphore>(
                                          std::max<size_t>(1, options.max_commands_per_device)))
               .first;
    }
    return *it->second;
  }

  // Starts the server (or joins a start already under way) and waits for the process to end.
  // Returns a note for the error message when it did not go well.
  awaitable<std::string> StartServer(Watchdog& watchdog) {
    std::shared_ptr<ServerStart> start = start_in_flight;
    if (!start || start->finished) {
      start = std::make_shared<ServerStart>(executor);
      start_in_flight = start;
      ++server_starts;
      // The helper thread only waits for the process; its result comes back as a post to our
      // executor, tracked as outstanding work so io_context::run() does not return meanwhile.
      auto tracked = asio::prefer(executor, asio::execution::outstanding_work.tracked);
      std::lock_guard lock(threads_mutex);
      // Every earlier start has finished (one at a time): its thread has posted its result and
      // is returning, so joining it now takes microseconds and keeps no dead threads around.
      for (auto& t : threads) t.join();
      threads.clear();
      threads.emplace_back([start, tracked, path = options.adb_path, port = options.server.port] {
        const int status = RunStartServer(path, port);
        asio::post(tracked, [start, status] {
          start->status = status;
          start->finished = true;
          start->done.cancel();
        });
      });
    }
    // Every waiter (and the one who started it) waits on `done`; a waiter whose deadline passes
    // wakes them all, and the others wait again.
    while (!start->finished) {
      if (watchdog.expired()) break;
      Watchdog::Armed armed(watchdog, [start] { start->done.cancel(); });
      co_await start->done.async_wait(kTuple);
      const bool cancelled = co_await IsCancelled();
      if (cancelled) break;
    }
    if (!start->finished) co_return ", start-server was cancelled";
    if (start->status == -1) co_return ", and '" + options.adb_path + "' could not be run";
    if (!WIFEXITED(start->status) || WEXITSTATUS(start->status) != 0) {
      co_return ", and '" + options.adb_path + " start-server' failed";
    }
    co_return ", even after '" + options.adb_path + " start-server'";
  }

  awaitable<Result<void>> Resolve(Watchdog& watchdog) {
    if (!endpoints.empty()) co_return Result<void>();
    error_code ec;
    const auto literal = asio::ip::make_address(options.server.host, ec);
    if (!ec) {
      endpoints.emplace_back(literal, options.server.port);
      co_return Result<void>();
    }
    tcp::resolver resolver(executor);
    Watchdog::Armed armed(watchdog, [&resolver] { resolver.cancel(); });
    const std::string port = std::to_string(options.server.port);
    auto [rec, results] = co_await resolver.async_resolve(options.server.host, port, kTuple);
    if (rec) {
      if (co_await IsCancelled()) co_return Cancelled();
      co_return MakeError(
          AdbErrc::kServerUnreachable,
          "cannot resolve adb server host '" + options.server.host + "': " + rec.message());
    }
    for (const auto& entry : results) endpoints.push_back(entry.endpoint());
    co_return Result<void>();
  }

  // Connects to the server; when a local server refuses, starts it once and tries again.
  awaitable<Result<void>> Connect(tcp::socket& socket, Watchdog& watchdog) {
    if (auto resolved = co_await Resolve(watchdog); !resolved) co_return resolved;
    std::string note;
    for (int attempt = 0;; ++attempt) {
      error_code last;
      for (const auto& endpoint : endpoints) {
        if (socket.is_open()) socket.close();
        if (watchdog.expired()) co_return Cancelled();
        Watchdog::Armed armed(watchdog, [&socket] { socket.cancel(); });
        auto [ec] = co_await socket.async_connect(endpoint, kTuple);
        // No TCP_NODELAY: every write is one request followed by a wait for its reply, so
        // Nagle never holds one back, and the syscall costs ~2% of a loopback `shell echo`.
        if (!ec) co_return Result<void>();
        // (co_await never inside || or &&: g++ 12 miscompiles it.)
        const bool cancelled = co_await IsCancelled();
        if (cancelled || ec == asio::error::operation_aborted) co_return Cancelled();
        last = ec;
      }
      const bool refused = last == asio::error::connection_refused;
      if (attempt == 0 && refused && options.server.IsLocal() && !options.adb_path.empty()) {
        note = co_await StartServer(watchdog);
        if (co_await IsCancelled()) co_return Cancelled();
        continue;
      }
      co_return MakeError(AdbErrc::kServerUnreachable, "cannot connect to the adb server at " +
                                                           options.server.ToString() + ": " +
                                                           last.message() + note);
    }
  }

  // Connects, switches to the device when `serial` is given, sends `service`, reads the OKAY.
  awaitable<Result<void>> Open(SmartSocket& socket, const Serial* serial, const Service& service) {
    if (auto connected = co_await Connect(socket.socket(), socket.watchdog()); !connected) {
      co_return connected;
    }
    if (serial != nullptr) {
      const Service transport = HostTransport(*serial);
      const std::string transport_request = EncodeRequest(transport);
      if (auto sent = co_await socket.Write(transport_request, transport.str()); !sent) {
        co_return sent;
      }
      StatusDecoder status;
      if (auto ok = co_await socket.Decode(status); !ok) {
        const AdbErrc code = ok.error().code;
        if (code == AdbErrc::kDeviceNotFound || code == AdbErrc::kDeviceOffline ||
            code == AdbErrc::kDeviceUnauthorized) {
          features.erase(serial->str());
        }
        co_return ok;
      }
    }
    const std::string request = EncodeRequest(service);
    if (auto sent = co_await socket.Write(request, service.str()); !sent) {
      co_return sent;
    }
    StatusDecoder status;
    co_return co_await socket.Decode(status);
  }

  // A host query: the request, then OKAY and one length-prefixed string.
  awaitable<Result<std::string>> Query(Service service, Watchdog& watchdog) {
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    if (auto connected = co_await Connect(socket.socket(), watchdog); !connected) {
      co_return connected.error();
    }
    const std::string request = EncodeRequest(service);
    if (auto sent = co_await socket.Write(request, service.str()); !sent) {
      co_return sent.error();
    }
    QueryReplyDecoder reply;
    if (auto ok = co_await socket.Decode(reply); !ok) co_return ok.error();
    co_return reply.TakePayload();
  }

  awaitable<Result<FeatureSet>> DeviceFeatures(const Serial& serial, Watchdog& watchdog) {
    if (auto it = features.find(serial.str()); it != features.end()) co_return it->second;
    Service features_query = HostSerialFeatures(serial);
    auto payload = co_await Query(std::move(features_query), watchdog);
    if (!payload) co_return payload.error();
    FeatureSet set = ParseFeatures(*payload);
    features[serial.str()] = set;
    co_return set;
  }

  // Opens a device service that answers with a few words and closes (reconnect, reboot:), and
  // returns the words. The connection dropping under it is its end, not an error: both services
  // end by taking the transport down. Takes no command slot (Client::ReconnectTransport says why).
  awaitable<Result<std::string>> DeviceServiceToEof(const Serial& serial, Service service,
                                                    Watchdog& watchdog) {
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    if (auto opened = co_await Open(socket, &serial, service); !opened) co_return opened.error();
    std::string words;
    for (;;) {
      std::string_view& pending = socket.pending();
      if (words.size() + pending.size() > 4096) {
        co_return MakeError(AdbErrc::kProtocol, service.str() + " answered over 4096 bytes");
      }
      words.append(pending);
      pending = {};
      const error_code ec = co_await socket.Fill();
      if (ec == asio::error::eof || ec == asio::error::connection_reset) co_return words;
      if (ec) {
        AdbError lost = MakeError(AdbErrc::kConnectionLost, service.str() + " connection lost");
        co_return co_await IoError(ec, std::move(lost));
      }
    }
  }

  // Opens the device's shell with v2 when it has it. Returns whether v2 was used.
  awaitable<Result<bool>> OpenShell(SmartSocket& socket, const Serial& serial,
                                    const ShellCommand& command) {
    auto set = co_await DeviceFeatures(serial, socket.watchdog());
    if (!set) co_return set.error();
    const bool v2 = HasFeature(*set, kFeatureShellV2);
    Result<Service> service = v2 ? ShellV2Raw(command) : ShellV1(command);
    if (!service) co_return service.error();
    if (auto opened = co_await Open(socket, &serial, *service); !opened) co_return opened.error();
    co_return v2;
  }

  awaitable<Result<ShellResult>> ShellBody(const Serial& serial, const ShellCommand& command,
                                           Watchdog& watchdog) {
    AsyncSemaphore::Permit permit = co_await SemaphoreFor(serial).Acquire(watchdog.deadline());
    if (!permit) co_return Cancelled();
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    auto v2 = co_await OpenShell(socket, serial, command);
    if (!v2) co_return v2.error();
    ShellResult result;
    result.shell_v2 = *v2;
    const size_t limit = options.max_shell_output;
    auto over_limit = [&](std::string_view which) {
      return MakeError(AdbErrc::kProtocol, "shell " + std::string(which) + " is over " +
                                               std::to_string(limit) + " bytes");
    };
    if (!*v2) {  // shell v1: everything until EOF is the output
      for (;;) {
        std::string_view& pending = socket.pending();
        if (result.out.size() + pending.size() > limit) co_return over_limit("output");
        result.out.append(pending);
        pending = {};
        const error_code ec = co_await socket.Fill();
        if (ec == asio::error::eof) co_return result;
        if (ec) {
          AdbError lost = MakeError(AdbErrc::kConnectionLost, "shell connection lost");
          co_return co_await IoError(ec, std::move(lost));
        }
      }
    }
    ShellPacketDecoder decoder;
    for (;;) {
      if (auto ok = co_await socket.Decode(decoder); !ok) co_return ok.error();
      ShellPacket packet = decoder.TakePacket();
      switch (packet.id) {
        case ShellPacketId::kStdout:
          if (result.out.size() + packet.data.size() > limit) co_return over_limit("stdout");
          if (result.out.empty()) {
            result.out = std::move(packet.data);
          } else {
            result.out.append(packet.data);
          }
          break;
        case ShellPacketId::kStderr:
          if (result.err.size() + packet.data.size() > limit) co_return over_limit("stderr");
          result.err.append(packet.data);
          break;
        case ShellPacketId::kExit:
          // adbd closes the socket after the exit packet; nothing more to wait for.
          result.exit_code = packet.exit_code();
          co_return result;
        default:
          break;  // ids adb's own client ignores
      }
    }
  }

  awaitable<Result<StreamEnd>> StreamBody(const Serial& serial, const ShellCommand& command,
                                          const ChunkSink& sink) {
    co_await asio::this_coro::throw_if_cancelled(false);
    AsyncSemaphore::Permit permit = co_await SemaphoreFor(serial).Acquire();
    if (!permit) co_return Cancelled();
    // The stream's deadline is the `||` race around this body (a sink may wait on anything).
    const asio::any_io_executor ex = co_await asio::this_coro::executor;
    Watchdog no_deadline(ex, kNoDeadline);
    SmartSocket socket(ex, no_deadline);
    auto v2 = co_await OpenShell(socket, serial, command);
    if (!v2) co_return v2.error();
    StreamEnd end;
    if (!*v2) {
      for (;;) {
        std::string_view& pending = socket.pending();
        if (!pending.empty()) {
          const std::string_view chunk = pending;
          pending = {};
          end.bytes += chunk.size();
          if (!co_await sink(chunk)) {
            end.stopped_by_sink = true;
            co_return end;
          }
        }
        const error_code ec = co_await socket.Fill();
        if (ec == asio::error::eof) co_return end;
        if (ec) {
          AdbError lost = MakeError(AdbErrc::kConnectionLost, "shell stream connection lost");
          co_return co_await IoError(ec, std::move(lost));
        }
      }
    }
    ShellPacketDecoder decoder;
    for (;;) {
      if (auto ok = co_await socket.Decode(decoder); !ok) co_return ok.error();
      const ShellPacket& packet = decoder.packet();
      switch (packet.id) {
        case ShellPacketId::kStdout:
          end.bytes += packet.data.size();
          if (!co_await sink(packet.data)) {
            end.stopped_by_sink = true;
            co_return end;
          }
          break;
        case ShellPacketId::kStderr:
          if (end.err.size() + packet.data.size() <= options.max_shell_output) {
            end.err.append(packet.data);
          }
          break;
        case ShellPacketId::kExit:
          end.exit_code = packet.exit_code();
          co_return end;
        default:
          break;
      }
    }
  }

  // Sends the file's bytes on an opened socket: raw (a streamed install) or in sync DATA
  // messages. Checks for cancellation between chunks: a fast device never leaves a write
  // pending for the cancellation to abort.
  awaitable<Result<uint64_t>> SendFileBytes(SmartSocket& socket, const LocalFile& file,
                                            bool sync_framing, ProgressMeter& meter) {
    const size_t chunk = sync_framing ? kSyncDataMax : kStreamChunk;
    std::unique_ptr<char[]> buffer(new char[kSyncHeaderSize + chunk]);
    char* const data = buffer.get() + kSyncHeaderSize;
    uint64_t sent = 0;
    while (sent < file.size()) {
      const bool cancelled = co_await IsCancelled();
      if (cancelled) co_return Cancelled();
      const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, file.size() - sent));
      auto reading = Reader().ReadAt(file, data, want, sent);
      const ssize_t n = co_await std::move(reading);
      if (n == 0) {
        co_return MakeError(AdbErrc::kInvalidArgument, "the local file shrank while being sent");
      }
      if (n < 0) {
        std::string why = "cannot read the local file: ";
        why += std::strerror(static_cast<int>(-n));
        co_return MakeError(AdbErrc::kInvalidArgument, std::move(why));
      }
      const size_t got = static_cast<size_t>(n);
      std::string_view bytes(data, got);
      if (sync_framing) {
        WriteSyncDataHeader(buffer.get(), got);
        bytes = std::string_view(buffer.get(), kSyncHeaderSize + got);
      }
      auto written = co_await socket.Write(bytes, "the file");
      if (!written) co_return written.error();
      sent += got;
      meter.Sent(sent);
    }
    co_return sent;
  }

  // Reads what the device prints until it closes the stream (an install's answer).
  awaitable<Result<std::string>> ReadToEof(SmartSocket& socket) {
    std::string out;
    for (;;) {
      std::string_view& pending = socket.pending();
      if (out.size() + pending.size() > options.max_shell_output) {
        co_return MakeError(AdbErrc::kProtocol, "install answer is over " +
                                                    std::to_string(options.max_shell_output) +
                                                    " bytes");
      }
      out.append(pending);
      pending = {};
      const error_code ec = co_await socket.Fill();
      if (ec == asio::error::eof) co_return out;
      if (ec) {
        AdbError lost = MakeError(AdbErrc::kConnectionLost, "install connection lost");
        co_return co_await IoError(ec, std::move(lost));
      }
    }
  }

  // SEND, the DATA, DONE, the device's status, QUIT: one file over sync:.
  awaitable<Result<uint64_t>> PushBody(const Serial& serial, const LocalFile& file,
                                       const std::string& remote_path, ProgressMeter& meter,
                                       Watchdog& watchdog) {
    auto send = EncodeSyncSend(remote_path, file.mode());
    if (!send) co_return send.error();
    AsyncSemaphore::Permit permit = co_await SemaphoreFor(serial).Acquire(watchdog.deadline());
    if (!permit) co_return Cancelled();
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    const Service sync = Sync();
    if (auto opened = co_await Open(socket, &serial, sync); !opened) co_return opened.error();
    if (auto sent = co_await socket.Write(*send, "sync SEND"); !sent) co_return sent.error();
    auto bytes = co_await SendFileBytes(socket, file, true, meter);
    if (bytes) {
      const std::string done = EncodeSyncDone(file.mtime());
      auto sent_done = co_await socket.Write(done, "sync DONE");
      if (!sent_done) bytes = sent_done.error();
    }
    SyncStatusDecoder status;
    if (!bytes) {
      // adbd answers FAIL and closes as soon as it cannot write the file; our writes then fail.
      // Its FAIL says why better than a reset does.
      if (bytes.error().code != AdbErrc::kConnectionLost) co_return bytes.error();
      auto early = co_await socket.Decode(status);
      if (!early && early.error().code == AdbErrc::kRejected) co_return early.error();
      co_return bytes.error();
    }
    if (auto ok = co_await socket.Decode(status); !ok) co_return ok.error();
    const std::string quit = EncodeSyncQuit();
    auto quit_sent = co_await socket.Write(quit, "sync QUIT");
    (void)quit_sent;  // the file is there whatever QUIT meets
    co_return *bytes;
  }

  // The device's answer to an install, read by parsers/pm_install.h.
  static Result<InstallResult> ReadInstallAnswer(InstallMethod method, uint64_t bytes,
                                                 std::string output) {
    auto outcome = parsers::ParsePmInstallOutput(output);
    if (!outcome) {
      return MakeError(output.empty() ? AdbErrc::kConnectionLost : AdbErrc::kProtocol,
                       output.empty() ? std::string("the device closed the install with no answer")
                                      : "the device's install answer is none: '" + output + "'");
    }
    InstallResult result;
    result.method = method;
    result.success = outcome->success;
    result.code = outcome->code;
    result.reason = outcome->reason;
    result.advice = std::string(parsers::InstallFailureAdvice(outcome->code));
    result.output = std::move(output);
    result.bytes = bytes;
    return result;
  }

  awaitable<Result<InstallResult>> LegacyInstall(const Serial& serial, const LocalFile& file,
                                                 const std::string& local_path,
                                                 const InstallOptions& install_options,
                                                 ProgressMeter& meter, Watchdog& watchdog) {
    auto remote = LegacyInstallPath(local_path);
    if (!remote) co_return remote.error();
    std::vector<std::string> pm_argv = {"pm", "install"};
    for (std::string& flag : InstallFlags(install_options)) pm_argv.push_back(std::move(flag));
    pm_argv.push_back(*remote);
    auto pm_install = BuildShellCommand(pm_argv);
    if (!pm_install) co_return pm_install.error();
    const std::vector<std::string> rm_argv = {"rm", "-f", *remote};
    auto rm = BuildShellCommand(rm_argv);
    if (!rm) co_return rm.error();
    auto pushed = co_await PushBody(serial, file, *remote, meter, watchdog);
    if (!pushed) co_return pushed.error();
    meter.Finish();
    auto answer = co_await ShellBody(serial, *pm_install, watchdog);
    // The temporary copy goes whatever pm said (install_app_legacy's delete_device_file).
    auto removed = co_await ShellBody(serial, *rm, watchdog);
    if (!answer) co_return answer.error();
    (void)removed;
    co_return ReadInstallAnswer(InstallMethod::kPushThenPmInstall, *pushed,
                                answer->out + answer->err);
  }

  awaitable<Result<InstallResult>> InstallBody(const Serial& serial, const std::string& local_path,
                                               const InstallOptions& install_options,
                                               const ProgressCallback& progress,
                                               Watchdog& watchdog) {
    auto file = LocalFile::Open(local_path);
    if (!file) co_return file.error();
    ProgressMeter meter(progress, file->size());
    auto device_features = co_await DeviceFeatures(serial, watchdog);
    if (!device_features) co_return device_features.error();
    const InstallMethod method = install_options.method.value_or(
        ChooseInstallMethod(*device_features, install_options.sdk));
    if (method == InstallMethod::kPushThenPmInstall) {
      co_return co_await LegacyInstall(serial, *file, local_path, install_options, meter,
                                       watchdog);
    }
    const std::vector<std::string> flags = InstallFlags(install_options);
    Result<Service> service = MakeError(AdbErrc::kInvalidArgument, "no install service");
    if (method == InstallMethod::kAbbExec) {
      service = AbbExecPackageInstall(flags, file->size());
    } else {
      service = ExecCmdPackageInstall(flags, file->size());
    }
    if (!service) co_return service.error();
    AsyncSemaphore::Permit permit = co_await SemaphoreFor(serial).Acquire(watchdog.deadline());
    if (!permit) co_return Cancelled();
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    if (auto opened = co_await Open(socket, &serial, *service); !opened) co_return opened.error();
    auto bytes = co_await SendFileBytes(socket, *file, false, meter);
    if (!bytes) co_return bytes.error();
    meter.Finish();
    auto output = co_await ReadToEof(socket);
    if (!output) co_return output.error();
    co_return ReadInstallAnswer(method, *bytes, std::move(*output));
  }

  // One step of an install session (install_plan.h), the package manager's `args`: a shell
  // `pm ARGS` on the push way, else exec:cmd package / abb_exec:package with `file`'s bytes
  // streamed after the OKAY when given. Returns what the device printed.
  awaitable<Result<std::string>> SessionStep(const Serial& serial, InstallMethod method,
                                             const std::vector<std::string>& args,
                                             const LocalFile* file, ProgressMeter* meter,
                                             Watchdog& watchdog) {
    if (method == InstallMethod::kPushThenPmInstall) {
      std::vector<std::string> argv = {"pm"};
      argv.insert(argv.end(), args.begin(), args.end());
      auto command = BuildShellCommand(argv);
      if (!command) co_return command.error();
      auto answer = co_await ShellBody(serial, *command, watchdog);
      if (!answer) co_return answer.error();
      co_return answer->out + answer->err;
    }
    Result<Service> service = MakeError(AdbErrc::kInvalidArgument, "no session service");
    if (method == InstallMethod::kAbbExec) {
      service = AbbExecPackage(args);
    } else {
      service = ExecCmdPackage(args);
    }
    if (!service) co_return service.error();
    AsyncSemaphore::Permit permit = co_await SemaphoreFor(serial).Acquire(watchdog.deadline());
    if (!permit) co_return Cancelled();
    SmartSocket socket(co_await asio::this_coro::executor, watchdog);
    if (auto opened = co_await Open(socket, &serial, *service); !opened) co_return opened.error();
    if (file != nullptr) {
      auto bytes = co_await SendFileBytes(socket, *file, false, *meter);
      if (!bytes) co_return bytes.error();
    }
    co_return co_await ReadToEof(socket);
  }

  // After a session step failed: install-abandon, and the pushed copies removed. Runs even when
  // the caller cancelled or the deadline passed (the coroutine's cancellation state is reset; a
  // watchdog of its own bounds it), since a session left open holds staged files on the phone.
  awaitable<void> CleanUpSession(const Serial& serial, InstallMethod method,
                                 std::optional<int64_t> abandon,
                                 const std::vector<std::string>& pushed) {
    co_await asio::this_coro::reset_cancellation_state();
    Watchdog watchdog(executor, DeadlineAfter(Client::kSessionCleanupTimeout));
    if (abandon) {
      const std::vector<std::string> args = InstallAbandonArgs(*abandon);
      auto abandoned = co_await SessionStep(serial, method, args, nullptr, nullptr, watchdog);
      (void)abandoned;  // nothing more to do: the package manager expires stale sessions
    }
    if (!pushed.empty()) {
      std::vector<std::string> rm_argv = {"rm", "-f"};
      rm_argv.insert(rm_argv.end(), pushed.begin(), pushed.end());
      auto rm = BuildShellCommand(rm_argv);
      if (!rm) co_return;
      auto removed = co_await ShellBody(serial, *rm, watchdog);
      (void)removed;
    }
  }

  // An answer of a session step that is no answer: the error to report.
  static AdbError NoSessionAnswer(std::string_view step, const std::string& output) {
    if (output.empty()) {
      return MakeError(AdbErrc::kConnectionLost,
                       "the device closed " + std::string(step) + " with no answer");
    }
    return MakeError(AdbErrc::kProtocol, "the device's answer to " + std::string(step) +
                                             " is none: '" + output + "'");
  }

  // A refusal of install-create or install-write as the install's result.
  static InstallResult SessionRefusal(InstallMethod method, const parsers::PmInstallOutcome& outcome,
                                      std::string output, uint64_t bytes,
                                      std::optional<int64_t> session) {
    InstallResult result;
    result.method = method;
    result.code = outcome.code;
    result.reason = outcome.reason;
    result.advice = std::string(parsers::InstallFailureAdvice(outcome.code));
    result.output = std::move(output);
    result.bytes = bytes;
    result.session_id = session;
    return result;
  }

  awaitable<Result<InstallResult>> InstallMultipleBody(const Serial& serial,
                                                       const std::vector<SessionFile>& files,
                                                       const InstallOptions& install_options,
                                                       const ProgressCallback& progress,
                                                       Watchdog& watchdog) {
    if (files.empty()) co_return MakeError(AdbErrc::kInvalidArgument, "install: no file given");
    std::vector<LocalFile> locals;
    uint64_t total = 0;
    for (const SessionFile& file : files) {
      if (auto named = CheckSessionFileName(file.name); !named) co_return named.error();
      auto local = LocalFile::Open(file.local_path);
      if (!local) co_return local.error();
      total += local->size();
      locals.push_back(std::move(*local));
    }
    ProgressMeter meter(progress, total);
    auto device_features = co_await DeviceFeatures(serial, watchdog);
    if (!device_features) co_return device_features.error();
    const InstallMethod method = install_options.method.value_or(
        ChooseInstallMethod(*device_features, install_options.sdk));

    const std::vector<std::string> create_args = InstallCreateArgs(install_options, total);
    auto created = co_await SessionStep(serial, method, create_args, nullptr, nullptr, watchdog);
    if (!created) co_return created.error();
    auto create_outcome = parsers::ParsePmInstallOutput(*created);
    if (!create_outcome) co_return NoSessionAnswer("install-create", *created);
    if (!create_outcome->success) {
      co_return SessionRefusal(method, *create_outcome, std::move(*created), 0, std::nullopt);
    }
    if (!create_outcome->session_id) co_return NoSessionAnswer("install-create", *created);
    const int64_t session = *create_outcome->session_id;

    std::vector<std::string> pushed;
    uint64_t sent = 0;
    std::optional<Result<InstallResult>> failed;
    for (size_t i = 0; i < locals.size() && !failed; ++i) {
      const LocalFile& local = locals[i];
      const std::string& name = files[i].name;
      meter.StartFileAt(sent);
      Result<std::string> written = std::string();
      if (method == InstallMethod::kPushThenPmInstall) {
        const std::string remote = LegacySessionPath(name);
        pushed.push_back(remote);
        auto copied = co_await PushBody(serial, local, remote, meter, watchdog);
        if (!copied) {
          written = copied.error();
        } else {
          const std::vector<std::string> args =
              InstallWriteArgs(session, local.size(), name, remote);
          written = co_await SessionStep(serial, method, args, nullptr, nullptr, watchdog);
        }
      } else {
        const std::vector<std::string> args = InstallWriteArgs(session, local.size(), name, "-");
        written = co_await SessionStep(serial, method, args, &local, &meter, watchdog);
      }
      if (!written) {
        failed = written.error();
        break;
      }
      auto write_outcome = parsers::ParsePmInstallOutput(*written);
      if (!write_outcome) {
        failed = NoSessionAnswer("install-write", *written);
      } else if (!write_outcome->success) {
        failed = SessionRefusal(method, *write_outcome, std::move(*written), sent, session);
      }
      sent += local.size();
    }
    if (failed) {
      co_await CleanUpSession(serial, method, session, pushed);
      co_return std::move(*failed);
    }
    meter.Finish();
    const std::vector<std::string> commit_args = InstallCommitArgs(session);
    auto committed = co_await SessionStep(serial, method, commit_args, nullptr, nullptr, watchdog);
    if (!committed) {
      co_await CleanUpSession(serial, method, session, pushed);
      co_return committed.error();
    }
    if (!pushed.empty()) co_await CleanUpSession(serial, method, std::nullopt, pushed);
    auto result = ReadInstallAnswer(method, sent, std::move(*committed));
    if (result) result->session_id = session;
    co_return result;
  }

  awaitable<Result<uint64_t>> PushFile(const Serial& serial, const std::string& local_path,
                                       const std::string& remote_path,
                                       const ProgressCallback& progress, Watchdog& watchdog) {
    auto file = LocalFile::Open(local_path);
    if (!file) co_return file.error();
    ProgressMeter meter(progress, file->size());
    auto pushed = co_await PushBody(serial, *file, remote_path, meter, watchdog);
    if (pushed) meter.Finish();
    co_return pushed;
  }

  awaitable<Result<void>> OpenTracking(SmartSocket& socket) {
    co_await asio::this_coro::throw_if_cancelled(false);
    const Service track_devices = HostTrackDevicesLong();
    co_return co_await Open(socket, nullptr, track_devices);
  }

  awaitable<Result<void>> TrackBody(const DeviceListSink& sink) {
    co_await asio::this_coro::throw_if_cancelled(false);
    const asio::any_io_executor ex = co_await asio::this_coro::executor;
    std::vector<DeviceEntry> last;
    auto delay = options.reconnect_initial_delay;
    bool loss_reported = false;
    for (;;) {
      if (co_await IsCancelled()) co_return Cancelled();
      Watchdog no_deadline(ex, kNoDeadline);  // OpenTracking's deadline is its `||` race
      SmartSocket socket(ex, no_deadline);
      AdbError error = Cancelled();
      auto open_tracking = OpenTracking(socket);
      Result<void> opened = co_await WithDeadline(DeadlineAfter(options.track_connect_timeout),
                                                  std::move(open_tracking));
      if (opened) {
        error_code ignored;
        socket.socket().set_option(asio::socket_base::keep_alive(true), ignored);
        ProtocolStringDecoder decoder;
        bool first = true;
        for (;;) {
          auto ok = co_await socket.Decode(decoder);
          if (!ok) {
            error = ok.error();
            break;
          }
          DeviceListUpdate update;
          update.first_after_connect = first;
          update.list = ParseDeviceList(decoder.payload());
          update.changes = DiffDeviceLists(last, update.list.devices);
          last = update.list.devices;
          first = false;
          loss_reported = false;
          delay = options.reconnect_initial_delay;
          if (!co_await sink(update)) co_return Result<void>();
        }
      } else {
        error = opened.error();
      }
      const bool cancelled = co_await IsCancelled();
      if (cancelled || error.code == AdbErrc::kCancelled) co_return Cancelled();
      if (!loss_reported) {  // once per outage, not once per attempt
        loss_reported = true;
        DeviceListUpdate lost;
        lost.connected = false;
        lost.error = error;
        if (!co_await sink(lost)) co_return Result<void>();
      }
      asio::steady_timer timer(ex, delay);
      if (!co_await WaitUntil(timer)) co_return Cancelled();
      delay = std::min(delay * 2, options.reconnect_max_delay);
    }
  }
};

Client::Client(asio::any_io_executor executor, ClientOptions options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>(std::move(executor), options_)) {}

Client::~Client() = default;

int Client::server_starts() const { return impl_->server_starts; }

void Client::ForgetFeatures(const Serial& serial) { impl_->features.erase(serial.str()); }

void Client::Observe(std::string_view command, Clock::time_point start, bool ok,
                     const Serial* serial) const {
  const Clock::duration elapsed = Clock::now() - start;
  if (options_.on_command) options_.on_command(command, elapsed, ok);
  if (serial != nullptr && options_.on_device_command) {
    options_.on_device_command(serial->str(), command, elapsed, ok);
  }
}

awaitable<Result<int>> Client::Version(Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto payload = co_await Inline<std::string>(
      deadline, [&](Watchdog& watchdog) { return impl_->Query(HostVersion(), watchdog); });
  Observe("version", start, payload.ok());
  if (!payload) co_return payload.error();
  co_return ParseServerVersion(*payload);
}

awaitable<Result<DeviceList>> Client::Devices(Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto payload = co_await Inline<std::string>(
      deadline, [&](Watchdog& watchdog) { return impl_->Query(HostDevicesLong(), watchdog); });
  Observe("devices", start, payload.ok());
  if (!payload) co_return payload.error();
  co_return ParseDeviceList(*payload);
}

awaitable<Result<FeatureSet>> Client::Features(Deadline deadline) {
  auto payload = co_await Inline<std::string>(
      deadline, [&](Watchdog& watchdog) { return impl_->Query(HostFeatures(), watchdog); });
  if (!payload) co_return payload.error();
  co_return ParseFeatures(*payload);
}

awaitable<Result<FeatureSet>> Client::Features(const Serial& serial, Deadline deadline) {
  impl_->features.erase(serial.str());  // asked explicitly: ask the server, refresh the cache
  const Clock::time_point start = Clock::now();
  auto features = co_await Inline<FeatureSet>(
      deadline, [&](Watchdog& watchdog) { return impl_->DeviceFeatures(serial, watchdog); });
  Observe("features", start, features.ok(), &serial);
  co_return features;
}

awaitable<Result<ShellResult>> Client::Shell(const Serial& serial, const ShellCommand& command,
                                             Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto result = co_await Inline<ShellResult>(
      deadline, [&](Watchdog& watchdog) { return impl_->ShellBody(serial, command, watchdog); });
  Observe("shell", start, result.ok(), &serial);
  co_return result;
}

awaitable<Result<ShellResult>> Client::ShellArgv(const Serial& serial,
                                                 const std::vector<std::string>& argv,
                                                 Deadline deadline) {
  auto command = BuildShellCommand(argv);
  if (!command) co_return command.error();
  const Clock::time_point start = Clock::now();
  auto result = co_await Inline<ShellResult>(
      deadline, [&](Watchdog& watchdog) { return impl_->ShellBody(serial, *command, watchdog); });
  Observe("shell", start, result.ok(), &serial);
  co_return result;
}

awaitable<Result<StreamEnd>> Client::StreamShell(const Serial& serial, const ShellCommand& command,
                                                 ChunkSink sink, Deadline deadline) {
  auto stream = impl_->StreamBody(serial, command, sink);
  co_return co_await WithDeadline(deadline, std::move(stream));
}

awaitable<Result<StreamEnd>> Client::StreamLines(const Serial& serial, const ShellCommand& command,
                                                 LineSink sink, Deadline deadline) {
  // The same splitter every text reader of droidlab uses (standard library only, header-only).
  // Its sink is synchronous, so a chunk's lines are copied out, then awaited one by one: the
  // consumer's back-pressure still holds the next read.
  parsers::LineSplitter splitter;
  std::vector<std::string> lines;
  auto collect = [&lines](std::string_view line) { lines.emplace_back(line); };
  ChunkSink chunks = [&](std::string_view chunk) -> awaitable<bool> {
    splitter.Feed(chunk, collect);
    for (const std::string& line : lines) {
      if (!co_await sink(line)) co_return false;
    }
    lines.clear();
    co_return true;
  };
  auto stream = impl_->StreamBody(serial, command, chunks);
  auto end = co_await WithDeadline(deadline, std::move(stream));
  if (!end) co_return end;
  if (!end->stopped_by_sink) {
    lines.clear();
    splitter.Finish(collect);
    for (const std::string& line : lines) co_await sink(line);
  }
  end->overlong_lines = splitter.overlong_lines();
  co_return end;
}

awaitable<Result<InstallResult>> Client::Install(Serial serial, std::string local_path,
                                                 InstallOptions options, ProgressCallback progress,
                                                 Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto result = co_await Inline<InstallResult>(deadline, [&](Watchdog& watchdog) {
    return impl_->InstallBody(serial, local_path, options, progress, watchdog);
  });
  Observe("install", start, result.ok(), &serial);
  co_return result;
}

awaitable<Result<InstallResult>> Client::InstallMultiple(Serial serial,
                                                         std::vector<SessionFile> files,
                                                         InstallOptions options,
                                                         ProgressCallback progress,
                                                         Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto result = co_await Inline<InstallResult>(deadline, [&](Watchdog& watchdog) {
    return impl_->InstallMultipleBody(serial, files, options, progress, watchdog);
  });
  Observe("install-multiple", start, result.ok(), &serial);
  co_return result;
}

awaitable<Result<uint64_t>> Client::Push(Serial serial, std::string local_path,
                                         std::string remote_path, ProgressCallback progress,
                                         Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto result = co_await Inline<uint64_t>(deadline, [&](Watchdog& watchdog) {
    return impl_->PushFile(serial, local_path, remote_path, progress, watchdog);
  });
  Observe("push", start, result.ok(), &serial);
  co_return result;
}

awaitable<Result<std::string>> Client::ReconnectTransport(const Serial& serial, Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto words = co_await Inline<std::string>(deadline, [&](Watchdog& watchdog) {
    return impl_->Query(HostSerialReconnect(serial), watchdog);
  });
  // The server answers OKAY either way: "reconnecting SERIAL [device]\n", or, when it has no
  // such transport, the words a FAIL would carry ("device 'X' not found"; adb.cpp sends what
  // acquire_one_transport said).
  if (words) {
    while (!words->empty() && words->back() == '\n') words->pop_back();
    if (!words->starts_with("reconnecting ")) words = ClassifyFailText(*words);
  }
  Observe("reconnect", start, words.ok(), &serial);
  co_return words;
}

awaitable<Result<std::string>> Client::Connect(const Serial& address, Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto words = co_await Inline<std::string>(
      deadline, [&](Watchdog& watchdog) { return impl_->Query(HostConnect(address), watchdog); });
  if (words) {
    while (!words->empty() && words->back() == '\n') words->pop_back();
    if (!words->starts_with("connected to ") && !words->starts_with("already connected to ")) {
      words = MakeError(AdbErrc::kRejected, *words);
    }
  }
  Observe("connect", start, words.ok(), &address);
  co_return words;
}

awaitable<Result<std::string>> Client::ReconnectDevice(const Serial& serial, Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto said = co_await Inline<std::string>(deadline, [&](Watchdog& watchdog) {
    return impl_->DeviceServiceToEof(serial, DeviceReconnect(), watchdog);
  });
  Observe("reconnect-device", start, said.ok(), &serial);
  co_return said;
}

awaitable<Result<void>> Client::Reboot(const Serial& serial, Deadline deadline) {
  const Clock::time_point start = Clock::now();
  auto said = co_await Inline<std::string>(deadline, [&](Watchdog& watchdog) {
    return impl_->DeviceServiceToEof(serial, adb::Reboot(), watchdog);
  });
  Observe("reboot", start, said.ok(), &serial);
  if (!said) co_return said.error();
  co_return Result<void>();
}

awaitable<Result<void>> Client::TrackDevices(DeviceListSink sink) {
  auto tracking = impl_->TrackBody(sink);
  co_return co_await WithDeadline(kNoDeadline, std::move(tracking));
}

}  // namespace droidlab::adb
