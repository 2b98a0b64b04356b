// Shell protocol v2 (the "shell,v2,...:" service), without sockets: packets of a 1-byte id,
// a 4-byte little-endian length and the data (packages/modules/adb shell_protocol.h,
// shell_service_protocol.cpp). The host sends stdin, close-stdin and window-size packets; the
// device sends stdout, stderr and, last, exit with a 1-byte exit code:
//   "\x01\x03\x00\x00\x00hi\n"   stdout "hi\n"
//   "\x03\x01\x00\x00\x00\x00"   exit 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adb/error.h"
#include "adb/protocol.h"

namespace droidlab::adb {

enum class ShellPacketId : uint8_t {
  kStdin = 0,
  kStdout = 1,
  kStderr = 2,
  kExit = 3,
  kCloseStdin = 4,
  kWindowSizeChange = 5,
  kInvalid = 255,
};

inline constexpr size_t kShellHeaderSize = 5;
// adbd's packet buffer is MAX_PAYLOAD (1 MiB, adb.h) including the header, so no packet it
// writes carries more than this; we never send more either.
inline constexpr size_t kShellMaxPayload = 1024 * 1024 - kShellHeaderSize;

// Stdin bytes as packets of at most kShellMaxPayload bytes each ("" gives no packet).
std::string EncodeShellStdin(std::string_view data);
// "\x04\0\0\0\0": the device's shell sees end of input (raw mode closes its stdin).
std::string EncodeShellCloseStdin();
// The terminal size as adb's client sends it (commandline.cpp send_window_size_change): ASCII
// "rowsxcols,xpixelsxypixels" with its trailing NUL: (24, 80, 0, 0) -> "\x05\x0a\0\0\0"
// "24x80,0x0\0".
std::string EncodeShellWindowSize(int rows, int cols, int x_pixels, int y_pixels);
// Any packet, for fakes and tests: EncodeShellPacket(kExit, "\x02") -> "\x03\x01\0\0\0\x02".
// Errors: kInvalidArgument when data is over kShellMaxPayload bytes.
Result<std::string> EncodeShellPacket(ShellPacketId id, std::string_view data);

struct ShellPacket {
  ShellPacketId id = ShellPacketId::kInvalid;  // any byte value; ids newer than this code pass
  std::string data;
  // For kExit: the exit code, 0..255 (read unsigned, as adb's read_and_dump_protocol does).
  int exit_code() const { return data.empty() ? -1 : static_cast<unsigned char>(data[0]); }
};

// Decodes packets from the device, one after another, from bytes in any pieces. After kDone,
// read packet() or TakePacket(); the next Feed() starts the next packet. Packets with ids this
// code does not know are handed over as they are (adb's client ignores them; so may the caller).
// Errors (kFailed, kProtocol): a length over max_payload ("shell packet of 2000000 bytes is over
// the limit of 1048571"), an exit packet whose length is not 1.
class ShellPacketDecoder {
 public:
  explicit ShellPacketDecoder(size_t max_payload = kShellMaxPayload) : max_payload_(max_payload) {}

  DecodeProgress Feed(std::string_view& input);
  const ShellPacket& packet() const { return packet_; }
  ShellPacket TakePacket() { return std::move(packet_); }
  const AdbError& error() const { return error_; }
  bool InFrame() const;
  AdbError ErrorAtEof() const;

 private:
  enum class Stage { kHeader, kData, kDone, kFailed };
  size_t max_payload_;
  Stage stage_ = Stage::kHeader;
  std::string header_;
  size_t length_ = 0;
  ShellPacket packet_;
  AdbError error_{AdbErrc::kProtocol, {}};
};

}  // namespace droidlab::adb
