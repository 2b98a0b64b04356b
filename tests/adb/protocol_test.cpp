#include "adb/protocol.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/adb/grind.h"

namespace droidlab::adb {
namespace {

using testing::Grind;
using testing::Outcome;
using namespace std::literals;

std::string StatusFrame(StatusDecoder&) { return "OKAY"; }
std::string StringFrame(ProtocolStringDecoder& d) { return d.payload(); }
std::string QueryFrame(QueryReplyDecoder& d) { return d.payload(); }
std::string TportFrame(TransportIdReplyDecoder& d) { return std::to_string(d.transport_id()); }

// --- encoding: packages/modules/adb adb_io.cpp SendProtocolString ("%04x" + payload) ---------

TEST(EncodeProtocolStringTest, HostVersionExactBytes) {
  auto bytes = EncodeProtocolString("host:version");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, "000chost:version");
}

TEST(EncodeProtocolStringTest, LowercaseHexLength) {
  auto bytes = EncodeProtocolString(std::string(0xab, 'x'));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->substr(0, 4), "00ab");
}

TEST(EncodeProtocolStringTest, EmptyIsFourZeros) { EXPECT_EQ(*EncodeProtocolString(""), "0000"); }

TEST(EncodeProtocolStringTest, LargestThatFitsFourHexDigits) {
  auto bytes = EncodeProtocolString(std::string(0xffff, 'a'));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->substr(0, 4), "ffff");
  EXPECT_EQ(bytes->size(), 4u + 0xffff);
}

// sockets.cpp smart_socket_enqueue reads exactly 4 hex digits: 0x10000 cannot be said.
TEST(EncodeProtocolStringTest, OversizeIsRefused) {
  auto bytes = EncodeProtocolString(std::string(0x10000, 'a'));
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, AdbErrc::kInvalidArgument);
}

// adb.cpp handle_host_request, SendOkay(fd, s) / SendFail(fd, s) (adb_io.cpp).
TEST(EncodeReplyTest, OkayAndFailExactBytes) {
  EXPECT_EQ(EncodeOkay(), "OKAY");
  EXPECT_EQ(*EncodeOkay("0029"), "OKAY00040029");
  EXPECT_EQ(*EncodeFail("device offline"), "FAIL000edevice offline");
  EXPECT_EQ(*EncodeFail(""), "FAIL0000");
  EXPECT_FALSE(EncodeFail(std::string(0x10000, 'x')));
}

// adb.cpp: SendOkay(reply_fd, StringPrintf("%04x", ADB_SERVER_VERSION)), ADB_SERVER_VERSION 41.
TEST(ParseServerVersionTest, FourHexDigits) {
  auto v = ParseServerVersion("0029");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 41);
  EXPECT_EQ(*ParseServerVersion("002A"), 42);
  EXPECT_EQ(ParseServerVersion("29").error().code, AdbErrc::kProtocol);
  EXPECT_EQ(ParseServerVersion("00x9").error().code, AdbErrc::kProtocol);
  EXPECT_EQ(ParseServerVersion("00290").error().code, AdbErrc::kProtocol);
}

// --- status: client/adb_client.cpp adb_status ----------------------------------------------

TEST(StatusDecoderTest, OkayLeavesWhatFollows) {
  Outcome o = Grind<StatusDecoder>({}, "OKAY0004abcd", false, StatusFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.rest, "0004abcd");
}

TEST(StatusDecoderTest, FailWithMessageKeepsAdbText) {
  // transport.cpp acquire_one_transport: "device '%s' not found".
  Outcome o = Grind<StatusDecoder>({}, "FAIL001ddevice 'R58M123ABC' not found", false, StatusFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kDeviceNotFound);
  EXPECT_EQ(o.error_message, "device 'R58M123ABC' not found");
}

TEST(StatusDecoderTest, FailWithEmptyMessage) {
  Outcome o = Grind<StatusDecoder>({}, "FAIL0000", false, StatusFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kRejected);
  EXPECT_EQ(o.error_message, "");
}

TEST(StatusDecoderTest, FailDoesNotReadPastItsMessage) {
  StatusDecoder d;
  std::string_view in = "FAIL0006closedEXTRA";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kFailed);
  EXPECT_EQ(in, "EXTRA");
  EXPECT_EQ(d.error().message, "closed");
  EXPECT_EQ(d.error().code, AdbErrc::kRejected);
}

TEST(StatusDecoderTest, FailWithoutItsLengthIsTruncation) {
  StatusDecoder d;
  std::string_view in = "FAIL";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(StatusDecoderTest, TruncatedFailMessage) {
  StatusDecoder d;
  std::string_view in = "FAIL000edevice off";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(StatusDecoderTest, NothingYetIsNotInFrame) {
  StatusDecoder d;
  std::string_view in;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_FALSE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(StatusDecoderTest, GarbageStatusIsProtocolError) {
  Outcome o = Grind<StatusDecoder>({}, "OKA\x00rest"s, false, StatusFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
  EXPECT_EQ(o.error_message, "adb protocol fault (status 4f 4b 41 00)");
}

TEST(StatusDecoderTest, LowercaseOkayIsProtocolError) {
  Outcome o = Grind<StatusDecoder>({}, "okay", false, StatusFrame);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
}

TEST(StatusDecoderTest, NonHexFailLengthIsProtocolError) {
  for (std::string_view bad : {"FAIL00g1xxxx", "FAIL 12aclosed", "FAIL+00aclosed", "FAIL-001x"}) {
    Outcome o = Grind<StatusDecoder>({}, bad, false, StatusFrame);
    EXPECT_EQ(o.last, DecodeProgress::kFailed) << bad;
    EXPECT_EQ(o.error_code, AdbErrc::kProtocol) << bad;
  }
}

TEST(StatusDecoderTest, StaysFailed) {
  StatusDecoder d;
  std::string_view in = "JUNK";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kFailed);
  std::string_view more = "OKAY";
  EXPECT_EQ(d.Feed(more), DecodeProgress::kFailed);
  EXPECT_EQ(more, "OKAY");
}

// --- length-prefixed strings: adb_io.cpp ReadProtocolString, transport.cpp device_tracker_send

TEST(ProtocolStringDecoderTest, OneString) {
  Outcome o = Grind<ProtocolStringDecoder>({}, "00040029", true, StringFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.frames, std::vector<std::string>{"0029"});
}

TEST(ProtocolStringDecoderTest, UppercaseHexIsAccepted) {
  Outcome o = Grind<ProtocolStringDecoder>({}, "000Aabcdefghij", true, StringFrame);
  EXPECT_EQ(o.frames, std::vector<std::string>{"abcdefghij"});
}

// host:track-devices-l: one length-prefixed list per change, "0000" when the last one left.
TEST(ProtocolStringDecoderTest, TrackDevicesStream) {
  std::string first =
      "emulator-5554          device product:sdk_gphone64_x86_64 "
      "model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n";
  std::string second = "emulator-5554          offline transport_id:1\n";
  std::string wire = *EncodeProtocolString(first) + *EncodeProtocolString(second) + "0000";
  EXPECT_EQ(wire.substr(0, 4), "0072");  // 114 bytes
  Outcome o = Grind<ProtocolStringDecoder>({}, wire, true, StringFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.frames, (std::vector<std::string>{first, second, ""}));
}

TEST(ProtocolStringDecoderTest, TruncatedPayload) {
  ProtocolStringDecoder d;
  std::string_view in = "0010short";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  AdbError e = d.ErrorAtEof();
  EXPECT_EQ(e.code, AdbErrc::kConnectionLost);
  EXPECT_EQ(e.message, "adb connection closed after 5 of 16 bytes of a reply");
}

TEST(ProtocolStringDecoderTest, TruncatedLength) {
  ProtocolStringDecoder d;
  std::string_view in = "00";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(ProtocolStringDecoderTest, CleanEndBetweenStrings) {
  ProtocolStringDecoder d;
  std::string_view in = "0002ok";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kDone);
  EXPECT_FALSE(d.InFrame());
}

TEST(ProtocolStringDecoderTest, NonHexLength) {
  for (std::string_view bad : {"zzzz", "00 1x", "0x10abcdefghijklmnop", "OKAY"}) {
    Outcome o = Grind<ProtocolStringDecoder>({}, bad, true, StringFrame);
    EXPECT_EQ(o.last, DecodeProgress::kFailed) << bad;
    EXPECT_EQ(o.error_code, AdbErrc::kProtocol) << bad;
  }
}

TEST(ProtocolStringDecoderTest, NonHexAfterGoodStringFailsThere) {
  Outcome o = Grind<ProtocolStringDecoder>({}, "0001a00q1b", true, StringFrame);
  EXPECT_EQ(o.frames, std::vector<std::string>{"a"});
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
}

TEST(ProtocolStringDecoderTest, LargestLength) {
  std::string wire = "ffff" + std::string(0xffff, 'z');
  ProtocolStringDecoder d;
  std::string_view in = wire;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kDone);
  EXPECT_EQ(d.payload().size(), 0xffffu);
}

// --- whole query replies: client/adb_client.cpp adb_query --------------------------------

TEST(QueryReplyDecoderTest, HostVersion) {
  Outcome o = Grind<QueryReplyDecoder>({}, "OKAY00040029", false, QueryFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.frames, std::vector<std::string>{"0029"});
  EXPECT_EQ(*ParseServerVersion(o.frames[0]), 41);
}

TEST(QueryReplyDecoderTest, EmptyDeviceList) {
  Outcome o = Grind<QueryReplyDecoder>({}, "OKAY0000", false, QueryFrame);
  EXPECT_EQ(o.frames, std::vector<std::string>{""});
}

TEST(QueryReplyDecoderTest, StopsAfterOneReply) {
  Outcome o = Grind<QueryReplyDecoder>({}, "OKAY0002ok0002no", false, QueryFrame);
  EXPECT_EQ(o.frames, std::vector<std::string>{"ok"});
  EXPECT_EQ(o.rest, "0002no");
}

TEST(QueryReplyDecoderTest, FailUnauthorizedKeepsWholeText) {
  // transport.cpp acquire_one_transport, kCsUnauthorized (adb 34).
  std::string text =
      "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
      "Try 'adb kill-server' if that seems wrong.\n"
      "Otherwise check for a confirmation dialog on your device.";
  Outcome o = Grind<QueryReplyDecoder>({}, *EncodeFail(text), false, QueryFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kDeviceUnauthorized);
  EXPECT_EQ(o.error_message, text);
}

TEST(QueryReplyDecoderTest, TruncatedAfterOkay) {
  QueryReplyDecoder d;
  std::string_view in = "OKAY";
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
}

TEST(QueryReplyDecoderTest, NonHexLengthAfterOkay) {
  Outcome o = Grind<QueryReplyDecoder>({}, "OKAYhost", false, QueryFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
}

// --- host:tport: adb.cpp handle_host_request writes t->id (uint64_t) after OKAY -----------

TEST(TransportIdReplyDecoderTest, LittleEndianId) {
  Outcome o =
      Grind<TransportIdReplyDecoder>({}, "OKAY\x03\x01\0\0\0\0\0\0shell"s, false, TportFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.frames, std::vector<std::string>{"259"});
  EXPECT_EQ(o.rest, "shell");
}

TEST(TransportIdReplyDecoderTest, HighBytes) {
  Outcome o = Grind<TransportIdReplyDecoder>({}, "OKAY\xff\xff\xff\xff\xff\xff\xff\xff"s, false,
                                             TportFrame);
  EXPECT_EQ(o.frames, std::vector<std::string>{"18446744073709551615"});
}

TEST(TransportIdReplyDecoderTest, Fail) {
  Outcome o = Grind<TransportIdReplyDecoder>({}, "FAIL000edevice offline", false, TportFrame);
  EXPECT_EQ(o.error_code, AdbErrc::kDeviceOffline);
  EXPECT_EQ(o.error_message, "device offline");
}

TEST(TransportIdReplyDecoderTest, TruncatedId) {
  TransportIdReplyDecoder d;
  std::string_view in = "OKAY\x01\x00\x00"sv;
  EXPECT_EQ(d.Feed(in), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().message,
            "adb server closed the connection after 3 of 8 bytes of the transport id");
}

// Random bytes and random valid streams, cut at random points: the answer never depends on the
// cuts, and garbage never crashes or reads past its input.
TEST(DecoderGrindTest, RandomInputRandomCuts) {
  std::mt19937 rng(20261122);
  auto random_bytes = [&rng](size_t n, std::string_view alphabet) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += alphabet[rng() % alphabet.size()];
    return out;
  };
  const std::string all_bytes = [] {
    std::string b;
    for (int c = 0; c < 256; ++c) b += static_cast<char>(c);
    return b;
  }();
  for (int round = 0; round < 200; ++round) {
    std::string input;
    if (round % 2 == 0) {
      input = random_bytes(rng() % 40, round % 4 == 0 ? all_bytes : "0123456789abcdefOKAYFIL");
    } else {
      for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) {
        input += *EncodeProtocolString(random_bytes(rng() % 20, all_bytes));
      }
    }
    Grind<ProtocolStringDecoder>({}, input, true, StringFrame);
    Grind<StatusDecoder>({}, input, false, StatusFrame);
    Grind<QueryReplyDecoder>({}, "OKAY" + input, false, QueryFrame);
    Grind<TransportIdReplyDecoder>({}, input, false, TportFrame);
  }
}

}  // namespace
}  // namespace droidlab::adb
