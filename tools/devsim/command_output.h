// What a simulated command produces: output in the order and at the time a real one would,
// and its exit status; and how a command reads a numeric argument. Shared by the shell
// interpreter and the simulated Android.
#pragma once

#include <charconv>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace droidlab::devsim {

// The whole text as a decimal number, or nothing.
inline std::optional<long> ParseLong(std::string_view text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

struct OutputChunk {
  // How long after the previous chunk this one appears (am start -W blocks for the launch).
  std::chrono::milliseconds delay{0};
  bool to_stderr = false;
  std::string data;
  bool operator==(const OutputChunk&) const = default;
};

struct CommandOutput {
  std::vector<OutputChunk> chunks;
  int exit_code = 0;
  // The command keeps running and prints new logcat lines until the host closes the stream.
  bool follow_logcat = false;
  // With follow_logcat: logcat's filter rules, tag -> lowest priority shown ("*" = default).
  std::map<std::string, char> follow_filter;
  // With follow_logcat: which buffers (bit 1 << LogBufferId) and the -v format (0 threadtime,
  // 1 epoch).
  unsigned follow_buffers = 0;
  int follow_format = 0;
  // Faults (devsim-fault): after its output the command never ends (the host must close the
  // stream), or the stream is closed without an exit status, as when a device drops mid-command.
  bool hang = false;
  bool drop_stream = false;
  // The command goes on after these chunks (a shell loop, one iteration at a time): once they
  // are out, next() gives what it does after them. Empty: it has ended with exit_code. A loop
  // that never ends is stopped by the host closing the stream, as on a phone.
  std::function<CommandOutput()> next;

  void Out(std::string_view text) { Append(false, text); }
  void Err(std::string_view text) { Append(true, text); }
  void Wait(std::chrono::milliseconds delay) { chunks.push_back({delay, false, {}}); }
  // Appends another command's output after this one's, keeping its timing.
  void Append(const CommandOutput& other) {
    for (const auto& chunk : other.chunks) {
      if (chunk.delay.count() > 0) Wait(chunk.delay);
      Append(chunk.to_stderr, chunk.data);
    }
  }

  // All stdout (or stderr) bytes, ignoring timing. For tests and for shell v1.
  std::string Stdout() const { return Joined(false); }
  std::string Stderr() const { return Joined(true); }

 private:
  void Append(bool to_stderr, std::string_view text) {
    if (text.empty()) return;
    if (!chunks.empty()) {
      OutputChunk& last = chunks.back();
      if (last.data.empty()) {  // a pending Wait(): the text appears after its delay
        last.to_stderr = to_stderr;
        last.data.assign(text);
        return;
      }
      if (last.to_stderr == to_stderr) {
        last.data.append(text);
        return;
      }
    }
    chunks.push_back({std::chrono::milliseconds(0), to_stderr, std::string(text)});
  }
  std::string Joined(bool to_stderr) const {
    std::string out;
    for (const auto& chunk : chunks) {
      if (chunk.to_stderr == to_stderr) out += chunk.data;
    }
    return out;
  }
};

// One simple command (argv already split and expanded). Implemented by SimulatedAndroid.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual CommandOutput Run(const std::vector<std::string>& argv) = 0;
  // The shell started a process (forked a command, a subshell, or was itself forked by adbd).
  virtual void ProcessStarted() {}
};

}  // namespace droidlab::devsim
