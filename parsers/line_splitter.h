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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace droidlab::parsers {

// The '\n' bytes of a buffer, in order: one 64-bit mask per 64-byte block (SSE2 compares where
// the compiler has them, a byte loop elsewhere), each newline then a count-trailing-zeros. Reads
// only inside the buffer: the last partial block is copied to the stack first.
class NewlineBits {
 public:
  explicit NewlineBits(std::string_view text) : base_(text.data()), size_(text.size()) {
    if (size_ > 0) mask_ = Block(0);
  }
  // The next newline, or nullptr when there is none left.
  const char* Next() {
    while (mask_ == 0) {
      block_ += 64;
      if (block_ >= size_) return nullptr;
      mask_ = Block(block_);
    }
    const size_t at = block_ + static_cast<size_t>(__builtin_ctzll(mask_));
    mask_ &= mask_ - 1;
    return base_ + at;
  }

 private:
  uint64_t Block(size_t at) const {
    if (size_ - at >= 64) return Mask64(base_ + at);
    char tail[64] = {};  // zero bytes are not newlines
    std::memcpy(tail, base_ + at, size_ - at);
    return Mask64(tail);
  }
  static uint64_t Mask64(const char* p) {
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    const auto bits = [&](int i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))));
    };
    return bits(0) | bits(1) << 16 | bits(2) << 32 | bits(3) << 48;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; ++i) m |= static_cast<uint64_t>(p[i] == '\n') << i;
    return m;
#endif
  }

  const char* base_;
  size_t size_;
  size_t block_ = 0;
  uint64_t mask_ = 0;
};

class LineSplitter {
 public:
  static constexpr size_t kDefaultMaxLineBytes = 64 * 1024;

  explicit LineSplitter(size_t max_line_bytes = kDefaultMaxLineBytes)
      : max_line_bytes_(max_line_bytes) {}

  // Calls sink(std::string_view line) for each complete line in `chunk`. The line ends are
  // found 64 bytes at a time (NewlineBits), not with a memchr call per line: on a 268 MB logcat
  // of ~107-byte lines the per-call cost of memchr was 16 % of `droidlab parse logcat` (perf).
  template <class Sink>
  void Feed(std::string_view chunk, Sink&& sink) {
    const char* p = chunk.data();
    const char* const end = p + chunk.size();
    NewlineBits newlines(chunk);
    for (;;) {
      const char* line_end = newlines.Next();
      if (line_end == nullptr) {
        if (p < end) Append(std::string_view(p, static_cast<size_t>(end - p)));
        return;
      }
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
