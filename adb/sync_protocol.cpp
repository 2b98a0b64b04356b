#include "adb/sync_protocol.h"

#include <algorithm>

namespace droidlab::adb {

namespace {

// A failure message longer than this is not adbd's (it sends one line); a length beyond it is
// a broken stream, not a message to wait for.
constexpr size_t kMaxFailMessage = 64 * 1024;

void WriteHeader(char* out, std::string_view id, uint32_t value) {
  std::copy(id.begin(), id.end(), out);
  for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::string Header(std::string_view id, uint32_t value) {
  std::string out(kSyncHeaderSize, '\0');
  WriteHeader(out.data(), id, value);
  return out;
}

uint32_t ReadLe32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

Result<std::string> EncodeSyncSend(std::string_view remote_path, uint32_t mode) {
  if (remote_path.empty() || remote_path.find('\0') != std::string_view::npos) {
    return MakeError(AdbErrc::kInvalidArgument, "sync: remote path is empty or has a NUL byte");
  }
  const std::string path_and_mode = std::string(remote_path) + "," + std::to_string(mode);
  if (path_and_mode.size() > kSyncMaxPathLength) {
    return MakeError(AdbErrc::kInvalidArgument, "sync: remote path is longer than " +
                                                    std::to_string(kSyncMaxPathLength) + " bytes");
  }
  return Header("SEND", static_cast<uint32_t>(path_and_mode.size())) + path_and_mode;
}

std::string EncodeSyncDataHeader(size_t size) {
  return Header("DATA", static_cast<uint32_t>(std::min(size, kSyncDataMax)));
}

void WriteSyncDataHeader(char* out, size_t size) {
  WriteHeader(out, "DATA", static_cast<uint32_t>(std::min(size, kSyncDataMax)));
}

std::string EncodeSyncDone(uint32_t mtime) { return Header("DONE", mtime); }
std::string EncodeSyncQuit() { return Header("QUIT", 0); }

DecodeProgress SyncStatusDecoder::Feed(std::string_view& input) {
  while (true) {
    switch (stage_) {
      case Stage::kDone:
        return DecodeProgress::kDone;
      case Stage::kFailed:
        return DecodeProgress::kFailed;
      case Stage::kHeader: {
        if (!GatherBytes(buffer_, kSyncHeaderSize, input)) return DecodeProgress::kNeedMore;
        const std::string_view id = std::string_view(buffer_).substr(0, 4);
        const uint32_t length = ReadLe32(std::string_view(buffer_).substr(4));
        if (id == "OKAY") {
          stage_ = Stage::kDone;
        } else if (id == "FAIL" && length <= kMaxFailMessage) {
          message_length_ = length;
          stage_ = Stage::kFailMessage;
        } else {
          std::string shown;
          for (const char c : id) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
          error_ = MakeError(AdbErrc::kProtocol, "sync protocol fault (status '" + shown +
                                                     "', length " + std::to_string(length) + ")");
          stage_ = Stage::kFailed;
        }
        buffer_.clear();
        break;
      }
      case Stage::kFailMessage:
        if (!GatherBytes(buffer_, message_length_, input)) return DecodeProgress::kNeedMore;
        error_ = MakeError(AdbErrc::kRejected, buffer_);
        buffer_.clear();
        stage_ = Stage::kFailed;
        break;
    }
  }
}

bool SyncStatusDecoder::InFrame() const {
  return stage_ == Stage::kFailMessage || (stage_ == Stage::kHeader && !buffer_.empty());
}

AdbError SyncStatusDecoder::ErrorAtEof() const {
  switch (stage_) {
    case Stage::kHeader:
      return MakeError(AdbErrc::kConnectionLost,
                       "device closed the sync connection before its status (" +
                           std::to_string(buffer_.size()) + " of 8 bytes)");
    case Stage::kFailMessage:
      return MakeError(AdbErrc::kConnectionLost,
                       "device closed the sync connection in the middle of its FAIL message");
    case Stage::kFailed:
      return error_;
    case Stage::kDone:
      break;
  }
  return MakeError(AdbErrc::kConnectionLost, "device closed the sync connection after OKAY");
}

}  // namespace droidlab::adb
