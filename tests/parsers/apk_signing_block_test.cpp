// APK Signature Scheme v2/v3 blocks (apksig's ApkSigningBlockUtils, V2SchemeVerifier,
// V3SchemeVerifier; frameworks/base core/java/android/util/apk/ApkSignatureSchemeV2Verifier.java
// and ApkSignatureSchemeV3Verifier.java), on APKs signed by Debian's apksigner 0.9
// (tests/data/apk/make-fixtures.sh) and on blocks built here byte by byte for every bound.
// The certificate's hash is Signature.hashCode() (core/java/android/content/pm/Signature.java:
// Arrays.hashCode of the DER bytes), checked against values Java itself printed.
#include "parsers/apk_signing_block.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

std::string TrimmedTestData(const std::string& name) {
  std::string text = ReadTestData(name);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

TEST(ApkSigningBlockTest, V2AndV3SignersOfARealApk) {
  const std::string apk = ReadTestData("apk/signed_v2v3.apk");
  const std::string cert = ReadTestData("apk/testkey.x509.der");
  auto block = ParseApkSigningBlock(apk);
  ASSERT_TRUE(block.ok()) << block.error().message;
  EXPECT_TRUE(block->present);
  ASSERT_EQ(block->v2.size(), 1u);
  ASSERT_EQ(block->v3.size(), 1u);
  ASSERT_EQ(block->v2[0].certificates.size(), 1u);
  EXPECT_EQ(block->v2[0].certificates[0], cert);
  EXPECT_EQ(block->v3[0].certificates[0], cert);
  EXPECT_LE(block->v3[0].min_sdk, 28u);
  EXPECT_EQ(block->v3[0].max_sdk, 0x7fffffffu);
  EXPECT_FALSE(block->has_v31);
  // jshell: Integer.toHexString(Arrays.hashCode(Files.readAllBytes(testkey.x509.der))).
  EXPECT_EQ(SignatureHashCodeHex(block->v3[0].certificates[0]),
            TrimmedTestData("apk/testkey.hashcode.txt"));
}

TEST(ApkSigningBlockTest, V2OnlyAndNoBlock) {
  // The result holds views into the bytes: they live as long as it is read.
  const std::string v1v2_bytes = ReadTestData("apk/signed_v1v2.apk");
  auto v1v2 = ParseApkSigningBlock(v1v2_bytes);
  ASSERT_TRUE(v1v2.ok()) << v1v2.error().message;
  EXPECT_TRUE(v1v2->present);
  EXPECT_EQ(v1v2->v2.size(), 1u);
  EXPECT_TRUE(v1v2->v3.empty());
  // JAR signing only, and an unsigned APK: a zip with no signing block.
  for (const char* name : {"apk/signed_v1.apk", "apk/app_aapt2.apk"}) {
    const std::string bytes = ReadTestData(name);
    auto none = ParseApkSigningBlock(bytes);
    ASSERT_TRUE(none.ok()) << name << ": " << none.error().message;
    EXPECT_FALSE(none->present) << name;
  }
  const std::string other_bytes = ReadTestData("apk/otherkey_v2v3.apk");
  auto other = ParseApkSigningBlock(other_bytes);
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->v3.size(), 1u);
  EXPECT_EQ(SignatureHashCodeHex(other->v3[0].certificates[0]),
            TrimmedTestData("apk/otherkey.hashcode.txt"));
}

// Values printed by jshell: Integer.toHexString(java.util.Arrays.hashCode(new byte[]{…})).
TEST(ApkSigningBlockTest, HashCodeAsJavaPrintsIt) {
  EXPECT_EQ(SignatureHashCodeHex(""), "1");
  EXPECT_EQ(SignatureHashCodeHex(std::string(1, '\0')), "1f");
  EXPECT_EQ(SignatureHashCodeHex("\xff"), "1e");  // a signed byte: 31 * 1 + (-1)
  EXPECT_EQ(SignatureHashCodeHex("droidlab signature"), "b87aaeaa");
}

// Little-endian integers and length-prefixed items, to build blocks by hand.
std::string Le(uint64_t v, int width) {
  std::string out;
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}
std::string Prefixed(const std::string& bytes) { return Le(bytes.size(), 4) + bytes; }

std::string V2Value(const std::string& cert) {
  const std::string signed_data = Prefixed("") + Prefixed(Prefixed(cert)) + Prefixed("");
  const std::string signer = Prefixed(signed_data) + Prefixed("") + Prefixed("");
  return Prefixed(Prefixed(signer));
}

std::string Pair(uint32_t id, const std::string& value) {
  return Le(value.size() + 4, 8) + Le(id, 4) + value;
}

// [a stored entry stand-in][block of `pairs`][no central directory][EOCD]
std::string Apk(const std::string& pairs, std::string comment = "") {
  const std::string head = "PK\x03\x04 entries";
  const uint64_t size = pairs.size() + 24;
  const std::string block = Le(size, 8) + pairs + Le(size, 8) + "APK Sig Block 42";
  const uint64_t cd_offset = head.size() + block.size();
  const std::string eocd = std::string("PK\x05\x06", 4) + Le(0, 8) + Le(0, 4) + Le(cd_offset, 4) +
                           Le(comment.size(), 2) + comment;
  return head + block + eocd;
}

TEST(ApkSigningBlockTest, BuiltBlockIsRead) {
  const std::string apk = Apk(Pair(kApkSignatureSchemeV2Id, V2Value("CERT")) +
                                  Pair(0x42726577, "padding") + Pair(kApkSignatureSchemeV31Id, ""),
                              "a zip comment");
  auto r = ParseApkSigningBlock(apk);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->present);
  ASSERT_EQ(r->v2.size(), 1u);
  EXPECT_EQ(r->v2[0].certificates[0], "CERT");
  EXPECT_TRUE(r->has_v31);
}

TEST(ApkSigningBlockTest, NoBlockWhereAndroidFindsNone) {
  std::string wrong_magic = Apk(Pair(kApkSignatureSchemeV2Id, V2Value("CERT")));
  wrong_magic[wrong_magic.find("APK Sig Block 42") + 15] = '3';
  auto r = ParseApkSigningBlock(wrong_magic);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->present);
  // A central directory that does not end where the EOCD starts.
  std::string gap = Apk("");
  gap.insert(gap.size() - 22, "x");
  r = ParseApkSigningBlock(gap);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->present);
}

TEST(ApkSigningBlockTest, EveryBoundIsChecked) {
  auto code = [](const std::string& apk) {
    auto r = ParseApkSigningBlock(apk);
    EXPECT_FALSE(r.ok());
    return r.ok() ? ParseErrorCode::kEmpty : r.error().code;
  };
  EXPECT_EQ(code("not a zip at all, no end record"), ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(code(""), ParseErrorCode::kNotThisFormat);
  // A comment length that does not reach the end of the file: no EOCD.
  std::string long_comment = Apk("");
  long_comment.back() = '\x01';
  EXPECT_EQ(code(long_comment), ParseErrorCode::kNotThisFormat);

  const std::string good = Apk(Pair(kApkSignatureSchemeV2Id, V2Value("CERT")));
  const size_t magic = good.find("APK Sig Block 42");
  std::string too_big = good;
  too_big.replace(magic - 8, 8, Le(1u << 20, 8));
  EXPECT_EQ(code(too_big), ParseErrorCode::kMalformed);
  std::string sizes_differ = good;
  sizes_differ[magic - 8] = static_cast<char>(sizes_differ[magic - 8] - 1);
  EXPECT_EQ(code(sizes_differ), ParseErrorCode::kMalformed);

  // A pair longer than the block, one shorter than its id, a value cut short, no certificate.
  EXPECT_EQ(code(Apk(Le(1000, 8) + Le(kApkSignatureSchemeV2Id, 4))), ParseErrorCode::kMalformed);
  EXPECT_EQ(code(Apk(Le(3, 8) + "abc")), ParseErrorCode::kMalformed);
  EXPECT_EQ(code(Apk(Le(2, 4))), ParseErrorCode::kMalformed);
  std::string value = V2Value("CERT");
  EXPECT_EQ(code(Apk(Pair(kApkSignatureSchemeV2Id, value.substr(0, value.size() - 1)))),
            ParseErrorCode::kMalformed);
  EXPECT_EQ(code(Apk(Pair(kApkSignatureSchemeV2Id, Prefixed("")))), ParseErrorCode::kMalformed);
  EXPECT_EQ(code(Apk(Pair(kApkSignatureSchemeV2Id, V2Value("")))), ParseErrorCode::kMalformed);
  // v3 needs the SDK range after the signed data.
  const std::string signed_data = Prefixed("") + Prefixed(Prefixed("CERT")) + Prefixed("");
  EXPECT_EQ(code(Apk(Pair(kApkSignatureSchemeV3Id, Prefixed(Prefixed(Prefixed(signed_data)))))),
            ParseErrorCode::kMalformed);
  const std::string v3_apk = Apk(
      Pair(kApkSignatureSchemeV3Id, Prefixed(Prefixed(Prefixed(signed_data) + Le(28, 4) +
                                                      Le(33, 4) + Prefixed("") + Prefixed("")))));
  auto v3 = ParseApkSigningBlock(v3_apk);
  ASSERT_TRUE(v3.ok()) << v3.error().message;
  ASSERT_EQ(v3->v3.size(), 1u);
  EXPECT_EQ(v3->v3[0].min_sdk, 28u);
  EXPECT_EQ(v3->v3[0].max_sdk, 33u);

  std::string zip64 = Apk("");
  zip64.replace(zip64.size() - 6, 4, Le(0xffffffff, 4));
  EXPECT_EQ(code(zip64), ParseErrorCode::kMalformed);
}

}  // namespace
}  // namespace droidlab::parsers
