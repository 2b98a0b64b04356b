#include "adb/protocol.h"

#include <algorithm>
#include <optional>

namespace droidlab::adb {
namespace {

constexpr std::string_view kOkay = "OKAY";
constexpr std::string_view kFail = "FAIL";
constexpr size_t kLengthDigits = 4;
constexpr size_t kTransportIdBytes = 8;

std::optional<int> HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

// Exactly 4 hex digits. adb itself uses strtoul, which would take " 12a" or "+12a"; we do not:
// those bytes mean the stream is out of step, and reading on would misframe everything after.
std::optional<size_t> ParseHex4(std::string_view digits) {
  if (digits.size() != kLengthDigits) return std::nullopt;
  size_t value = 0;
  for (char c : digits) {
    auto d = HexDigit(c);
    if (!d) return std::nullopt;
    value = value * 16 + static_cast<size_t>(*d);
  }
  return value;
}

std::string Hex4(size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(kLengthDigits, '0');
  for (size_t i = kLengthDigits; i-- > 0; n >>= 4) out[i] = kDigits[n & 0xf];
  return out;
}

// Printable form of up to 4 bytes for error messages: "OKA\x00" -> "4f 4b 41 00".
std::string HexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 0xf];
  }
  return out;
}

}  // namespace

bool GatherBytes(std::string& into, size_t want, std::string_view& input) {
  size_t take = std::min(want - into.size(), input.size());
  into.append(input.substr(0, take));
  input.remove_prefix(take);
  return into.size() == want;
}

Result<std::string> EncodeProtocolString(std::string_view payload) {
  if (payload.size() > kMaxProtocolStringLength) {
    return MakeError(AdbErrc::kInvalidArgument, "adb protocol string of " +
                                                    std::to_string(payload.size()) +
                                                    " bytes is longer than 65535 (4 hex digits)");
  }
  std::string out = Hex4(payload.size());
  out.append(payload);
  return out;
}

std::string EncodeOkay() { return std::string(kOkay); }

Result<std::string> EncodeOkay(std::string_view payload) {
  auto body = EncodeProtocolString(payload);
  if (!body) return body.error();
  return std::string(kOkay) + *body;
}

Result<std::string> EncodeFail(std::string_view message) {
  auto body = EncodeProtocolString(message);
  if (!body) return body.error();
  return std::string(kFail) + *body;
}

Result<int> ParseServerVersion(std::string_view payload) {
  auto value = ParseHex4(payload);
  if (!value) {
    return MakeError(AdbErrc::kProtocol,
                     "adb server version is not 4 hex digits: '" + std::string(payload) + "'");
  }
  return static_cast<int>(*value);
}

// --- StatusDecoder ---------------------------------------------------------------------------

DecodeProgress StatusDecoder::Feed(std::string_view& input) {
  while (true) {
    switch (stage_) {
      case Stage::kDone:
        return DecodeProgress::kDone;
      case Stage::kFailed:
        return DecodeProgress::kFailed;
      case Stage::kStatus:
        if (!GatherBytes(buffer_, 4, input)) return DecodeProgress::kNeedMore;
        if (buffer_ == kOkay) {
          stage_ = Stage::kDone;
        } else if (buffer_ == kFail) {
          stage_ = Stage::kFailLength;
        } else {
          error_ = MakeError(AdbErrc::kProtocol,
                             "adb protocol fault (status " + HexBytes(buffer_) + ")");
          stage_ = Stage::kFailed;
        }
        buffer_.clear();
        break;
      case Stage::kFailLength: {
        if (!GatherBytes(buffer_, kLengthDigits, input)) return DecodeProgress::kNeedMore;
        auto length = ParseHex4(buffer_);
        if (!length) {
          error_ = MakeError(AdbErrc::kProtocol,
                             "adb protocol fault (FAIL length not hex: " + HexBytes(buffer_) + ")");
          stage_ = Stage::kFailed;
          break;
        }
        message_length_ = *length;
        buffer_.clear();
        stage_ = Stage::kFailMessage;
        break;
      }
      case Stage::kFailMessage:
        if (!GatherBytes(buffer_, message_length_, input)) return DecodeProgress::kNeedMore;
        error_ = ClassifyFailText(buffer_);
        buffer_.clear();
        stage_ = Stage::kFailed;
        break;
    }
  }
}

bool StatusDecoder::InFrame() const {
  return stage_ == Stage::kFailLength || stage_ == Stage::kFailMessage ||
         (stage_ == Stage::kStatus && !buffer_.empty());
}

AdbError StatusDecoder::ErrorAtEof() const {
  switch (stage_) {
    case Stage::kStatus:
      return MakeError(AdbErrc::kConnectionLost,
                       "adb server closed the connection before its status (" +
                           std::to_string(buffer_.size()) + " of 4 bytes)");
    case Stage::kFailLength:
    case Stage::kFailMessage:
      return MakeError(AdbErrc::kConnectionLost,
                       "adb server closed the connection in the middle of its FAIL message");
    case Stage::kFailed:
      return error_;
    case Stage::kDone:
      break;
  }
  return MakeError(AdbErrc::kConnectionLost, "adb server closed the connection after OKAY");
}

// --- ProtocolStringDecoder -------------------------------------------------------------------

DecodeProgress ProtocolStringDecoder::Feed(std::string_view& input) {
  if (stage_ == Stage::kDone) {
    stage_ = Stage::kLength;
    length_digits_.clear();
    payload_.clear();
  }
  while (true) {
    switch (stage_) {
      case Stage::kDone:
        return DecodeProgress::kDone;
      case Stage::kFailed:
        return DecodeProgress::kFailed;
      case Stage::kLength: {
        if (!GatherBytes(length_digits_, kLengthDigits, input)) return DecodeProgress::kNeedMore;
        auto length = ParseHex4(length_digits_);
        if (!length) {
          error_ =
              MakeError(AdbErrc::kProtocol,
                        "adb protocol fault (length not hex: " + HexBytes(length_digits_) + ")");
          stage_ = Stage::kFailed;
          break;
        }
        length_ = *length;
        payload_.clear();
        payload_.reserve(length_);
        stage_ = Stage::kPayload;
        break;
      }
      case Stage::kPayload:
        if (!GatherBytes(payload_, length_, input)) return DecodeProgress::kNeedMore;
        stage_ = Stage::kDone;
        break;
    }
  }
}

bool ProtocolStringDecoder::InFrame() const {
  return stage_ == Stage::kPayload || (stage_ == Stage::kLength && !length_digits_.empty());
}

AdbError ProtocolStringDecoder::ErrorAtEof() const {
  if (stage_ == Stage::kFailed) return error_;
  if (stage_ == Stage::kPayload) {
    return MakeError(AdbErrc::kConnectionLost, "adb connection closed after " +
                                                   std::to_string(payload_.size()) + " of " +
                                                   std::to_string(length_) + " bytes of a reply");
  }
  return MakeError(AdbErrc::kConnectionLost, "adb connection closed before a reply's length (" +
                                                 std::to_string(length_digits_.size()) +
                                                 " of 4 digits)");
}

// --- QueryReplyDecoder -----------------------------------------------------------------------

DecodeProgress QueryReplyDecoder::Feed(std::string_view& input) {
  if (!status_done_) {
    DecodeProgress p = status_.Feed(input);
    if (p != DecodeProgress::kDone) return p;
    status_done_ = true;
  }
  if (done_) return DecodeProgress::kDone;  // one reply only: do not start a second string
  DecodeProgress p = string_.Feed(input);
  done_ = p == DecodeProgress::kDone;
  return p;
}

const AdbError& QueryReplyDecoder::error() const {
  return status_done_ ? string_.error() : status_.error();
}

bool QueryReplyDecoder::InFrame() const { return status_done_ ? !done_ : status_.InFrame(); }

AdbError QueryReplyDecoder::ErrorAtEof() const {
  if (done_) return MakeError(AdbErrc::kConnectionLost, "adb connection closed after the reply");
  return status_done_ ? string_.ErrorAtEof() : status_.ErrorAtEof();
}

// --- TransportIdReplyDecoder -----------------------------------------------------------------

DecodeProgress TransportIdReplyDecoder::Feed(std::string_view& input) {
  if (!status_done_) {
    DecodeProgress p = status_.Feed(input);
    if (p != DecodeProgress::kDone) return p;
    status_done_ = true;
  }
  if (id_bytes_.size() == kTransportIdBytes) return DecodeProgress::kDone;
  if (!GatherBytes(id_bytes_, kTransportIdBytes, input)) return DecodeProgress::kNeedMore;
  uint64_t id = 0;
  for (size_t i = kTransportIdBytes; i-- > 0;) {
    id = (id << 8) | static_cast<unsigned char>(id_bytes_[i]);
  }
  transport_id_ = id;
  return DecodeProgress::kDone;
}

bool TransportIdReplyDecoder::InFrame() const {
  return status_done_ ? id_bytes_.size() != kTransportIdBytes : status_.InFrame();
}

AdbError TransportIdReplyDecoder::ErrorAtEof() const {
  if (!status_done_) return status_.ErrorAtEof();
  return MakeError(AdbErrc::kConnectionLost, "adb server closed the connection after " +
                                                 std::to_string(id_bytes_.size()) +
                                                 " of 8 bytes of the transport id");
}

}  // namespace droidlab::adb
