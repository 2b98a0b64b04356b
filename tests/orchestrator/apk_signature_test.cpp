// ReadApkSignature on APKs signed by Debian's apksigner (tests/data/apk/make-fixtures.sh): the
// hash of each signer's certificate as `dumpsys package` prints it on Android 9+, read from v3,
// v2 or — through OpenSSL's PKCS#7 — v1, compared with the value Java itself computed
// (KEY.hashcode.txt). An unsigned APK has no signature; a file that is not a zip is refused.
#include "orchestrator/builds/apk_signature.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/temp_dir.h"
#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

using testutil::ReadTestData;
using testutil::TempDir;
using testutil::WriteFileBytes;

std::string JavaHash(const std::string& key) {
  std::string text = ReadTestData("apk/" + key + ".hashcode.txt");
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

struct Case {
  const char* name;
  const char* apk;
  int scheme;
  const char* key;
};

class ApkSignatureTest : public testing::TestWithParam<Case> {};

TEST_P(ApkSignatureTest, ReadsTheSignerAsDumpsysPrintsIt) {
  TempDir dir;
  const std::string path = dir.File("app.apk");
  WriteFileBytes(path, ReadTestData(std::string("apk/") + GetParam().apk));
  auto read = ReadApkSignature(path);
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->scheme, GetParam().scheme);
  ASSERT_EQ((*read)->hashes.size(), 1u);
  EXPECT_EQ((*read)->hashes[0], JavaHash(GetParam().key));
  EXPECT_EQ((*read)->Text(), JavaHash(GetParam().key));
}

INSTANTIATE_TEST_SUITE_P(Schemes, ApkSignatureTest,
                         testing::Values(Case{"v1", "signed_v1.apk", 1, "testkey"},
                                         Case{"v1v2", "signed_v1v2.apk", 2, "testkey"},
                                         Case{"v2v3", "signed_v2v3.apk", 3, "testkey"},
                                         Case{"otherkey", "otherkey_v2v3.apk", 3, "otherkey"},
                                         Case{"versionCode43", "signed43_v2v3.apk", 3, "testkey"}),
                         [](const testing::TestParamInfo<Case>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(ApkSignatureReadTest, UnsignedAndNotAnApk) {
  TempDir dir;
  const std::string unsigned_apk = dir.File("unsigned.apk");
  WriteFileBytes(unsigned_apk, ReadTestData("apk/app_aapt2.apk"));
  auto none = ReadApkSignature(unsigned_apk);
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_FALSE(none->has_value());

  const std::string text = dir.File("notes.txt");
  WriteFileBytes(text, "not an APK\n");
  auto refused = ReadApkSignature(text);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("notes.txt: not a zip archive"), std::string::npos)
      << refused.error();
  const std::string empty = dir.File("empty.apk");
  WriteFileBytes(empty, "");
  EXPECT_FALSE(ReadApkSignature(empty).ok());
  EXPECT_FALSE(ReadApkSignature(dir.File("missing.apk")).ok());
}

// A v1 signature block that is not PKCS#7 is refused, naming the entry.
TEST(ApkSignatureReadTest, DamagedV1BlockIsRefused) {
  TempDir dir;
  std::string apk = ReadTestData("apk/signed_v1.apk");
  // The bytes right after the entry's name in its local header: its compressed data.
  const size_t name = apk.find("META-INF/TESTKEY.RSA");
  ASSERT_NE(name, std::string::npos);
  for (size_t i = name + 20; i < name + 60 && i < apk.size(); ++i) apk[i] = '\x5a';
  const std::string path = dir.File("damaged.apk");
  WriteFileBytes(path, apk);
  auto read = ReadApkSignature(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().find("META-INF/TESTKEY.RSA"), std::string::npos) << read.error();
}

}  // namespace
}  // namespace droidlab::orchestrator
