// LineSplitter: turns a byte stream delivered in chunks cut anywhere into lines.
//
// Line ends: "\n", "\r\n" and "\r\r\n" (old adb over a pty turns "\n" into "\r\n" once more).
// Every '\r' right before the '\n' is dropped; a '\r' elsewhere stays. A last line without a
// newline is delivered by Finish(). NUL bytes and invalid UTF-8 pass through untouched: the
// splitter works on bytes, the JSON writer downstream escapes and repairs.
//
// Lines longer than max_line_bytes are cut: the first max_line_bytes bytes are delivered as one
// line, the rest of that line is dropped and counted in overlong_lines(). This bounds memory on
// hostile input (a 100 MB file with no newline).
//
// The string_view handed to the sink is valid only during the call.
// Not thread-safe; one splitter per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace droidlab::parsers {

class LineSplitter {
 public:
  static constexpr size_t kDefaultMaxLineBytes = 64 * 1024;

  explicit LineSplitter(size_t max_line_bytes = kDefaultMaxLineBytes)
      : max_line_bytes_(max_line_bytes) {}

  // Calls sink(std::string_view line) for each complete line in `chunk`.
  template <class Sink>
  void Feed(std::string_view chunk, Sink&& sink) {
    const char* p = chunk.data();
    const char* end = p + chunk.size();
    while (p < end) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
      if (nl == nullptr) {
        Append(std::string_view(p, static_cast<size_t>(end - p)));
        return;
      }
      const char* line_end = static_cast<const char*>(nl);
      if (partial_.empty() && !dropping_) {
        Deliver(std::string_view(p, static_cast<size_t>(line_end - p)), sink);
      } else {
        Append(std::string_view(p, static_cast<size_t>(line_end - p)));
        Deliver(std::string_view(partial_), sink);
        partial_.clear();
      }
      dropping_ = false;
      p = line_end + 1;
    }
  }

  // Delivers the last line if the stream did not end with a newline.
  template <class Sink>
  void Finish(Sink&& sink) {
    if (!partial_.empty()) Deliver(std::string_view(partial_), sink);
    partial_.clear();
    dropping_ = false;
  }

  uint64_t lines() const { return lines_; }
  uint64_t overlong_lines() const { return overlong_lines_; }

 private:
  template <class Sink>
  void Deliver(std::string_view line, Sink& sink) {
    if (line.size() > max_line_bytes_) {
      line = line.substr(0, max_line_bytes_);
      ++overlong_lines_;
    }
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++lines_;
    sink(line);
  }

  void Append(std::string_view bytes) {
    if (dropping_) return;
    size_t room = max_line_bytes_ + 1 - partial_.size();  // +1: lets Deliver see it is overlong
    if (bytes.size() >= room) {
      partial_.append(bytes.substr(0, room));
      dropping_ = true;
      return;
    }
    partial_.append(bytes);
  }

  size_t max_line_bytes_;
  std::string partial_;
  bool dropping_ = false;
  uint64_t lines_ = 0;
  uint64_t overlong_lines_ = 0;
};

// Calls fn(line) for each line of a whole text in memory (the last one may lack its newline),
// with LineSplitter's line-end rules.
template <class Fn>
void ForEachLine(std::string_view text, Fn&& fn) {
  LineSplitter splitter;
  splitter.Feed(text, fn);
  splitter.Finish(fn);
}

}  // namespace droidlab::parsers
