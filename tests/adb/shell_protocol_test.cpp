// Shell protocol v2: packages/modules/adb shell_protocol.h (ids, 1-byte id + 4-byte LE length),
// shell_service_protocol.cpp, client/commandline.cpp read_and_dump_protocol and
// send_window_size_change, daemon/shell_service.cpp (exit packet of 1 byte).
#include "adb/shell_protocol.h"

#include <gtest/gtest.h>

#include "tests/adb/grind.h"

namespace droidlab::adb {
namespace {

using namespace std::literals;
using testing::Grind;
using testing::Outcome;

std::string Render(ShellPacketDecoder& d) {
  const ShellPacket& p = d.packet();
  return std::to_string(static_cast<int>(p.id)) + ":" + p.data;
}

TEST(ShellProtocolTest, EncodeExactBytes) {
  EXPECT_EQ(EncodeShellStdin("ls\n"), "\x00\x03\x00\x00\x00ls\n"s);
  EXPECT_EQ(EncodeShellStdin(""), "");
  EXPECT_EQ(EncodeShellCloseStdin(), "\x04\x00\x00\x00\x00"s);
  EXPECT_EQ(EncodeShellWindowSize(24, 80, 0, 0),
            "\x05\x0a\x00\x00\x00"
            "24x80,0x0\x00"s);
  EXPECT_EQ(*EncodeShellPacket(ShellPacketId::kExit, "\x02"), "\x03\x01\x00\x00\x00\x02"s);
  EXPECT_EQ(*EncodeShellPacket(ShellPacketId::kStdout, std::string(0x10203, 'x')),
            "\x01\x03\x02\x01\x00"s + std::string(0x10203, 'x'));
}

TEST(ShellProtocolTest, EncodeOversizeRefused) {
  auto p = EncodeShellPacket(ShellPacketId::kStdout, std::string(kShellMaxPayload + 1, 'x'));
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, AdbErrc::kInvalidArgument);
}

TEST(ShellProtocolTest, LargeStdinIsSplit) {
  std::string data(kShellMaxPayload + 10, 'y');
  std::string wire = EncodeShellStdin(data);
  ASSERT_EQ(wire.size(), data.size() + 2 * kShellHeaderSize);
  ShellPacketDecoder d;
  std::string_view in = wire;
  ASSERT_EQ(d.Feed(in), DecodeProgress::kDone);
  EXPECT_EQ(d.packet().id, ShellPacketId::kStdin);
  EXPECT_EQ(d.packet().data.size(), kShellMaxPayload);
  ASSERT_EQ(d.Feed(in), DecodeProgress::kDone);
  EXPECT_EQ(d.packet().data.size(), 10u);
  EXPECT_TRUE(in.empty());
}

// What `adb shell 'echo hi; echo err >&2; exit 3'` gets back from adbd.
TEST(ShellProtocolTest, StdoutStderrExitSplitEverywhere) {
  std::string wire = "\x01\x03\x00\x00\x00hi\n"s +
                     "\x02\x04\x00\x00\x00"
                     "err\n"s +
                     "\x03\x01\x00\x00\x00\x03"s;
  Outcome o = Grind<ShellPacketDecoder>(ShellPacketDecoder{}, wire, true, Render);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.frames, (std::vector<std::string>{"1:hi\n", "2:err\n", "3:\x03"}));
}

TEST(ShellProtocolTest, ExitCodeIsUnsigned) {
  ShellPacketDecoder d;
  std::string_view in = "\x03\x01\x00\x00\x00\xff"sv;
  ASSERT_EQ(d.Feed(in), DecodeProgress::kDone);
  EXPECT_EQ(d.packet().exit_code(), 255);
}

TEST(ShellProtocolTest, EmptyStdoutPacket) {
  Outcome o =
      Grind<ShellPacketDecoder>(ShellPacketDecoder{}, "\x01\x00\x00\x00\x00"s, true, Render);
  EXPECT_EQ(o.frames, std::vector<std::string>{"1:"});
}

TEST(ShellProtocolTest, UnknownIdPassedThrough) {
  Outcome o =
      Grind<ShellPacketDecoder>(ShellPacketDecoder{}, "\x09\x02\x00\x00\x00zz"s, true, Render);
  EXPECT_EQ(o.frames, std::vector<std::string>{"9:zz"});
}

TEST(ShellProtocolTest, ExitWithWrongLengthIsProtocolError) {
  for (std::string wire : {"\x03\x00\x00\x00\x00"s, "\x03\x02\x00\x00\x00\x01\x02"s}) {
    Outcome o = Grind<ShellPacketDecoder>(ShellPacketDecoder{}, wire, true, Render);
    EXPECT_EQ(o.last, DecodeProgress::kFailed);
    EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
  }
}

TEST(ShellProtocolTest, OversizeLengthIsProtocolError) {
  // 0x00100000 = 1 MiB, one byte over what adbd can send.
  Outcome o = Grind<ShellPacketDecoder>(ShellPacketDecoder{},
                                        "\x01\x03\x00\x00\x00"
                                        "hi\n"
                                        "\x01\x00\x00\x10\x00"s,
                                        true, Render);
  EXPECT_EQ(o.frames, std::vector<std::string>{"1:hi\n"});
  ASSERT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
  EXPECT_EQ(o.error_message, "shell packet of 1048576 bytes is over the limit of 1048571");
}

TEST(ShellProtocolTest, ConfigurableLimit) {
  Outcome o = Grind<ShellPacketDecoder>(ShellPacketDecoder{4},
                                        "\x01\x04\x00\x00\x00"
                                        "abcd"
                                        "\x01\x05\x00\x00\x00"s,
                                        true, Render);
  EXPECT_EQ(o.frames, std::vector<std::string>{"1:abcd"});
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_message, "shell packet of 5 bytes is over the limit of 4");
}

TEST(ShellProtocolTest, HugeLengthDoesNotAllocate) {
  ShellPacketDecoder d;
  std::string_view in = "\x01\xff\xff\xff\xff"sv;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kFailed);
  EXPECT_EQ(d.error().message, "shell packet of 4294967295 bytes is over the limit of 1048571");
}

TEST(ShellProtocolTest, TruncatedPacket) {
  ShellPacketDecoder d;
  std::string_view in = "\x01\x0a\x00\x00\x00half"sv;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
  EXPECT_EQ(d.ErrorAtEof().message, "shell stream ended after 4 of 10 bytes of a packet");
}

TEST(ShellProtocolTest, TruncatedHeader) {
  ShellPacketDecoder d;
  std::string_view in = "\x01\x0a"sv;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(ShellProtocolTest, EncoderDecoderRoundTrip) {
  std::string wire =
      EncodeShellStdin("input\n") + EncodeShellWindowSize(50, 132, 1, 2) + EncodeShellCloseStdin();
  Outcome o = Grind<ShellPacketDecoder>(ShellPacketDecoder{}, wire, true, Render);
  EXPECT_EQ(o.frames, (std::vector<std::string>{"0:input\n", "5:50x132,1x2\0"s, "4:"}));
}

}  // namespace
}  // namespace droidlab::adb
