#include "tools/devsim/shell_protocol.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

using namespace std::string_literals;

TEST(ShellProtocolTest, EncodesStdoutPacketExactly) {
  EXPECT_EQ(EncodeShellPacket(ShellPacketId::kStdout, "hi\n"), "\x01\x03\x00\x00\x00hi\n"s);
}

TEST(ShellProtocolTest, ExitPacketCarriesTheLowByte) {
  EXPECT_EQ(EncodeShellExit(3), "\x03\x01\x00\x00\x00\x03"s);
  EXPECT_EQ(EncodeShellExit(127), "\x03\x01\x00\x00\x00\x7f"s);
  EXPECT_EQ(EncodeShellExit(256 + 1), "\x03\x01\x00\x00\x00\x01"s);
}

TEST(ShellProtocolTest, DecodesStdinThenCloseStdinSplitAtEveryPoint) {
  const std::string stream = EncodeShellPacket(ShellPacketId::kStdin, "abc") +
                             EncodeShellPacket(ShellPacketId::kCloseStdin, "");
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    ShellPacketDecoder decoder;
    std::vector<ShellPacket> got;
    for (const auto& piece : {stream.substr(0, split), stream.substr(split)}) {
      decoder.Feed(piece);
      for (;;) {
        auto next = decoder.Take();
        if (auto* packet = std::get_if<ShellPacket>(&next)) {
          got.push_back(*packet);
        } else {
          break;
        }
      }
    }
    ASSERT_EQ(got.size(), 2u) << "split " << split;
    EXPECT_EQ(got[0], (ShellPacket{ShellPacketId::kStdin, "abc"}));
    EXPECT_EQ(got[1], (ShellPacket{ShellPacketId::kCloseStdin, ""}));
  }
}

TEST(ShellProtocolTest, AbsurdLengthIsRejected) {
  ShellPacketDecoder decoder;
  decoder.Feed("\x00\xff\xff\xff\xff"s);
  EXPECT_TRUE(std::holds_alternative<ShellPacketDecoder::TooLarge>(decoder.Take()));
}

}  // namespace
}  // namespace droidlab::devsim
