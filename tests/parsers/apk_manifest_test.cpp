// Android binary XML and the APK manifest, on files written by Debian 12's aapt (Android 10's)
// and aapt2 2.19 (tests/data/apk/, rebuilt by its make-fixtures.sh). The format is
// frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h; the manifest's meaning is
// ParsingPackageUtils.java's (Android 11+).
#include "parsers/apk_manifest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "parsers/binary_xml.h"
#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

void PutU16(std::string& b, size_t at, uint16_t v) {
  b[at] = static_cast<char>(v & 0xFF);
  b[at + 1] = static_cast<char>(v >> 8);
}
void PutU32(std::string& b, size_t at, uint32_t v) {
  PutU16(b, at, static_cast<uint16_t>(v & 0xFFFF));
  PutU16(b, at + 2, static_cast<uint16_t>(v >> 16));
}

TEST(ApkManifestTest, AaptManifestUtf16) {
  auto m = ParseApkManifest(ReadTestData("apk/app_aapt.manifest.bin"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->package, "com.example.app");
  EXPECT_EQ(m->version_code, 42);
  EXPECT_EQ(m->version_name, std::optional<std::string>("1.2.3-nightly"));
  EXPECT_EQ(m->min_sdk, 24);
  EXPECT_EQ(m->target_sdk, std::optional<int>(34));
  EXPECT_FALSE(m->sdk_codename);
  EXPECT_FALSE(m->split);
}

TEST(ApkManifestTest, Aapt2WritesTheSameManifest) {
  auto a = ParseApkManifest(ReadTestData("apk/app_aapt.manifest.bin"));
  auto b = ParseApkManifest(ReadTestData("apk/app_aapt2.manifest.bin"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->package, b->package);
  EXPECT_EQ(a->version_code, b->version_code);
  EXPECT_EQ(a->version_name, b->version_name);
  EXPECT_EQ(a->min_sdk, b->min_sdk);
  EXPECT_EQ(a->target_sdk, b->target_sdk);
}

// PackageInfo.composeLongVersionCode: major << 32 | (code & 0xffffffff).
TEST(ApkManifestTest, VersionCodeMajorMakesTheLongVersionCode) {
  auto m = ParseApkManifest(ReadTestData("apk/major_aapt2.manifest.bin"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->package, "org.example.major");
  EXPECT_EQ(m->version_code, (int64_t{3} << 32) | 7);
  EXPECT_EQ(m->version_name, std::optional<std::string>("2026.11 \xE2\x98\x85"));  // ★
  EXPECT_EQ(m->min_sdk, 21);
  EXPECT_EQ(m->target_sdk, std::optional<int>(35));
}

TEST(ApkManifestTest, SplitApkNamesItsSplitAndHasNoUsesSdk) {
  auto m = ParseApkManifest(ReadTestData("apk/split_aapt2.manifest.bin"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->package, "com.example.app");
  EXPECT_EQ(m->split, std::optional<std::string>("config.arm64_v8a"));
  EXPECT_EQ(m->version_code, 42);
  EXPECT_EQ(m->min_sdk, 1);  // no <uses-sdk>: what the platform assumes
  EXPECT_FALSE(m->target_sdk);
}

// A preview SDK's codename in place of a number; a versionName that is @string/… (resolved only
// through resources.arsc, so not given); versionCode written in hex.
TEST(ApkManifestTest, CodenameReferenceAndHexVersionCode) {
  auto m = ParseApkManifest(ReadTestData("apk/preview_aapt2.manifest.bin"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->package, "com.example.preview");
  EXPECT_EQ(m->version_code, 0x7fffffff);
  EXPECT_FALSE(m->version_name);
  EXPECT_EQ(m->sdk_codename, std::optional<std::string>("VanillaIceCream"));
  EXPECT_EQ(m->min_sdk, 1);
  EXPECT_FALSE(m->target_sdk);  // absent: minSdkVersion's, a codename
}

TEST(BinaryXmlTest, ElementsAttributesAndResourceIds) {
  auto doc = ParseBinaryXml(ReadTestData("apk/app_aapt.manifest.bin"));
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->size(), 4u);  // manifest, uses-sdk, application, activity
  EXPECT_EQ((*doc)[0].name, "manifest");
  EXPECT_EQ((*doc)[0].depth, 0);
  EXPECT_EQ((*doc)[1].name, "uses-sdk");
  EXPECT_EQ((*doc)[1].depth, 1);
  EXPECT_EQ((*doc)[3].name, "activity");
  EXPECT_EQ((*doc)[3].depth, 2);
  bool saw_name = false;
  for (const BinaryXmlAttribute& a : (*doc)[3].attributes) {
    if (a.resource_id != 0x01010003) continue;  // android:name
    saw_name = true;
    EXPECT_EQ(a.ns, "http://schemas.android.com/apk/res/android");
    EXPECT_EQ(a.name, "name");
    EXPECT_EQ(a.string, std::optional<std::string>(".MainActivity"));
  }
  EXPECT_TRUE(saw_name);
}

// aapt2 writes res/xml files with a UTF-8 string pool (ResStringPool_header::UTF8_FLAG).
TEST(BinaryXmlTest, Utf8StringPool) {
  const std::string bytes = ReadTestData("apk/prefs_aapt2.xml.bin");
  ASSERT_GE(bytes.size(), 28u);
  ASSERT_EQ(static_cast<uint8_t>(bytes[25]) & 0x01, 0x01) << "not a UTF-8 pool";
  auto doc = ParseBinaryXml(bytes);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->size(), 2u);
  EXPECT_EQ((*doc)[1].name, "CheckBoxPreference");
  std::string key;
  std::string title;
  for (const BinaryXmlAttribute& a : (*doc)[1].attributes) {
    if (a.name == "key" && a.string) key = *a.string;
    if (a.name == "title" && a.string) title = *a.string;
  }
  EXPECT_EQ(key, "na\xC3\xAFve \xE2\x98\x85");
  EXPECT_EQ(title,
            "\xC3\x9Cn\xC3\xAF"
            "c\xC3\xB6"
            "d\xC3\xA9");
}

TEST(BinaryXmlTest, TextXmlAndZipAreNotBinaryXml) {
  auto text = ParseBinaryXml("<?xml version=\"1.0\"?><manifest/>");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ParseErrorCode::kNotThisFormat);
  auto zip = ParseApkManifest(ReadTestData("apk/app_aapt.apk"));
  ASSERT_FALSE(zip.ok());
  EXPECT_EQ(zip.error().code, ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParseBinaryXml("").error().code, ParseErrorCode::kEmpty);
}

TEST(ApkManifestTest, AnotherBinaryXmlIsNotAManifest) {
  auto m = ParseApkManifest(ReadTestData("apk/prefs_aapt2.xml.bin"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ParseErrorCode::kNotThisFormat);
  EXPECT_NE(m.error().message.find("<PreferenceScreen>"), std::string::npos) << m.error().message;
}

// Every prefix of a real manifest is refused cleanly (the document's size says more bytes).
TEST(BinaryXmlTest, EveryTruncationIsAnError) {
  const std::string bytes = ReadTestData("apk/app_aapt2.manifest.bin");
  for (size_t n = 1; n < bytes.size(); ++n) {
    auto doc = ParseBinaryXml(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(doc.ok()) << n;
  }
}

// Counts and offsets that lie are errors, not reads past the buffer (run under ASan in CI).
TEST(BinaryXmlTest, LyingCountsAndOffsetsAreMalformed) {
  const std::string good = ReadTestData("apk/app_aapt2.manifest.bin");
  ASSERT_TRUE(ParseBinaryXml(good).ok());
  // The string pool starts at byte 8: its stringCount at 16, stringsStart at 28.
  std::string many = good;
  PutU32(many, 16, 0x10000000);
  EXPECT_EQ(ParseBinaryXml(many).error().code, ParseErrorCode::kMalformed);
  std::string far = good;
  PutU32(far, 28, 0xFFFFFF00);
  EXPECT_EQ(ParseBinaryXml(far).error().code, ParseErrorCode::kMalformed);
  // A string's first offset pointing at the pool's last bytes: its length runs past the pool.
  std::string cut = good;
  const uint32_t pool_size = static_cast<uint8_t>(good[12]) | static_cast<uint8_t>(good[13]) << 8;
  const uint32_t strings_start = static_cast<uint8_t>(good[28]) | static_cast<uint8_t>(good[29])
                                                                      << 8;
  PutU32(cut, 8 + 28, pool_size - strings_start - 1);
  EXPECT_FALSE(ParseBinaryXml(cut).ok());
  // The document's own size larger than the bytes given.
  std::string longer = good;
  PutU32(longer, 4, static_cast<uint32_t>(good.size() + 4));
  EXPECT_EQ(ParseBinaryXml(longer).error().code, ParseErrorCode::kMalformed);
}

}  // namespace
}  // namespace droidlab::parsers
