// The device side of the file sync protocol (`sync:`), as adbd reads it (packages/modules/adb
// daemon/file_sync_service.cpp): requests of a 4-byte id and a little-endian 32-bit length
// (or, for DONE, the mtime), SEND's "PATH,MODE", DATA of at most SYNC_DATA_MAX (64 KiB) bytes,
// DONE, QUIT; answers OKAY or FAIL + message (file_sync_protocol.h). Fed in whatever pieces
// the host's WRTEs bring.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace droidlab::devsim {

struct SyncRequest {
  enum class Kind { kSend, kData, kDone, kQuit, kStat, kStat2, kOther };
  Kind kind = Kind::kOther;
  std::string id;           // the 4 bytes as sent
  std::uint32_t value = 0;  // the length field (DONE: the file's mtime)
  std::string payload;      // SEND: "PATH,MODE"; DATA: the bytes; STAT, STA2, LST2: the path
};

class SyncRequestDecoder {
 public:
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole request; std::monostate when more bytes are needed; a string when the
  // stream breaks the protocol (a DATA over 64 KiB, a SEND path over 1024 bytes).
  std::variant<std::monostate, SyncRequest, std::string> Take();

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
};

struct SyncSendTarget {
  std::string path;
  std::uint32_t mode = 0;
};
// "PATH,MODE" (split at the last ',', as do_send does). nullopt without a ',' or a mode.
std::optional<SyncSendTarget> ParseSyncSendTarget(std::string_view payload);

// "OKAY" + 0, or "FAIL" + length + message.
std::string EncodeSyncStatus(std::string_view id, std::string_view message);

// What a stat of a path finds (all zero: nothing there).
struct SyncStat {
  std::uint32_t mode = 0;  // st_mode with the file type bits
  std::uint64_t size = 0;
  std::uint32_t mtime = 0;
};
// STAT (v1, sync_stat_v1): "STAT" + mode + size + mtime, 32 bits each.
std::string EncodeSyncStatV1(const SyncStat& stat);
// STA2 / LST2 (stat_v2, sync_stat_v2): id, error (ENOENT when nothing is there), dev, ino, mode,
// nlink, uid, gid, size, atime, mtime, ctime.
std::string EncodeSyncStatV2(std::string_view id, const SyncStat& stat);

}  // namespace droidlab::devsim
