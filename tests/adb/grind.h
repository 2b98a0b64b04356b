// Feeds a decoder its input in every possible split, as Beast's read-size grind and
// Boost.MySQL's sansio tests do: a decoder must give the same answer whatever the reads return.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/error.h"
#include "adb/protocol.h"

namespace droidlab::adb::testing {

struct Outcome {
  DecodeProgress last = DecodeProgress::kNeedMore;
  std::vector<std::string> frames;  // each frame, as the test's extractor renders it
  std::string rest;                 // bytes left after the decoder stopped (single-frame only)
  AdbErrc error_code = AdbErrc::kProtocol;
  std::string error_message;

  friend bool operator==(const Outcome&, const Outcome&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "{last=" << static_cast<int>(o.last) << " frames=[";
  for (const auto& f : o.frames) os << '"' << f << "\" ";
  return os << "] rest=\"" << o.rest << "\" error=" << static_cast<int>(o.error_code) << " \""
            << o.error_message << "\"}";
}

// Feeds `pieces` in order. A stream decoder (`stream` true) goes on after each kDone with the
// bytes that remain; a single-frame decoder stops at its first kDone and the rest is reported.
template <class Decoder>
Outcome FeedPieces(Decoder decoder, const std::vector<std::string_view>& pieces, bool stream,
                   const std::function<std::string(Decoder&)>& extract) {
  Outcome out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string_view piece = pieces[i];
    if (piece.empty()) continue;  // a read returns at least one byte; zero means end of stream
    while (true) {
      out.last = decoder.Feed(piece);
      if (out.last == DecodeProgress::kFailed) {
        out.error_code = decoder.error().code;
        out.error_message = decoder.error().message;
        return out;
      }
      if (out.last == DecodeProgress::kNeedMore) {
        EXPECT_TRUE(piece.empty()) << "kNeedMore must take every byte offered";
        break;
      }
      out.frames.push_back(extract(decoder));
      if (!stream) {
        out.rest = std::string(piece);
        for (size_t j = i + 1; j < pieces.size(); ++j) out.rest += pieces[j];
        return out;
      }
      if (piece.empty()) break;
    }
  }
  return out;
}

// Runs the decoder on `input` whole, then cut at every one point, at every two points (inputs
// up to 80 bytes), and one byte at a time; every run must give the same outcome as the whole.
template <class Decoder>
Outcome Grind(const Decoder& fresh, std::string_view input, bool stream,
              const std::function<std::string(Decoder&)>& extract) {
  Outcome whole = FeedPieces(fresh, {input}, stream, extract);
  for (size_t a = 0; a <= input.size(); ++a) {
    Outcome split = FeedPieces(fresh, {input.substr(0, a), input.substr(a)}, stream, extract);
    EXPECT_EQ(split, whole) << "split at " << a;
  }
  if (input.size() <= 80) {
    for (size_t a = 0; a <= input.size(); ++a) {
      for (size_t b = a; b <= input.size(); ++b) {
        Outcome split = FeedPieces(
            fresh, {input.substr(0, a), input.substr(a, b - a), input.substr(b)}, stream, extract);
        EXPECT_EQ(split, whole) << "split at " << a << " and " << b;
      }
    }
  }
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < input.size(); ++i) bytes.push_back(input.substr(i, 1));
  EXPECT_EQ(FeedPieces(fresh, bytes, stream, extract), whole) << "byte by byte";
  return whole;
}

}  // namespace droidlab::adb::testing
