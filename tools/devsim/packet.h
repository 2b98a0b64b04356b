// The ADB transport message (packages/modules/adb protocol.txt): a 24-byte little-endian header
// followed by data_length bytes of payload. Pure code, no sockets, so every byte can be tested.
//
//   struct message {
//     uint32 command;      // A_CNXN, A_OPEN, A_OKAY, A_WRTE, A_CLSE (ASCII, little-endian)
//     uint32 arg0, arg1;
//     uint32 data_length;
//     uint32 data_check;   // byte sum of the payload; ignored from version 0x01000001 on
//     uint32 magic;        // command ^ 0xffffffff
//   };
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace droidlab::devsim {

inline constexpr std::uint32_t kCommandSync = 0x434e5953;  // "SYNC"
inline constexpr std::uint32_t kCommandCnxn = 0x4e584e43;  // "CNXN"
inline constexpr std::uint32_t kCommandAuth = 0x48545541;  // "AUTH"
inline constexpr std::uint32_t kCommandOpen = 0x4e45504f;  // "OPEN"
inline constexpr std::uint32_t kCommandOkay = 0x59414b4f;  // "OKAY"
inline constexpr std::uint32_t kCommandClse = 0x45534c43;  // "CLSE"
inline constexpr std::uint32_t kCommandWrte = 0x45545257;  // "WRTE"
inline constexpr std::uint32_t kCommandStls = 0x534c5453;  // "STLS"

// The version adbd answers with: from it on, neither side sends or checks data_check.
inline constexpr std::uint32_t kVersionSkipChecksum = 0x01000001;
inline constexpr std::size_t kHeaderSize = 24;
// What adbd advertises as its maximum payload (MAX_PAYLOAD in adb.h).
inline constexpr std::uint32_t kMaxPayload = 1024 * 1024;

struct Packet {
  std::uint32_t command = 0;
  std::uint32_t arg0 = 0;
  std::uint32_t arg1 = 0;
  std::string payload;

  bool operator==(const Packet&) const = default;
};

// "CNXN", or "0x12345678" for a value that is not four printable characters. For logs.
std::string CommandName(std::uint32_t command);

// Header and payload, ready to write. data_check is the byte sum, which every adb version accepts.
std::string EncodePacket(const Packet& packet);

enum class PacketError {
  kBadMagic,         // magic != command ^ 0xffffffff: not an adb peer, or a lost frame boundary
  kPayloadTooLarge,  // data_length above the limit given to the decoder
};
std::string_view PacketErrorText(PacketError error);

// A resumable decoder: feed bytes as they arrive, in pieces of any size, and take packets out.
// After an error it stays failed; the connection must be dropped (there is no resync in adb).
class PacketDecoder {
 public:
  explicit PacketDecoder(std::uint32_t max_payload = kMaxPayload) : max_payload_(max_payload) {}

  struct NeedMore {};
  using Next = std::variant<NeedMore, Packet, PacketError>;

  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // Returns the next whole packet, NeedMore when the buffered bytes do not hold one yet, or the
  // error that stopped decoding.
  Next Take();

 private:
  std::uint32_t max_payload_;
  std::string buffer_;
  std::size_t consumed_ = 0;
  bool failed_ = false;
  PacketError error_ = PacketError::kBadMagic;
};

}  // namespace droidlab::devsim
