#include "tools/devsim/transport.h"

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>

#include "tools/devsim/android/apk_receiver.h"
#include "tools/devsim/packet.h"
#include "tools/devsim/service_name.h"
#include "tools/devsim/shell_interpreter.h"
#include "tools/devsim/shell_protocol.h"
#include "tools/devsim/sync_service.h"

namespace droidlab::devsim {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

// Every co_spawn gets one: an exception escaping a coroutine is logged, never lost.
auto LogEscapes(std::string what) {
  return [what = std::move(what)](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::cerr << "devsim: " << what << ": " << e.what() << "\n";
    }
  };
}

class Connection;

// `devsim-fault unauthorized MS`: until refuse_until, adbd answers a CNXN with AUTH(TOKEN) and
// accepts no signature — as a phone whose user has not allowed this host's key (adbd's
// handle_packet: a wrong SIGNATURE gets a new TOKEN; an RSAPUBLICKEY puts up the prompt and
// nothing more is sent until the user answers). The host's adb marks such a transport
// `unauthorized` on the first AUTH(TOKEN) (packages/modules/adb adb.cpp, handle_packet).
struct AuthGate {
  std::chrono::steady_clock::time_point refuse_until{};
  bool Refusing() const { return std::chrono::steady_clock::now() < refuse_until; }
};

// packages/modules/adb adb.h: AUTH's arg0.
constexpr std::uint32_t kAuthToken = 1;
constexpr std::uint32_t kAuthSignature = 2;
constexpr std::uint32_t kAuthRsaPublicKey = 3;
constexpr std::size_t kAuthTokenSize = 20;  // TOKEN_SIZE

// One OPENed service on a connection: what the transport hands it.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual void Start() = 0;
  // The host OKAYed our last WRTE.
  virtual void OnOkay() = 0;
  // The host's WRTE. True: OKAY it now (the bytes are taken); false: the device stalls.
  virtual bool OnData(std::string_view data) = 0;
  // The host closed the stream, or the connection went away.
  virtual void Stop() = 0;
};

// The device's output on one stream: bytes queued, sent in WRTEs no larger than the negotiated
// payload with one outstanding until the host's OKAY, then CLSE once finished and drained.
class Outbox {
 public:
  Outbox(Connection& connection, std::uint32_t local_id, std::uint32_t remote_id)
      : connection_(connection), local_id_(local_id), remote_id_(remote_id) {}
  void Add(std::string_view bytes) {
    outbox_ += bytes;
    Pump();
  }
  // Nothing more will be added: CLSE when the rest is out.
  void Finish() {
    finished_ = true;
    Pump();
  }
  void OnOkay() {
    awaiting_okay_ = false;
    Pump();
  }

 private:
  void Pump();

  Connection& connection_;
  std::uint32_t local_id_;
  std::uint32_t remote_id_;
  std::string outbox_;  // bytes not yet sent in a WRTE, from outbox_sent_ on
  std::size_t outbox_sent_ = 0;  // an offset, not erase(0, n): a lagging reader's backlog is
                                 // not copied again for every WRTE
  bool awaiting_okay_ = false;
  bool finished_ = false;  // nothing more will be added to outbox_
  bool closed_ = false;
};

// One OPENed shell service. Output is produced by the interpreter up front (a loop: one iteration
// at a time), then released chunk by chunk at the times the command would print it, one WRTE in
// flight at a time.
class ShellStream : public Stream, public std::enable_shared_from_this<ShellStream> {
 public:
  ShellStream(Connection& connection, std::uint32_t local_id, std::uint32_t remote_id,
              ShellRequest request, SimulatedAndroid& android, asio::any_io_executor executor)
      : out_(connection, local_id, remote_id),
        request_(std::move(request)),
        android_(android),
        timer_(executor) {}
  ~ShellStream() override { Stop(); }

  void Start() override;
  void OnOkay() override { out_.OnOkay(); }
  bool OnData(std::string_view data) override;
  void Stop() override {
    stopped_ = true;
    timer_.cancel();
    if (subscription_ != 0) android_.logcat().Unsubscribe(subscription_);
    subscription_ = 0;
  }

 private:
  void ReleaseChunks();
  void Emit(bool to_stderr, std::string_view data);
  // A followed log line, shown when its time comes: queued by time, equal times in the order
  // they were logged (a crash's lines all bear one time), then every line due is shown in that
  // order. One timer per line would not do: timers due at one instant fire in any order.
  void FollowLine(std::chrono::system_clock::time_point time, std::string line);
  // Shows the queued lines dated up to `until` or now, whichever is later (the steady timer may
  // fire a hair before the system clock reaches its line's time).
  void ReleaseDueLines(std::chrono::system_clock::time_point until);

  Outbox out_;
  ShellRequest request_;
  SimulatedAndroid& android_;
  asio::steady_timer timer_;
  ShellEnvironment environment_;
  CommandOutput output_;
  std::size_t next_chunk_ = 0;
  bool chunk_delay_done_ = false;
  bool stopped_ = false;  // the host closed the stream: a loop runs no further iteration
  std::uint64_t subscription_ = 0;
  std::multimap<std::chrono::system_clock::time_point, std::string> lines_ahead_;
  ShellPacketDecoder stdin_decoder_;
};

// adbd's own services that end by taking the transport down
// (packages/modules/adb/daemon/services.cpp): "reconnect" writes "done" and kicks the transport
// (reconnect_service); "reboot:" runs /system/bin/reboot, which prints nothing: the phone goes down
// under the stream.
class AdbdServiceStream : public Stream {
 public:
  AdbdServiceStream(Connection& connection, std::uint32_t local_id, std::uint32_t remote_id,
                    bool reboot, SimulatedAndroid& android, asio::any_io_executor executor)
      : connection_(connection),
        out_(connection, local_id, remote_id),
        reboot_(reboot),
        android_(android),
        executor_(std::move(executor)) {}

  void Start() override;
  void OnOkay() override { out_.OnOkay(); }
  bool OnData(std::string_view) override { return true; }
  void Stop() override {}

 private:
  Connection& connection_;
  Outbox out_;
  bool reboot_;
  SimulatedAndroid& android_;
  asio::any_io_executor executor_;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::shared_ptr<SimulatedAndroid> android,
             std::shared_ptr<AuthGate> gate)
      : socket_(std::move(socket)), android_(std::move(android)), gate_(std::move(gate)) {}

  static asio::awaitable<void> ReadLoop(std::shared_ptr<Connection> self);

  void Send(const Packet& packet) {
    if (closed_) return;
    queue_.push_back(EncodePacket(packet));
    if (queue_.size() == 1) WriteFront();
  }
  std::uint32_t max_payload() const { return max_payload_; }
  // Unplug: the cable is pulled, the socket goes away with whatever was in flight.
  void Shutdown() { Close(); }
  // The user allowed the host's key: a connection waiting at the prompt gets its CNXN.
  void AuthAllowed() {
    if (awaiting_auth_) Accept();
  }
  // The stream ended: it has sent its CLSE. Deferred so the stream is not destroyed while
  // one of its own member functions is still running.
  void Forget(std::uint32_t local_id) {
    asio::post(socket_.get_executor(),
               [self = shared_from_this(), local_id] { self->streams_.erase(local_id); });
  }

 private:
  void WriteFront() {
    asio::async_write(socket_, asio::buffer(queue_.front()),
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                        // Closed meanwhile (an unplug): a write that had just completed must
                        // not pop what Close left for it.
                        if (ec || self->closed_) {
                          self->Close();
                          return;
                        }
                        self->queue_.pop_front();
                        if (!self->queue_.empty()) self->WriteFront();
                      });
  }
  void Handle(Packet packet);
  void Accept() {
    awaiting_auth_ = false;
    connected_ = true;
    android_->TransportConnected();
    Send(Packet{kCommandCnxn, kVersionSkipChecksum, kMaxPayload, android_->ConnectBanner()});
  }
  void SendAuthToken() {
    std::string token(kAuthTokenSize, '\0');
    for (char& c : token) c = static_cast<char>(std::rand() % 256);
    Send(Packet{kCommandAuth, kAuthToken, 0, std::move(token)});
  }
  // The queue stays: its front is the buffer of a write that may be in flight. It goes with
  // the connection. (Clearing it here let a write completed just before an unplug pop an empty
  // deque: a double free, seen as a devsim that never came back from `devsim-fault unplug`.)
  void Close() {
    closed_ = true;
    boost::system::error_code ignored;
    socket_.close(ignored);
    for (auto& [id, stream] : streams_) stream->Stop();
    streams_.clear();
  }

  tcp::socket socket_;
  std::shared_ptr<SimulatedAndroid> android_;
  std::shared_ptr<AuthGate> gate_;
  bool awaiting_auth_ = false;  // answered CNXN with AUTH; no key accepted yet
  std::deque<std::string> queue_;
  bool closed_ = false;
  std::map<std::uint32_t, std::shared_ptr<Stream>> streams_;
  std::uint32_t next_local_id_ = 1;
  std::uint32_t max_payload_ = kMaxPayload;
  bool connected_ = false;
};

void ShellStream::Start() {
  if (request_.command.empty()) {
    // An interactive shell needs a line editor and a prompt; not simulated yet.
    Emit(true, "devsim: interactive shell is not simulated; pass a command\n");
    output_.exit_code = 1;
  } else {
    android_.ShellServiceStarted();  // adbd forks the shell that runs the command
    output_ = RunShellScript(request_.command, environment_, android_);
  }
  ReleaseChunks();
}

void ShellStream::ReleaseChunks() {
  while (next_chunk_ < output_.chunks.size()) {
    const OutputChunk& chunk = output_.chunks[next_chunk_];
    if (chunk.delay.count() > 0 && !chunk_delay_done_) {
      timer_.expires_after(chunk.delay);
      timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        const auto self = weak.lock();
        if (ec || !self) return;
        self->chunk_delay_done_ = true;
        self->ReleaseChunks();
      });
      return;
    }
    Emit(chunk.to_stderr, chunk.data);
    chunk_delay_done_ = false;
    ++next_chunk_;
  }
  if (output_.next) {
    // A loop's next iteration, run from the executor so that a loop without a sleep cannot
    // starve the other phones; it ends when the host closes the stream (Stop, or the stream
    // destroyed with its connection), as adbd's SIGHUP ends the shell on a phone.
    auto next = std::move(output_.next);
    output_.next = nullptr;
    asio::post(timer_.get_executor(), [weak = weak_from_this(), next = std::move(next)] {
      const auto self = weak.lock();
      if (!self || self->stopped_) return;
      self->output_ = next();
      self->next_chunk_ = 0;
      self->chunk_delay_done_ = false;
      self->ReleaseChunks();
    });
    return;
  }
  if (output_.follow_logcat) {
    LogFilter filter;
    filter.tag_min = output_.follow_filter;
    filter.buffers = output_.follow_buffers;
    const LogFormat format = output_.follow_format == 1 ? LogFormat::kEpoch : LogFormat::kThreadtime;
    subscription_ = android_.logcat().Subscribe(
        std::move(filter), [weak = weak_from_this(), format](const LogEntry& entry) {
          // A line dated ahead (a launch's Displayed) appears when its time comes, as it would.
          if (const auto self = weak.lock())
            self->FollowLine(entry.time, FormatLogLine(entry, format));
        });
    return;  // runs until the host closes the stream
  }
  if (output_.hang) return;  // a hung command: only the host closing the stream ends it
  // A dropped stream ends without an exit status, as when the device goes away mid-command.
  if (request_.shell_protocol && !output_.drop_stream) {
    out_.Add(EncodeShellExit(output_.exit_code));
  }
  out_.Finish();
}

void ShellStream::FollowLine(std::chrono::system_clock::time_point time, std::string line) {
  lines_ahead_.emplace(time, std::move(line));  // after the lines of the same time
  const auto ahead = time - std::chrono::system_clock::now();
  if (ahead <= std::chrono::system_clock::duration::zero()) {
    ReleaseDueLines(time);
    return;
  }
  auto timer = std::make_shared<asio::steady_timer>(
      timer_.get_executor(),
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(ahead));
  timer->async_wait([weak = weak_from_this(), timer, time](boost::system::error_code ec) {
    if (ec) return;
    if (const auto self = weak.lock()) self->ReleaseDueLines(time);
  });
}

void ShellStream::ReleaseDueLines(std::chrono::system_clock::time_point until) {
  until = std::max(until, std::chrono::system_clock::now());
  while (!lines_ahead_.empty() && lines_ahead_.begin()->first <= until) {
    Emit(false, lines_ahead_.begin()->second);
    lines_ahead_.erase(lines_ahead_.begin());
  }
}

void ShellStream::Emit(bool to_stderr, std::string_view data) {
  if (data.empty()) return;
  std::string text(data);
  if (request_.pty) {
    // A pty turns \n into \r\n and has no separate stderr.
    std::string converted;
    for (const char c : text) {
      if (c == '\n') converted.push_back('\r');
      converted.push_back(c);
    }
    text = std::move(converted);
    to_stderr = false;
  }
  if (request_.shell_protocol) {
    // adbd reads the command's output from a pipe, at most 64 KiB per read, and sends each read
    // as one packet; a client may refuse a packet over MAX_PAYLOAD, so never send one.
    constexpr std::size_t kMaxShellPacketData = 64 * 1024;
    const auto id = to_stderr ? ShellPacketId::kStderr : ShellPacketId::kStdout;
    std::string packets;
    for (std::size_t at = 0; at < text.size(); at += kMaxShellPacketData) {
      packets += EncodeShellPacket(id, std::string_view(text).substr(at, kMaxShellPacketData));
    }
    out_.Add(packets);
  } else {
    out_.Add(text);  // shell v1: stdout and stderr arrive mixed, as from a real device
  }
}

void Outbox::Pump() {
  if (awaiting_okay_ || closed_) return;
  if (outbox_sent_ < outbox_.size()) {
    const std::size_t size =
        std::min<std::size_t>(outbox_.size() - outbox_sent_, connection_.max_payload());
    connection_.Send(Packet{kCommandWrte, local_id_, remote_id_, outbox_.substr(outbox_sent_, size)});
    outbox_sent_ += size;
    if (outbox_sent_ == outbox_.size()) {
      outbox_.clear();
      outbox_sent_ = 0;
    } else if (outbox_sent_ >= (1u << 20) && outbox_sent_ * 2 >= outbox_.size()) {
      outbox_.erase(0, outbox_sent_);  // amortised: at most once per half of the backlog
      outbox_sent_ = 0;
    }
    awaiting_okay_ = true;
    return;
  }
  if (finished_) {
    closed_ = true;
    connection_.Send(Packet{kCommandClse, local_id_, remote_id_, {}});
    connection_.Forget(local_id_);
  }
}

void AdbdServiceStream::Start() {
  if (reboot_) {
    out_.Finish();
    android_.RebootRequested();  // the transport drops every connection shortly
    return;
  }
  android_.AdbdReconnect();
  out_.Add("done");
  out_.Finish();
  // kick_transport: this connection goes once "done" and the CLSE are out.
  auto connection = connection_.shared_from_this();
  auto timer = std::make_shared<asio::steady_timer>(executor_, std::chrono::milliseconds(100));
  timer->async_wait([connection, timer](boost::system::error_code ec) {
    if (!ec) connection->Shutdown();
  });
}

bool ShellStream::OnData(std::string_view data) {
  if (!request_.shell_protocol) return true;  // v1 stdin goes nowhere: no command reads it yet
  stdin_decoder_.Feed(data);
  for (;;) {
    auto next = stdin_decoder_.Take();
    if (!std::holds_alternative<ShellPacket>(next)) break;
    // Stdin, close-stdin and window-size packets are accepted; no simulated command reads
    // stdin yet, so their contents are dropped.
  }
  return true;
}

// exec: came with Android 7's adbd (services.cpp "exec:"), abb_exec: with Android 10's.
constexpr int kExecSdk = 24;
constexpr int kAbbExecSdk = 29;

// A streamed install (exec:cmd package install -S N, abb_exec:package\0install\0-S\0N): the host
// writes the APK's N bytes raw, the package manager answers one line and the stream closes
// (adbd's exec: and abb_exec: hand the stream to the command as its stdin and stdout).
class InstallStream : public Stream {
 public:
  InstallStream(Connection& connection, std::uint32_t local_id, std::uint32_t remote_id,
                InstallServiceRequest request, SimulatedAndroid& android)
      : out_(connection, local_id, remote_id), request_(std::move(request)), android_(android) {}

  void Start() override {
    stalled_ = android_.StallsStream(request_.argv);
    if (request_.size == 0 && !stalled_) Answer();
  }
  void OnOkay() override { out_.OnOkay(); }
  bool OnData(std::string_view data) override {
    if (stalled_) return false;  // `devsim-fault hang`: the package manager stops reading
    if (answered_) return true;  // bytes after the N announced: read by nobody
    const std::uint64_t left = request_.size - receiver_.size();
    const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(left, data.size()));
    receiver_.Write(data.substr(0, take));
    if (receiver_.size() == request_.size) Answer();
    return true;
  }
  void Stop() override {}

 private:
  void Answer() {
    answered_ = true;
    const StoredFile file = receiver_.Finish();
    const CommandOutput output = android_.RunStreamedInstall(request_.argv, file);
    if (output.hang) return;  // never answers: the host must close the stream
    // exec: and abb_exec: have no stderr channel apart: both come down the stream.
    out_.Add(output.Stdout() + output.Stderr());
    out_.Finish();
  }

  Outbox out_;
  InstallServiceRequest request_;
  SimulatedAndroid& android_;
  ApkReceiver receiver_;
  bool stalled_ = false;
  bool answered_ = false;
};

// sync: (packages/modules/adb daemon/file_sync_service.cpp): SEND "PATH,MODE", DATA…, DONE
// MTIME answered OKAY (or FAIL "MESSAGE" and the stream closes); QUIT closes. Files land in
// the device's simulated filesystem (DeviceState::files: size, SHA-1, the APK's manifest).
class SyncStream : public Stream {
 public:
  SyncStream(Connection& connection, std::uint32_t local_id, std::uint32_t remote_id,
             SimulatedAndroid& android)
      : out_(connection, local_id, remote_id), android_(android) {}

  void Start() override {}
  void OnOkay() override { out_.OnOkay(); }
  bool OnData(std::string_view data) override {
    if (ended_) return true;
    decoder_.Feed(data);
    while (!ended_) {
      auto next = decoder_.Take();
      if (auto* error = std::get_if<std::string>(&next)) {
        Fail(*error);
        break;
      }
      auto* request = std::get_if<SyncRequest>(&next);
      if (request == nullptr) break;
      Handle(std::move(*request));
    }
    return true;
  }
  void Stop() override {}

 private:
  void Handle(SyncRequest request) {
    switch (request.kind) {
      case SyncRequest::Kind::kSend: {
        auto target = ParseSyncSendTarget(request.payload);
        if (!target) {
          Fail("bad SEND request");
          return;
        }
        // adbd runs as shell: only shell-writable places take files (do_send: open fails).
        if (!target->path.starts_with("/data/local/tmp/") &&
            !target->path.starts_with("/sdcard/")) {
          Fail("couldn't create file: Permission denied");
          return;
        }
        target_ = std::move(*target);
        receiver_ = std::make_unique<ApkReceiver>();
        return;
      }
      case SyncRequest::Kind::kData:
        if (!receiver_) {
          Fail("DATA without SEND");
          return;
        }
        receiver_->Write(request.payload);
        return;
      case SyncRequest::Kind::kDone: {
        if (!receiver_) {
          Fail("DONE without SEND");
          return;
        }
        StoredFile file = receiver_->Finish();
        receiver_.reset();
        file.mode = target_.mode;
        file.mtime = request.value;
        android_.StoreFile(target_.path, std::move(file));
        out_.Add(EncodeSyncStatus("OKAY", ""));
        return;
      }
      case SyncRequest::Kind::kQuit:
        ended_ = true;
        out_.Finish();
        return;
      case SyncRequest::Kind::kStat:
      case SyncRequest::Kind::kStat2: {
        // adb's push stats the target first (is it a folder?).
        SyncStat stat;
        std::string path = request.payload;
        while (path.size() > 1 && path.back() == '/') path.pop_back();
        if (path == "/data/local/tmp" || path == "/sdcard") {
          stat.mode = 040771;  // S_IFDIR | rwxrwx--x
        } else if (const StoredFile* file = android_.FindFile(path)) {
          stat.mode = 0100000 | (file->mode & 07777);  // S_IFREG
          stat.size = file->size;
          stat.mtime = file->mtime;
        }
        out_.Add(request.kind == SyncRequest::Kind::kStat ? EncodeSyncStatV1(stat)
                                                          : EncodeSyncStatV2(request.id, stat));
        return;
      }
      case SyncRequest::Kind::kOther:
        // LIST, RECV… are not simulated; adbd's answer to an id it does not know.
        Fail("unknown command");
        return;
    }
  }
  void Fail(const std::string& message) {
    ended_ = true;
    receiver_.reset();
    out_.Add(EncodeSyncStatus("FAIL", message));
    out_.Finish();
  }

  Outbox out_;
  SimulatedAndroid& android_;
  SyncRequestDecoder decoder_;
  SyncSendTarget target_;
  std::unique_ptr<ApkReceiver> receiver_;
  bool ended_ = false;
};

asio::awaitable<void> Connection::ReadLoop(std::shared_ptr<Connection> self) {
  PacketDecoder decoder;
  std::array<char, 64 * 1024> buffer;
  for (;;) {
    const auto [ec, n] = co_await self->socket_.async_read_some(asio::buffer(buffer), kUseTuple);
    if (ec) break;
    decoder.Feed(std::string_view(buffer.data(), n));
    bool failed = false;
    for (;;) {
      auto next = decoder.Take();
      if (auto* packet = std::get_if<Packet>(&next)) {
        self->Handle(std::move(*packet));
      } else if (auto* error = std::get_if<PacketError>(&next)) {
        std::cerr << "devsim: dropping connection: " << PacketErrorText(*error) << "\n";
        failed = true;
        break;
      } else {
        break;
      }
    }
    if (failed) break;
  }
  self->Close();
}

void Connection::Handle(Packet packet) {
  switch (packet.command) {
    case kCommandCnxn: {
      // A new CNXN means the host restarted its side: whatever streams we had are gone.
      for (auto& [id, stream] : streams_) stream->Stop();
      streams_.clear();
      max_payload_ = std::clamp<std::uint32_t>(packet.arg1, 4096, kMaxPayload);
      if (gate_->Refusing()) {
        connected_ = false;
        awaiting_auth_ = true;
        SendAuthToken();
        return;
      }
      Accept();
      return;
    }
    case kCommandAuth: {
      if (!awaiting_auth_) return;
      if (!gate_->Refusing()) {
        Accept();  // the key is allowed now
      } else if (packet.arg0 == kAuthSignature) {
        SendAuthToken();  // not a key this phone knows: try the next one
      }
      // kAuthRsaPublicKey while refusing: the prompt is up and stays unanswered.
      return;
    }
    case kCommandOpen: {
      if (!connected_ || packet.arg0 == 0) return;
      std::shared_ptr<Stream> stream;
      const std::uint32_t local_id = next_local_id_;
      const int sdk = android_->scenario().device.sdk;
      if (auto request = ParseShellService(packet.payload)) {
        stream = std::make_shared<ShellStream>(*this, local_id, packet.arg0, std::move(*request),
                                               *android_, socket_.get_executor());
      } else if (auto install = ParseInstallService(packet.payload);
                 install && sdk >= (install->abb ? kAbbExecSdk : kExecSdk)) {
        stream = std::make_shared<InstallStream>(*this, local_id, packet.arg0, std::move(*install),
                                                 *android_);
      } else if (IsSyncService(packet.payload)) {
        stream = std::make_shared<SyncStream>(*this, local_id, packet.arg0, *android_);
      } else if (const AdbdService adbd = ParseAdbdService(packet.payload);
                 adbd != AdbdService::kNone) {
        stream = std::make_shared<AdbdServiceStream>(*this, local_id, packet.arg0,
                                                     adbd == AdbdService::kReboot, *android_,
                                                     socket_.get_executor());
      } else {
        // CLSE with local id 0 is how adbd refuses an OPEN.
        Send(Packet{kCommandClse, 0, packet.arg0, {}});
        return;
      }
      ++next_local_id_;
      streams_[local_id] = stream;
      Send(Packet{kCommandOkay, local_id, packet.arg0, {}});
      stream->Start();
      return;
    }
    case kCommandOkay: {
      const auto it = streams_.find(packet.arg1);
      if (it != streams_.end()) it->second->OnOkay();
      return;
    }
    case kCommandWrte: {
      const auto it = streams_.find(packet.arg1);
      if (it == streams_.end()) return;
      // Keep the stream alive through OnData: it may end itself (and be forgotten) there.
      const std::shared_ptr<Stream> stream = it->second;
      // The data is consumed at once, so the host may send more right away (unless the stream
      // stalls: a hung install).
      if (stream->OnData(packet.payload)) Send(Packet{kCommandOkay, packet.arg1, packet.arg0, {}});
      return;
    }
    case kCommandClse: {
      const auto it = streams_.find(packet.arg1);
      if (it == streams_.end()) return;
      it->second->Stop();
      streams_.erase(it);
      return;
    }
    default:
      return;  // SYNC, STLS: never sent to a device that answered CNXN without AUTH
  }
}

asio::awaitable<void> AcceptLoop(std::shared_ptr<tcp::acceptor> acceptor,
                                 std::shared_ptr<SimulatedAndroid> android,
                                 std::shared_ptr<std::vector<std::weak_ptr<Connection>>> live,
                                 std::shared_ptr<AuthGate> gate) {
  for (;;) {
    auto [ec, socket] = co_await acceptor->async_accept(kUseTuple);
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;  // e.g. too many open files: keep serving the connections we have
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto connection = std::make_shared<Connection>(std::move(socket), android, gate);
    std::erase_if(*live, [](const auto& weak) { return weak.expired(); });
    live->push_back(connection);
    asio::co_spawn(acceptor->get_executor(), Connection::ReadLoop(connection),
                   LogEscapes("connection"));
  }
}

}  // namespace

struct DeviceHost::Impl {
  asio::io_context io{1};
  struct Device {
    std::shared_ptr<SimulatedAndroid> android;
    tcp::endpoint endpoint;
    std::shared_ptr<tcp::acceptor> acceptor;
    std::shared_ptr<std::vector<std::weak_ptr<Connection>>> live =
        std::make_shared<std::vector<std::weak_ptr<Connection>>>();
    std::shared_ptr<asio::steady_timer> tick;
    std::shared_ptr<AuthGate> auth_gate = std::make_shared<AuthGate>();
  };
  std::vector<std::shared_ptr<Device>> devices;

  std::string Listen(Device& device) {
    boost::system::error_code ec;
    auto acceptor = std::make_shared<tcp::acceptor>(io);
    acceptor->open(device.endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(device.endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return ec.message();
    device.endpoint = acceptor->local_endpoint();
    device.acceptor = acceptor;
    asio::co_spawn(io, AcceptLoop(acceptor, device.android, device.live, device.auth_gate),
                   LogEscapes("accept"));
    return "";
  }

  // devsim-fault unplug: shortly after the command's reply is out, drop every connection and
  // refuse new ones; listen again on the same port when the time is up.
  void Unplug(const std::shared_ptr<Device>& device, std::chrono::milliseconds duration) {
    auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
    timer->async_wait([this, device, duration, timer](boost::system::error_code ec) {
      if (ec) return;
      boost::system::error_code ignored;
      if (device->acceptor) device->acceptor->close(ignored);
      device->acceptor.reset();
      for (auto& weak : *device->live) {
        if (auto connection = weak.lock()) connection->Shutdown();
      }
      device->live->clear();
      auto replug = std::make_shared<asio::steady_timer>(io, duration);
      replug->async_wait([this, device, replug](boost::system::error_code ec2) {
        if (ec2) return;
        if (const std::string error = Listen(*device); !error.empty()) {
          std::cerr << "devsim: replug failed: " << error << "\n";
        }
      });
    });
  }

  // devsim-fault unauthorized: shortly after the reply, drop every connection; the host's
  // reconnects meet AUTH until `duration` has passed, then the waiting ones are let in.
  void RefuseAuth(const std::shared_ptr<Device>& device, std::chrono::milliseconds duration) {
    auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
    timer->async_wait([this, device, duration, timer](boost::system::error_code ec) {
      if (ec) return;
      device->auth_gate->refuse_until = std::chrono::steady_clock::now() + duration;
      for (auto& weak : *device->live) {
        if (auto connection = weak.lock()) connection->Shutdown();
      }
      device->live->clear();
      auto allow = std::make_shared<asio::steady_timer>(io, duration);
      allow->async_wait([device, allow](boost::system::error_code ec2) {
        if (ec2 || device->auth_gate->Refusing()) return;
        for (auto& weak : *device->live) {
          if (auto connection = weak.lock()) connection->AuthAllowed();
        }
      });
    });
  }

  void StartTicking(const std::shared_ptr<Device>& device) {
    device->tick = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
    device->tick->async_wait([this, device](boost::system::error_code ec) {
      if (ec) return;
      device->android->Tick();
      StartTicking(device);
    });
  }
};

DeviceHost::DeviceHost() : impl_(std::make_unique<Impl>()) {}
DeviceHost::~DeviceHost() = default;

std::variant<std::uint16_t, std::string> DeviceHost::AddDevice(
    std::shared_ptr<SimulatedAndroid> android, const std::string& bind_address,
    std::uint16_t port) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(bind_address, ec);
  if (ec) return "bad bind address " + bind_address + ": " + ec.message();
  auto device = std::make_shared<Impl::Device>();
  device->android = android;
  device->endpoint = tcp::endpoint(address, port);
  if (const std::string error = impl_->Listen(*device); !error.empty()) {
    return "cannot listen on " + bind_address + ":" + std::to_string(port) + ": " + error;
  }
  std::weak_ptr<Impl::Device> weak = device;
  android->SetUnplugHandler([impl = impl_.get(), weak](std::chrono::milliseconds duration) {
    if (auto locked = weak.lock()) impl->Unplug(locked, duration);
  });
  android->SetRefuseAuthHandler([impl = impl_.get(), weak](std::chrono::milliseconds duration) {
    if (auto locked = weak.lock()) impl->RefuseAuth(locked, duration);
  });
  impl_->StartTicking(device);
  impl_->devices.push_back(device);
  return device->endpoint.port();
}

void DeviceHost::Run() {
  asio::signal_set signals(impl_->io, SIGINT, SIGTERM);
  signals.async_wait([this](boost::system::error_code ec, int) {
    if (!ec) impl_->io.stop();
  });
  impl_->io.run();
}

}  // namespace droidlab::devsim
