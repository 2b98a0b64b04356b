// Shell protocol v2 (packages/modules/adb shell_protocol.h): inside the stream's bytes, each
// packet is a 1-byte id, a 4-byte little-endian length, then that many bytes. Packets may be
// split across WRTE messages and several may share one, so the decoder is resumable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace droidlab::devsim {

enum class ShellPacketId : std::uint8_t {
  kStdin = 0,
  kStdout = 1,
  kStderr = 2,
  kExit = 3,
  kCloseStdin = 4,
  kWindowSizeChange = 5,  // payload "ROWSxCOLS,XPIXELSxYPIXELS"
};

struct ShellPacket {
  ShellPacketId id = ShellPacketId::kStdout;
  std::string data;
  bool operator==(const ShellPacket&) const = default;
};

std::string EncodeShellPacket(ShellPacketId id, std::string_view data);
// The exit packet: one byte, the exit status (adbd sends only the low 8 bits).
std::string EncodeShellExit(int exit_code);

class ShellPacketDecoder {
 public:
  struct NeedMore {};
  struct TooLarge {};  // a length no host sends: the stream is garbage
  using Next = std::variant<NeedMore, ShellPacket, TooLarge>;

  // adbd's own buffer is MAX_PAYLOAD; anything larger is not a shell packet.
  static constexpr std::uint32_t kMaxPacketData = 1024 * 1024;

  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  Next Take();

 private:
  std::string buffer_;
};

}  // namespace droidlab::devsim
