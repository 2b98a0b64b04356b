#include "adb/shell_protocol.h"

#include <algorithm>

namespace droidlab::adb {
namespace {

void AppendHeader(std::string& out, ShellPacketId id, size_t length) {
  out += static_cast<char>(id);
  auto n = static_cast<uint32_t>(length);
  for (int i = 0; i < 4; ++i, n >>= 8) out += static_cast<char>(n & 0xff);
}

}  // namespace

Result<std::string> EncodeShellPacket(ShellPacketId id, std::string_view data) {
  if (data.size() > kShellMaxPayload) {
    return MakeError(AdbErrc::kInvalidArgument, "shell packet of " + std::to_string(data.size()) +
                                                    " bytes is over the limit of " +
                                                    std::to_string(kShellMaxPayload));
  }
  std::string out;
  out.reserve(kShellHeaderSize + data.size());
  AppendHeader(out, id, data.size());
  out.append(data);
  return out;
}

std::string EncodeShellStdin(std::string_view data) {
  std::string out;
  out.reserve(data.size() + kShellHeaderSize * (data.size() / kShellMaxPayload + 1));
  while (!data.empty()) {
    std::string_view chunk = data.substr(0, kShellMaxPayload);
    AppendHeader(out, ShellPacketId::kStdin, chunk.size());
    out.append(chunk);
    data.remove_prefix(chunk.size());
  }
  return out;
}

std::string EncodeShellCloseStdin() {
  std::string out;
  AppendHeader(out, ShellPacketId::kCloseStdin, 0);
  return out;
}

std::string EncodeShellWindowSize(int rows, int cols, int x_pixels, int y_pixels) {
  std::string text = std::to_string(rows) + "x" + std::to_string(cols) + "," +
                     std::to_string(x_pixels) + "x" + std::to_string(y_pixels);
  text += '\0';  // adbd reads it with sscanf: the NUL is part of the packet
  std::string out;
  AppendHeader(out, ShellPacketId::kWindowSizeChange, text.size());
  out += text;
  return out;
}

DecodeProgress ShellPacketDecoder::Feed(std::string_view& input) {
  if (stage_ == Stage::kDone) {
    stage_ = Stage::kHeader;
    header_.clear();
    packet_ = ShellPacket{};
  }
  while (true) {
    switch (stage_) {
      case Stage::kDone:
        return DecodeProgress::kDone;
      case Stage::kFailed:
        return DecodeProgress::kFailed;
      case Stage::kHeader: {
        size_t take = std::min(kShellHeaderSize - header_.size(), input.size());
        header_.append(input.substr(0, take));
        input.remove_prefix(take);
        if (header_.size() < kShellHeaderSize) return DecodeProgress::kNeedMore;
        auto id = static_cast<ShellPacketId>(static_cast<unsigned char>(header_[0]));
        uint32_t length = 0;
        for (size_t i = kShellHeaderSize; i-- > 1;) {
          length = (length << 8) | static_cast<unsigned char>(header_[i]);
        }
        if (length > max_payload_) {
          error_ = MakeError(AdbErrc::kProtocol, "shell packet of " + std::to_string(length) +
                                                     " bytes is over the limit of " +
                                                     std::to_string(max_payload_));
          stage_ = Stage::kFailed;
          break;
        }
        if (id == ShellPacketId::kExit && length != 1) {
          error_ = MakeError(AdbErrc::kProtocol,
                             "shell exit packet of " + std::to_string(length) + " bytes, not 1");
          stage_ = Stage::kFailed;
          break;
        }
        packet_.id = id;
        packet_.data.clear();
        packet_.data.reserve(length);
        length_ = length;
        stage_ = Stage::kData;
        break;
      }
      case Stage::kData: {
        size_t take = std::min(length_ - packet_.data.size(), input.size());
        packet_.data.append(input.substr(0, take));
        input.remove_prefix(take);
        if (packet_.data.size() < length_) return DecodeProgress::kNeedMore;
        stage_ = Stage::kDone;
        break;
      }
    }
  }
}

bool ShellPacketDecoder::InFrame() const {
  return stage_ == Stage::kData || (stage_ == Stage::kHeader && !header_.empty());
}

AdbError ShellPacketDecoder::ErrorAtEof() const {
  if (stage_ == Stage::kFailed) return error_;
  if (stage_ == Stage::kData) {
    return MakeError(AdbErrc::kConnectionLost, "shell stream ended after " +
                                                   std::to_string(packet_.data.size()) + " of " +
                                                   std::to_string(length_) + " bytes of a packet");
  }
  return MakeError(AdbErrc::kConnectionLost, "shell stream ended before the exit packet (" +
                                                 std::to_string(header_.size()) +
                                                 " of 5 header bytes)");
}

}  // namespace droidlab::adb
