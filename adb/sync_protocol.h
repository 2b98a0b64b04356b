// The file sync protocol (the `sync:` service) without sockets: what the host sends to push a
// file, and the device's answer to it. Feed the answer here in whatever pieces reads return.
//
// Wire format (packages/modules/adb file_sync_protocol.h, client/file_sync_client.cpp
// SendRequest / SendSmallFile / CopyDone, daemon/file_sync_service.cpp do_send):
//   request   id (4 ASCII bytes) + length (uint32 little-endian) + that many bytes
//     SEND    "SEND" <len> "/data/local/tmp/app.apk,33188"   path ',' st_mode in decimal
//     DATA    "DATA" <len> <len bytes of the file>            len <= SYNC_DATA_MAX (64 KiB)
//     DONE    "DONE" <mtime>                                  the length field is the mtime
//     QUIT    "QUIT" <0>                                      ends the sync session
//   status    "OKAY" <0>  |  "FAIL" <len> <len bytes of the device's message>
// The device answers a SEND once, after DONE (or earlier with FAIL when it cannot write).
//
// Thread-safety: every function here is pure; a decoder object is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adb/error.h"
#include "adb/protocol.h"

namespace droidlab::adb {

// SYNC_DATA_MAX: the most file bytes one DATA message may carry.
inline constexpr size_t kSyncDataMax = 64 * 1024;
// The size of every header: the id and the little-endian length.
inline constexpr size_t kSyncHeaderSize = 8;
// adbd refuses a SEND path (with its ",mode") longer than this (file_sync_service.cpp
// handle_sync_command: "path too long").
inline constexpr size_t kSyncMaxPathLength = 1024;

// "SEND" + length + "PATH,MODE". Errors: kInvalidArgument for an empty path, a path longer than
// kSyncMaxPathLength or one with a NUL byte.
Result<std::string> EncodeSyncSend(std::string_view remote_path, uint32_t mode);
// The 8-byte header of a DATA message carrying `size` bytes (size <= kSyncDataMax: checked by
// the caller; larger is a programmer error and is clamped to kSyncDataMax).
std::string EncodeSyncDataHeader(size_t size);
// Writes the DATA header for `size` bytes into out[0..8).
void WriteSyncDataHeader(char* out, size_t size);
// "DONE" + mtime (seconds since the epoch, as the device stamps the file).
std::string EncodeSyncDone(uint32_t mtime);
// "QUIT" + 0.
std::string EncodeSyncQuit();

// Decodes one status: "OKAY" + 4 bytes -> kDone; "FAIL" + length + message -> kFailed with
// error() {kRejected, message} (adbd's own words, e.g. "couldn't create file: Permission
// denied"); any other id -> kFailed {kProtocol}. Takes bytes up to the end of the status and
// never beyond.
class SyncStatusDecoder {
 public:
  DecodeProgress Feed(std::string_view& input);
  const AdbError& error() const { return error_; }
  bool InFrame() const;
  AdbError ErrorAtEof() const;

 private:
  enum class Stage { kHeader, kFailMessage, kDone, kFailed };
  Stage stage_ = Stage::kHeader;
  std::string buffer_;
  size_t message_length_ = 0;
  AdbError error_{AdbErrc::kProtocol, {}};
};

}  // namespace droidlab::adb
