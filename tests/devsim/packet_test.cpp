#include "tools/devsim/packet.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

using namespace std::string_literals;

// OKAY(1, 2) with no payload, byte for byte as adbd writes it.
const std::string kOkayBytes = "OKAY"s + "\x01\x00\x00\x00"s + "\x02\x00\x00\x00"s +
                               "\x00\x00\x00\x00"s + "\x00\x00\x00\x00"s + "\xb0\xb4\xbe\xa6"s;

TEST(PacketTest, EncodesOkayExactly) {
  EXPECT_EQ(EncodePacket(Packet{kCommandOkay, 1, 2, ""}), kOkayBytes);
}

TEST(PacketTest, EncodesPayloadLengthAndByteSum) {
  const std::string bytes = EncodePacket(Packet{kCommandWrte, 7, 9, "hi"});
  ASSERT_EQ(bytes.size(), kHeaderSize + 2);
  EXPECT_EQ(bytes.substr(0, 4), "WRTE");
  EXPECT_EQ(bytes.substr(12, 4), "\x02\x00\x00\x00"s);
  EXPECT_EQ(bytes.substr(16, 4), "\xd1\x00\x00\x00"s);  // 'h' + 'i' = 0x68 + 0x69
  EXPECT_EQ(bytes.substr(24), "hi");
}

TEST(PacketTest, CommandNames) {
  EXPECT_EQ(CommandName(kCommandCnxn), "CNXN");
  EXPECT_EQ(CommandName(kCommandClse), "CLSE");
  EXPECT_EQ(CommandName(0x01020304), "0x01020304");
}

TEST(PacketTest, DecodesTheHostConnectMessage) {
  // What adb 29 sends first: CNXN(0x01000000, 1 MiB, "host::features=…").
  const Packet cnxn{kCommandCnxn, 0x01000000, 1024 * 1024, "host::features=shell_v2,cmd"};
  PacketDecoder decoder;
  decoder.Feed(EncodePacket(cnxn));
  const auto next = decoder.Take();
  ASSERT_TRUE(std::holds_alternative<Packet>(next));
  EXPECT_EQ(std::get<Packet>(next), cnxn);
  EXPECT_TRUE(std::holds_alternative<PacketDecoder::NeedMore>(decoder.Take()));
}

// Every split of a stream of three packets into two reads gives the same three packets.
TEST(PacketTest, InputSplitAtEveryPoint) {
  const std::vector<Packet> packets = {
      {kCommandOpen, 5, 0, "shell,v2,raw:getprop"s + '\0'},
      {kCommandOkay, 5, 1, ""},
      {kCommandWrte, 5, 1, std::string(300, 'x')},
  };
  std::string stream;
  for (const auto& p : packets) stream += EncodePacket(p);
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    PacketDecoder decoder;
    std::vector<Packet> got;
    for (const std::string_view piece :
         {std::string_view(stream).substr(0, split), std::string_view(stream).substr(split)}) {
      decoder.Feed(piece);
      for (;;) {
        auto next = decoder.Take();
        if (auto* packet = std::get_if<Packet>(&next)) {
          got.push_back(*packet);
        } else {
          ASSERT_TRUE(std::holds_alternative<PacketDecoder::NeedMore>(next)) << "split " << split;
          break;
        }
      }
    }
    EXPECT_EQ(got, packets) << "split at " << split;
  }
}

TEST(PacketTest, ByteAtATime) {
  const std::string stream = EncodePacket({kCommandWrte, 1, 2, "abc"}) + kOkayBytes;
  PacketDecoder decoder;
  int packets = 0;
  for (const char c : stream) {
    decoder.Feed(std::string_view(&c, 1));
    while (std::holds_alternative<Packet>(decoder.Take())) ++packets;
  }
  EXPECT_EQ(packets, 2);
}

TEST(PacketTest, BadMagicIsAnErrorThatSticks) {
  std::string bytes = kOkayBytes;
  bytes[20] = 0;
  PacketDecoder decoder;
  decoder.Feed(bytes);
  auto next = decoder.Take();
  ASSERT_TRUE(std::holds_alternative<PacketError>(next));
  EXPECT_EQ(std::get<PacketError>(next), PacketError::kBadMagic);
  decoder.Feed(kOkayBytes);
  EXPECT_TRUE(std::holds_alternative<PacketError>(decoder.Take()));
}

TEST(PacketTest, PayloadAboveTheLimitIsRefusedBeforeItArrives) {
  PacketDecoder decoder(16);
  decoder.Feed(EncodePacket({kCommandWrte, 1, 2, std::string(17, 'x')}).substr(0, kHeaderSize));
  auto next = decoder.Take();
  ASSERT_TRUE(std::holds_alternative<PacketError>(next));
  EXPECT_EQ(std::get<PacketError>(next), PacketError::kPayloadTooLarge);
}

}  // namespace
}  // namespace droidlab::devsim
