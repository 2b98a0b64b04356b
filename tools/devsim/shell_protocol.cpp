#include "tools/devsim/shell_protocol.h"

namespace droidlab::devsim {

std::string EncodeShellPacket(ShellPacketId id, std::string_view data) {
  std::string out;
  out.reserve(5 + data.size());
  out.push_back(static_cast<char>(id));
  const auto length = static_cast<std::uint32_t>(data.size());
  for (int shift = 0; shift < 32; shift += 8) {
    out.push_back(static_cast<char>((length >> shift) & 0xff));
  }
  out.append(data);
  return out;
}

std::string EncodeShellExit(int exit_code) {
  const char status = static_cast<char>(static_cast<unsigned>(exit_code) & 0xff);
  return EncodeShellPacket(ShellPacketId::kExit, std::string_view(&status, 1));
}

ShellPacketDecoder::Next ShellPacketDecoder::Take() {
  if (buffer_.size() < 5) return NeedMore{};
  std::uint32_t length = 0;
  for (int i = 4; i >= 1; --i) {
    length = (length << 8) | static_cast<unsigned char>(buffer_[static_cast<std::size_t>(i)]);
  }
  if (length > kMaxPacketData) return TooLarge{};
  if (buffer_.size() < 5 + length) return NeedMore{};
  ShellPacket packet;
  packet.id = static_cast<ShellPacketId>(static_cast<unsigned char>(buffer_[0]));
  packet.data = buffer_.substr(5, length);
  buffer_.erase(0, 5 + length);
  return packet;
}

}  // namespace droidlab::devsim
