#include "tools/devsim/sync_service.h"

#include <charconv>

namespace droidlab::devsim {
namespace {

constexpr std::size_t kHeader = 8;
constexpr std::uint32_t kSyncDataMax = 64 * 1024;
constexpr std::uint32_t kSyncMaxPath = 1024;

std::uint32_t ReadLe32(std::string_view bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

std::variant<std::monostate, SyncRequest, std::string> SyncRequestDecoder::Take() {
  const std::string_view pending = std::string_view(buffer_).substr(offset_);
  if (pending.size() < kHeader) {
    // Compact what was consumed, so a long push does not keep its bytes.
    buffer_.erase(0, offset_);
    offset_ = 0;
    return std::monostate{};
  }
  SyncRequest request;
  request.id = std::string(pending.substr(0, 4));
  request.value = ReadLe32(pending.substr(4, 4));
  std::size_t body = 0;
  if (request.id == "SEND") {
    request.kind = SyncRequest::Kind::kSend;
    if (request.value > kSyncMaxPath) return std::string("path too long");
    body = request.value;
  } else if (request.id == "DATA") {
    request.kind = SyncRequest::Kind::kData;
    if (request.value > kSyncDataMax) return std::string("data too long");
    body = request.value;
  } else if (request.id == "DONE") {
    request.kind = SyncRequest::Kind::kDone;
  } else if (request.id == "QUIT") {
    request.kind = SyncRequest::Kind::kQuit;
  } else if (request.id == "STAT" || request.id == "STA2" || request.id == "LST2") {
    request.kind = request.id == "STAT" ? SyncRequest::Kind::kStat : SyncRequest::Kind::kStat2;
    if (request.value > kSyncMaxPath) return std::string("path too long");
    body = request.value;
  } else {
    request.kind = SyncRequest::Kind::kOther;
  }
  if (pending.size() < kHeader + body) return std::monostate{};
  request.payload = std::string(pending.substr(kHeader, body));
  offset_ += kHeader + body;
  return request;
}

std::optional<SyncSendTarget> ParseSyncSendTarget(std::string_view payload) {
  const std::size_t comma = payload.rfind(',');
  if (comma == std::string_view::npos || comma == 0) return std::nullopt;
  SyncSendTarget target;
  target.path = std::string(payload.substr(0, comma));
  const std::string_view mode = payload.substr(comma + 1);
  const auto [end, ec] = std::from_chars(mode.data(), mode.data() + mode.size(), target.mode);
  if (ec != std::errc() || end != mode.data() + mode.size()) return std::nullopt;
  return target;
}

namespace {

void PutLe(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

std::string EncodeSyncStatV1(const SyncStat& stat) {
  std::string out = "STAT";
  PutLe(out, stat.mode, 4);
  PutLe(out, static_cast<std::uint32_t>(stat.size), 4);
  PutLe(out, stat.mtime, 4);
  return out;
}

std::string EncodeSyncStatV2(std::string_view id, const SyncStat& stat) {
  constexpr std::uint32_t kEnoent = 2;
  const bool found = stat.mode != 0;
  std::string out(id.substr(0, 4));
  PutLe(out, found ? 0 : kEnoent, 4);  // error
  PutLe(out, found ? 0xfd00 : 0, 8);   // dev
  PutLe(out, found ? 131074 : 0, 8);   // ino
  PutLe(out, stat.mode, 4);
  PutLe(out, found ? 1 : 0, 4);     // nlink
  PutLe(out, found ? 2000 : 0, 4);  // uid: shell
  PutLe(out, found ? 2000 : 0, 4);  // gid
  PutLe(out, stat.size, 8);
  PutLe(out, stat.mtime, 8);  // atime
  PutLe(out, stat.mtime, 8);  // mtime
  PutLe(out, stat.mtime, 8);  // ctime
  return out;
}

std::string EncodeSyncStatus(std::string_view id, std::string_view message) {
  std::string out(id.substr(0, 4));
  const auto length = static_cast<std::uint32_t>(message.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += message;
  return out;
}

}  // namespace droidlab::devsim
