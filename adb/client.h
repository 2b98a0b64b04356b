// The awaitable adb client: talks to the adb server over the smart-socket protocol, one socket
// per command as adb's own client does, on Boost.Asio C++20 coroutines. The protocol itself
// (framing, decoders, service strings, quoting) is the sans-I/O core next to this file; this
// class owns sockets, deadlines, cancellation, the server start and the per-device limit.
//
//   adb::Client client(io.get_executor(), {.server = *adb::ServerAddressFromEnvironment({})});
//   auto serial = adb::Serial::Parse("R58M123ABC");
//   auto cmd = adb::BuildShellCommand({"pm", "path", package.str()});
//   adb::Result<adb::ShellResult> r =
//       co_await client.Shell(*serial, *cmd, adb::DeadlineAfter(std::chrono::seconds(5)));
//   if (!r) log(ErrcName(r.error().code), r.error().message);   // e.g. "device offline"
//
// Deadlines: every operation takes an absolute steady_clock deadline (kNoDeadline for none);
// when it passes, the operation's socket is closed and the result is kTimeout. Nothing else of
// the client is affected: the next command opens a new socket.
//
// Cancellation: cancel the coroutine that awaits an operation with terminal cancellation
// (asio::bind_cancellation_slot on co_spawn, or an awaitable operator `||` around it). The
// operation closes its socket and returns kCancelled. A sink (streaming, tracking) returning
// false ends the operation cleanly too.
//
// Errors (AdbErrc): kServerUnreachable (nothing answers and no server could be started),
// kDeviceNotFound / kDeviceOffline / kDeviceUnauthorized / kRejected (adb's FAIL text kept as
// the message), kTimeout, kConnectionLost (EOF or reset in the middle of a reply), kProtocol
// (bytes that break the protocol), kInvalidArgument (refused before anything is sent),
// kCancelled.
//
// Threading: a Client and every coroutine that uses it must run on one thread or one strand:
// pass that executor to the constructor and co_spawn on it. The client never blocks that
// thread: the only process it starts (`adb -P PORT start-server`) is waited for on a helper
// thread, and an install's or push's local file is read on a file-reading thread. Destroy the client after its operations have ended and before its io_context.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/device_changes.h"
#include "adb/device_list.h"
#include "adb/error.h"
#include "adb/features.h"
#include "adb/install_plan.h"
#include "adb/names.h"
#include "adb/server_address.h"
#include "adb/shell_quote.h"

namespace droidlab::adb {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();
inline Deadline DeadlineAfter(Clock::duration timeout) { return Clock::now() + timeout; }

struct ClientOptions {
  ServerAddress server;
  // Started as `<adb_path> -P PORT start-server` when nothing answers on a local server address
  // (never for a remote one). Empty: never start a server, report kServerUnreachable.
  std::string adb_path = "adb";
  // Commands in flight at once on one device (shells, streams, feature queries); the others wait
  // in order, and the wait counts against their deadline.
  size_t max_commands_per_device = 4;
  // Bytes kept of a Shell's stdout and of its stderr each; more is kProtocol (a runaway command
  // must not take the daemon's memory). Streams have no such limit: they hand bytes on.
  size_t max_shell_output = 64 * 1024 * 1024;
  // Tracking: the wait before reconnecting after the server went away, doubled per failure.
  std::chrono::milliseconds reconnect_initial_delay{100};
  std::chrono::milliseconds reconnect_max_delay{5000};
  // Tracking: the deadline for connecting and for the server's OKAY on each (re)connection.
  std::chrono::milliseconds track_connect_timeout{5000};
  // Told the round trip of every finished command but streams and tracking: `command` is
  // "shell", "features", "devices", "version", "install", "install-multiple" or "push"; `ok`
  // false for an error (timeouts included).
  // Called on the client's executor. May be empty.
  std::function<void(std::string_view command, Clock::duration elapsed, bool ok)> on_command;
  // The same for each command sent to one device (not `version`, `devices` or tracking), with
  // its serial: fleet health's adb errors and round trips per phone. May be empty.
  std::function<void(std::string_view serial, std::string_view command, Clock::duration elapsed,
                     bool ok)>
      on_device_command;
};

struct ShellResult {
  std::string out;
  std::string err;                // always empty for shell v1 (stderr is mixed into out)
  std::optional<int> exit_code;   // 0..255 through shell v2; nullopt through shell v1
  bool shell_v2 = false;
};

// The end of a streamed shell: how it ended and what it wrote to stderr (shell v2 only).
struct StreamEnd {
  std::optional<int> exit_code;   // nullopt: v1, or the sink stopped the stream first
  std::string err;                // stderr, up to max_shell_output bytes
  bool stopped_by_sink = false;
  uint64_t bytes = 0;             // stdout bytes delivered
  size_t overlong_lines = 0;      // StreamLines: lines over 64 KiB, cut (parsers::LineSplitter)
};

// A sink is awaited before the next read from the socket (back-pressure: a slow consumer slows
// the device's output through TCP flow control, nothing piles up in memory). Return false to
// end the stream. The view is valid only during the call.
using ChunkSink = std::function<boost::asio::awaitable<bool>(std::string_view chunk)>;
using LineSink = std::function<boost::asio::awaitable<bool>(std::string_view line)>;

// One event of TrackDevices.
struct DeviceListUpdate {
  // true: `list` is what the server just sent; `changes` is against the previous list this
  // tracker reported (so after a server restart, devices missing now come as kRemoved).
  // false: the connection to the server was lost (`error` says why); reconnecting follows.
  bool connected = true;
  std::optional<AdbError> error;
  bool first_after_connect = false;  // the first list on a new connection
  DeviceList list;
  std::vector<DeviceChange> changes;
};
using DeviceListSink = std::function<boost::asio::awaitable<bool>(const DeviceListUpdate&)>;

// A transfer's progress: bytes of the file sent so far, of `total`. Called on the client's
// executor while bytes flow, at most once per 250 ms, and once more with sent == total when the
// last byte is out (so a file sent within 250 ms gets just that one call). Must not block.
using ProgressCallback = std::function<void(uint64_t sent, uint64_t total)>;

// The device's answer to an install (parsers/pm_install.h read it).
struct InstallResult {
  InstallMethod method = InstallMethod::kExecCmd;
  bool success = false;
  std::string code;    // a failure's INSTALL_… code: "INSTALL_FAILED_VERSION_DOWNGRADE"
  std::string reason;  // what followed the code: "Update version code 42 is older than …"
  std::string advice;  // words for an operator (InstallFailureAdvice), "" when none
  std::string output;  // the answer as the device printed it
  uint64_t bytes = 0;  // APK bytes sent (of every file, for a session)
  std::optional<int64_t> session_id;  // InstallMultiple: the session the package manager made
};

class Client {
 public:
  Client(boost::asio::any_io_executor executor, ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClientOptions& options() const { return options_; }

  // host:version -> the server's protocol version (41 for adb 29..34).
  boost::asio::awaitable<Result<int>> Version(Deadline deadline);
  // host:devices-l.
  boost::asio::awaitable<Result<DeviceList>> Devices(Deadline deadline);
  // host:features: the features of the only device (FAIL "more than one device/emulator" is
  // kInvalidArgument, none is kDeviceNotFound).
  boost::asio::awaitable<Result<FeatureSet>> Features(Deadline deadline);
  // host-serial:SERIAL:features. Remembered per serial for Shell's choice of protocol.
  boost::asio::awaitable<Result<FeatureSet>> Features(const Serial& serial, Deadline deadline);

  // Runs `command` on the device and collects its output: shell,v2,raw: when the device has
  // shell_v2 (exit code, separate stderr), else shell: (exit code unknown).
  boost::asio::awaitable<Result<ShellResult>> Shell(const Serial& serial,
                                                    const ShellCommand& command,
                                                    Deadline deadline);
  // The same from argv, quoted by BuildShellCommand (kInvalidArgument before any I/O). A name
  // of its own: `Shell(serial, {"ls"}, d)` would be ambiguous between the two.
  boost::asio::awaitable<Result<ShellResult>> ShellArgv(const Serial& serial,
                                                        const std::vector<std::string>& argv,
                                                        Deadline deadline);

  // Streams the command's stdout to `sink` as it arrives (logcat). Ends at the command's exit,
  // when the sink returns false, at the deadline (kTimeout) or on cancellation (kCancelled).
  boost::asio::awaitable<Result<StreamEnd>> StreamShell(const Serial& serial,
                                                        const ShellCommand& command,
                                                        ChunkSink sink, Deadline deadline);
  // StreamShell split into lines (without '\n'); a last line without '\n' is delivered at exit.
  boost::asio::awaitable<Result<StreamEnd>> StreamLines(const Serial& serial,
                                                        const ShellCommand& command,
                                                        LineSink sink, Deadline deadline);

  // Installs the APK at `local_path` (a local file) the way `adb install` does (install_plan.h):
  // streamed over abb_exec: or exec:cmd package install -S, or pushed over sync: to
  // /data/local/tmp and installed with `pm install`, then removed. The file is read from disk
  // in chunks as the socket takes them (never whole in memory; each read on a file-reading
  // thread of the client's own, never on the executor's). A device that refuses the APK is a Result with success false and its
  // code and reason; errors are the transfer's: kInvalidArgument (the file cannot be opened or
  // read, a bad option), the device's (kDeviceNotFound, …), kRejected (the device refused the
  // service, or the push with its sync FAIL text), kProtocol (an answer that is no install
  // answer), kTimeout, kCancelled.
  boost::asio::awaitable<Result<InstallResult>> Install(Serial serial, std::string local_path,
                                                        InstallOptions options,
                                                        ProgressCallback progress,
                                                        Deadline deadline);
  // Installs several files of one app (a base APK, its split APKs, a .dm beside the base) in one
  // install session, as `adb install-multiple` does (install_plan.h): install-create with the
  // total size; for each file install-write with its bytes streamed (abb_exec:/exec:cmd), or,
  // below Android 7, pushed to /data/local/tmp and written from there by `pm install-write`;
  // then install-commit, whose answer is the result. When a step fails after the session was
  // made (the device refused a write, the transfer failed, the deadline passed, the caller
  // cancelled) the session is abandoned (install-abandon) under a deadline of its own, at most
  // kSessionCleanupTimeout more, and pushed copies are removed whatever happened. Progress,
  // deadline, cancellation and errors as Install's, over the files' total; a refusal of
  // install-create or of a write is a Result with success false and the device's words; a
  // name that CheckSessionFileName refuses, or no file, is kInvalidArgument before any I/O.
  boost::asio::awaitable<Result<InstallResult>> InstallMultiple(Serial serial,
                                                                std::vector<SessionFile> files,
                                                                InstallOptions options,
                                                                ProgressCallback progress,
                                                                Deadline deadline);
  static constexpr std::chrono::seconds kSessionCleanupTimeout{10};

  // Pushes `local_path` to `remote_path` on the device over sync: (SEND, DATA chunks of at most
  // 64 KiB, DONE with the file's mtime; QUIT), with the file's mode. Returns the bytes sent.
  // Errors as Install's; a device's FAIL ("couldn't create file: …") is kRejected.
  boost::asio::awaitable<Result<uint64_t>> Push(Serial serial, std::string local_path,
                                                std::string remote_path,
                                                ProgressCallback progress, Deadline deadline);

  // host:track-devices-l: delivers the device list at once and on every change, until the sink
  // returns false (Result ok) or the caller cancels (kCancelled). When the server goes away it
  // reports that, then reconnects with back-off (reconnect_initial_delay doubling to
  // reconnect_max_delay, starting the server if it is local and adb_path is set) and reports
  // the list again. Never ends on its own otherwise.
  boost::asio::awaitable<Result<void>> TrackDevices(DeviceListSink sink);

  // The recovery ladder's steps (orchestrator/lab/device_recovery.h). None waits for the
  // device's command slots (max_commands_per_device): the commands that hung and hold them are
  // what these are for.
  // `adb -s SERIAL reconnect`: the server drops the device's transport and connects again (its
  // shells and streams end; the other devices' are untouched). Returns the server's words
  // ("reconnecting SERIAL [device]"); kDeviceNotFound when the server has no such device.
  boost::asio::awaitable<Result<std::string>> ReconnectTransport(const Serial& serial,
                                                                 Deadline deadline);
  // `adb connect ADDRESS` for a phone on the network (its serial is "host:port"): adb 29 drops a
  // network phone's transport for good on `reconnect`, so the ladder connects it again. Returns
  // adb's words ("connected to …", "already connected to …"); kRejected with them otherwise.
  boost::asio::awaitable<Result<std::string>> Connect(const Serial& address, Deadline deadline);
  // `adb -s SERIAL reconnect device`: the device's adbd drops its end of the transport. Returns
  // what it wrote ("done"); errors as Shell's.
  boost::asio::awaitable<Result<std::string>> ReconnectDevice(const Serial& serial,
                                                              Deadline deadline);
  // `adb -s SERIAL reboot`: returns once the device took the request and closed the stream (or
  // dropped the connection going down). Errors as Shell's; kTimeout when it kept the stream open.
  boost::asio::awaitable<Result<void>> Reboot(const Serial& serial, Deadline deadline);

  // Forget the cached features of a device (it was replugged with another build, say).
  void ForgetFeatures(const Serial& serial);

  // How many `adb start-server` runs this client made (for tests and logs).
  int server_starts() const;

 private:
  void Observe(std::string_view command, Clock::time_point start, bool ok,
               const Serial* serial = nullptr) const;

  struct Impl;
  ClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace droidlab::adb
