#include "tools/devsim/packet.h"

#include <cstdio>

namespace droidlab::devsim {
namespace {

void PutU32(std::string& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

std::uint32_t GetU32(std::string_view bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + static_cast<std::size_t>(i)]);
  }
  return value;
}

}  // namespace

std::string CommandName(std::uint32_t command) {
  std::string name;
  for (int shift = 0; shift < 32; shift += 8) {
    const char c = static_cast<char>((command >> shift) & 0xff);
    if (c < 'A' || c > 'Z') {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08x", command);
      return hex;
    }
    name.push_back(c);
  }
  return name;
}

std::string EncodePacket(const Packet& packet) {
  std::uint32_t check = 0;
  for (const char c : packet.payload) check += static_cast<unsigned char>(c);
  std::string out;
  out.reserve(kHeaderSize + packet.payload.size());
  PutU32(out, packet.command);
  PutU32(out, packet.arg0);
  PutU32(out, packet.arg1);
  PutU32(out, static_cast<std::uint32_t>(packet.payload.size()));
  PutU32(out, check);
  PutU32(out, packet.command ^ 0xffffffffu);
  out += packet.payload;
  return out;
}

std::string_view PacketErrorText(PacketError error) {
  switch (error) {
    case PacketError::kBadMagic:
      return "bad magic in packet header";
    case PacketError::kPayloadTooLarge:
      return "packet payload larger than the negotiated maximum";
  }
  return "unknown packet error";
}

PacketDecoder::Next PacketDecoder::Take() {
  if (failed_) return error_;
  const std::string_view pending = std::string_view(buffer_).substr(consumed_);
  if (pending.size() < kHeaderSize) {
    // Compact only when idle, so a burst of small packets is not quadratic.
    buffer_.erase(0, consumed_);
    consumed_ = 0;
    return NeedMore{};
  }
  Packet packet;
  packet.command = GetU32(pending, 0);
  packet.arg0 = GetU32(pending, 4);
  packet.arg1 = GetU32(pending, 8);
  const std::uint32_t length = GetU32(pending, 12);
  const std::uint32_t magic = GetU32(pending, 20);
  if (magic != (packet.command ^ 0xffffffffu)) {
    failed_ = true;
    error_ = PacketError::kBadMagic;
    return error_;
  }
  if (length > max_payload_) {
    failed_ = true;
    error_ = PacketError::kPayloadTooLarge;
    return error_;
  }
  if (pending.size() < kHeaderSize + length) return NeedMore{};
  packet.payload.assign(pending.substr(kHeaderSize, length));
  consumed_ += kHeaderSize + length;
  return packet;
}

}  // namespace droidlab::devsim
