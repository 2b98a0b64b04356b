// The adb host ("smart socket") protocol without sockets: request framing, the server's
// OKAY/FAIL status, length-prefixed strings, and resumable decoders for them. Read the bytes
// with anything; feed them here in whatever pieces the reads return.
//
// Wire format (packages/modules/adb OVERVIEW.TXT, adb_io.cpp SendProtocolString/
// ReadProtocolString, client/adb_client.cpp adb_status):
//   request   "000chost:version"          4 lowercase hex digits of the length, then the text
//   status    "OKAY" | "FAIL" "0013" "device offline (...)"
//   reply     "OKAY" "0004" "0029"        host:version: OKAY, then a length-prefixed string
//   tport     "OKAY" <8 bytes LE uint64>  host:tport:serial:X: OKAY, then the transport id
//   tracking  "OKAY" then "00XX<list>" "00YY<list>" ...  one length-prefixed list per change
//
// Thread-safety: every function here is pure; a decoder object is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adb/error.h"

namespace droidlab::adb {

// The largest length 4 hex digits can say. adb's server refuses a request of length 0 or one it
// cannot describe in 4 digits (sockets.cpp smart_socket_enqueue reads exactly 4 hex digits and
// fails "bad size" on 0), so requests must be 1..0xffff bytes. Replies may be empty.
inline constexpr size_t kMaxProtocolStringLength = 0xffff;

// "host:version" -> "000chost:version". Errors: kInvalidArgument when longer than 0xffff bytes.
// An empty payload is encoded ("0000"): replies may be empty; requests are never empty because
// they are built by the functions in adb/services.h.
Result<std::string> EncodeProtocolString(std::string_view payload);

// The server's side, for fakes and tests: "OKAY", "OKAY" + "0004" + "0029", "FAIL" + "000e"
// + "device offline". Errors: kInvalidArgument when the text is longer than 0xffff bytes.
std::string EncodeOkay();
Result<std::string> EncodeOkay(std::string_view payload);
Result<std::string> EncodeFail(std::string_view message);

// "0029" -> 41: the payload of a host:version reply, 4 hex digits (adb_client.cpp
// __adb_check_server_version reads it with "%04x"). Errors: kProtocol.
Result<int> ParseServerVersion(std::string_view payload);

// What a decoder says after taking bytes.
enum class DecodeProgress {
  kNeedMore,  // every byte offered was taken and the frame is not complete yet
  kDone,      // a frame is complete; the bytes after it are left in the input
  kFailed,    // error() says why; the decoder stays failed, takes no more bytes
};

// Moves up to `want - into.size()` bytes from the front of `input` into `into`; true when `into`
// holds `want` bytes. The step of every decoder of adb/: a fixed-size part read across any split.
bool GatherBytes(std::string& into, size_t want, std::string_view& input);

// Decodes "OKAY" or "FAIL" + length + message. Feed() takes bytes from the front of `input`
// (advancing it) up to the end of the status and never beyond, so what follows the status
// (a reply string, a transport id, a shell stream) stays in `input`.
//   OKAY               -> kDone
//   FAIL0006closed     -> kFailed, error() {kRejected, "closed"} (ClassifyFailText)
//   "OKA?" or "FAIL00zz" -> kFailed, error() {kProtocol, ...}
class StatusDecoder {
 public:
  DecodeProgress Feed(std::string_view& input);
  const AdbError& error() const { return error_; }
  // True once some bytes of a status have been taken and it is not complete.
  bool InFrame() const;
  // The error to report when the connection ends now (kConnectionLost, saying where).
  AdbError ErrorAtEof() const;

 private:
  enum class Stage { kStatus, kFailLength, kFailMessage, kDone, kFailed };
  Stage stage_ = Stage::kStatus;
  std::string buffer_;
  size_t message_length_ = 0;
  AdbError error_{AdbErrc::kProtocol, {}};
};

// Decodes one length-prefixed string ("0004" "0029"), then the next, and so on: the payload of
// host:version, host:devices-l and host:features replies, and each update of
// host:track-devices[-l] (transport.cpp device_tracker_send). After kDone, read payload(); the
// next Feed() starts the next string. Errors (kFailed): kProtocol for a length that is not 4 hex
// digits ("00g1", " 12a").
class ProtocolStringDecoder {
 public:
  DecodeProgress Feed(std::string_view& input);
  const std::string& payload() const { return payload_; }
  std::string TakePayload() { return std::move(payload_); }
  const AdbError& error() const { return error_; }
  bool InFrame() const;
  AdbError ErrorAtEof() const;

 private:
  enum class Stage { kLength, kPayload, kDone, kFailed };
  Stage stage_ = Stage::kLength;
  std::string length_digits_;
  size_t length_ = 0;
  std::string payload_;
  AdbError error_{AdbErrc::kProtocol, {}};
};

// A status followed, on OKAY, by one length-prefixed string: the whole answer to a host query
// (adb_client.cpp adb_query): "OKAY" "0004" "0029" -> kDone, payload() "0029".
class QueryReplyDecoder {
 public:
  DecodeProgress Feed(std::string_view& input);
  const std::string& payload() const { return string_.payload(); }
  std::string TakePayload() { return string_.TakePayload(); }
  const AdbError& error() const;
  bool InFrame() const;
  AdbError ErrorAtEof() const;

 private:
  StatusDecoder status_;
  ProtocolStringDecoder string_;
  bool status_done_ = false;
  bool done_ = false;
};

// The answer to host:tport:serial:X (adb.cpp handle_host_request): a status and, on OKAY, the
// transport id as 8 bytes, little-endian (the server writes its uint64_t as it lies in memory;
// every adb host is little-endian). "OKAY" "\x03\0\0\0\0\0\0\0" -> kDone, transport_id() 3.
class TransportIdReplyDecoder {
 public:
  DecodeProgress Feed(std::string_view& input);
  uint64_t transport_id() const { return transport_id_; }
  const AdbError& error() const { return status_.error(); }
  bool InFrame() const;
  AdbError ErrorAtEof() const;

 private:
  StatusDecoder status_;
  bool status_done_ = false;
  std::string id_bytes_;
  uint64_t transport_id_ = 0;
};

}  // namespace droidlab::adb
