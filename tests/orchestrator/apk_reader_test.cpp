// ReadApkManifest on real APK files (tests/data/apk/, built by Debian's aapt and aapt2) and on
// archives made here with libzip: not a zip, no manifest, a damaged archive, a package name
// that could not be named in a device command.
#include "orchestrator/builds/apk_reader.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

using testutil::ReadTestData;
using testutil::TempDir;
using testutil::WriteFileBytes;

// A zip at `path` holding `entries` (name, bytes), written by libzip.
void MakeZip(const std::string& path,
             const std::vector<std::pair<std::string, std::string>>& entries) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr) << error;
  for (const auto& [name, bytes] : entries) {
    zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    ASSERT_NE(source, nullptr);
    ASSERT_GE(zip_file_add(archive, name.c_str(), source, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(archive), 0);  // the buffers are read here: `entries` outlives it
}

std::string Written(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.File(name);
  WriteFileBytes(path, bytes);
  return path;
}

TEST(ApkReaderTest, ReadsTheManifestOfAnAaptApk) {
  TempDir dir;
  auto m = ReadApkManifest(Written(dir, "app.apk", ReadTestData("apk/app_aapt.apk")));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->package, "com.example.app");
  EXPECT_EQ(m->version_code, 42);
  EXPECT_EQ(m->version_name, std::optional<std::string>("1.2.3-nightly"));
  EXPECT_EQ(m->min_sdk, 24);
  EXPECT_EQ(m->target_sdk, std::optional<int>(34));
}

TEST(ApkReaderTest, ReadsAnAapt2ApkWithResourcesAndASplit) {
  TempDir dir;
  auto major = ReadApkManifest(Written(dir, "major.apk", ReadTestData("apk/major_aapt2.apk")));
  ASSERT_TRUE(major.ok()) << major.error();
  EXPECT_EQ(major->version_code, (int64_t{3} << 32) | 7);
  auto split = ReadApkManifest(Written(dir, "split.apk", ReadTestData("apk/split_aapt2.apk")));
  ASSERT_TRUE(split.ok()) << split.error();
  EXPECT_EQ(split->split, std::optional<std::string>("config.arm64_v8a"));
  auto prefs = ReadApkManifest(Written(dir, "prefs.apk", ReadTestData("apk/prefs_aapt2.apk")));
  ASSERT_TRUE(prefs.ok()) << prefs.error();
  EXPECT_EQ(prefs->package, "com.example.app");
}

TEST(ApkReaderTest, ATextFileIsNotAnApk) {
  TempDir dir;
  const std::string path = Written(dir, "notes.apk", "this is not a zip archive\n");
  auto m = ReadApkManifest(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find(path + ": not an APK: not a zip archive"), std::string::npos)
      << m.error();
}

TEST(ApkReaderTest, AZipWithoutAManifestIsNotAnApk) {
  TempDir dir;
  const std::string path = dir.File("classes.zip");
  MakeZip(path, {{"classes.dex", "dex\n035"}, {"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"}});
  auto m = ReadApkManifest(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("no AndroidManifest.xml"), std::string::npos) << m.error();
}

// The first half of a real APK: the central directory, at the end, is gone.
TEST(ApkReaderTest, ACutShortApkIsRefused) {
  TempDir dir;
  const std::string whole = ReadTestData("apk/app_aapt2.apk");
  auto m = ReadApkManifest(Written(dir, "half.apk", whole.substr(0, whole.size() / 2)));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("not an APK"), std::string::npos) << m.error();
}

TEST(ApkReaderTest, AManifestThatIsTextXmlIsRefused) {
  TempDir dir;
  const std::string path = dir.File("text.apk");
  MakeZip(path, {{"AndroidManifest.xml", "<manifest package=\"com.example.app\"/>"}});
  auto m = ReadApkManifest(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("not Android binary XML"), std::string::npos) << m.error();
}

// A package that reaches `pm` argv later must be a package name: "com;example.app" (the real
// manifest's UTF-16 bytes changed in one place) is refused at the door.
TEST(ApkReaderTest, APackageNameThatIsNotOneIsRefused) {
  std::string manifest = ReadTestData("apk/app_aapt.manifest.bin");
  const std::string utf16_dot_example("m\0.\0e\0x\0", 8);
  const size_t at = manifest.find(utf16_dot_example);
  ASSERT_NE(at, std::string::npos);
  manifest[at + 2] = ';';
  TempDir dir;
  const std::string path = dir.File("bad.apk");
  MakeZip(path, {{"AndroidManifest.xml", manifest}});
  auto m = ReadApkManifest(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("com;example.app"), std::string::npos) << m.error();
}

TEST(ApkReaderTest, AMissingFileSaysSo) {
  TempDir dir;
  auto m = ReadApkManifest(dir.File("missing.apk"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("missing.apk: cannot open"), std::string::npos) << m.error();
}

}  // namespace
}  // namespace droidlab::orchestrator
