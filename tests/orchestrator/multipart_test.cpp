// The multipart/form-data reader (RFC 7578, RFC 2046 §5.1) of a build's upload, fed at every
// split point and one byte at a time, its refusals, and the build files' checks
// (PackageInstallerSession.validateApkInstallLocked's rules, said before any phone sees them).
#include "orchestrator/builds/multipart.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::orchestrator {
namespace {

struct Collected {
  std::vector<MultipartPart> parts;
  std::vector<std::string> bodies;
  int ended = 0;
};

MultipartReader::Sink Collect(Collected& out) {
  return {[&out](const MultipartPart& p) {
            out.parts.push_back(p);
            out.bodies.emplace_back();
          },
          [&out](std::string_view bytes) { out.bodies.back().append(bytes); },
          [&out] { ++out.ended; }};
}

constexpr char kBoundary[] = "droidlab-7e3f";

// What curl -F 'file=@base.apk' -F 'file=@base.dm' sends (headers as curl 7.88 writes them),
// with bodies that hold CR, LF and a near-delimiter.
std::string TwoFileBody() {
  return std::string("--droidlab-7e3f\r\n") +
         "Content-Disposition: form-data; name=\"file\"; filename=\"base.apk\"\r\n" +
         "Content-Type: application/vnd.android.package-archive\r\n\r\n" +
         "PK\x03\x04\r\n--droidlab-7e3\r\nzz" + "\r\n--droidlab-7e3f\r\n" +
         "Content-Disposition: form-data; name=\"file\"; filename=\"base.dm\"\r\n\r\n" +
         "\r\n\r\n" + "\r\n--droidlab-7e3f--\r\n";
}

void ExpectTwoFiles(const Collected& c) {
  ASSERT_EQ(c.parts.size(), 2u);
  EXPECT_EQ(c.parts[0].name, "file");
  EXPECT_EQ(c.parts[0].filename, std::optional<std::string>("base.apk"));
  EXPECT_EQ(c.parts[0].content_type, "application/vnd.android.package-archive");
  EXPECT_EQ(c.bodies[0], std::string("PK\x03\x04\r\n--droidlab-7e3\r\nzz"));
  EXPECT_EQ(c.parts[1].filename, std::optional<std::string>("base.dm"));
  EXPECT_EQ(c.parts[1].content_type, "");
  EXPECT_EQ(c.bodies[1], "\r\n\r\n");
  EXPECT_EQ(c.ended, 2);
}

TEST(MultipartTest, EverySplitPointGivesTheSameParts) {
  const std::string body = TwoFileBody();
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    Collected c;
    MultipartReader reader(kBoundary, {}, Collect(c));
    ASSERT_FALSE(reader.Feed(std::string_view(body).substr(0, cut))) << cut;
    ASSERT_FALSE(reader.Feed(std::string_view(body).substr(cut))) << cut;
    ASSERT_FALSE(reader.Finish()) << cut;
    ExpectTwoFiles(c);
  }
}

TEST(MultipartTest, OneByteAtATime) {
  const std::string body = "preamble to ignore\r\n" + TwoFileBody() + "epilogue";
  Collected c;
  MultipartReader reader(kBoundary, {}, Collect(c));
  for (const char byte : body) ASSERT_FALSE(reader.Feed(std::string_view(&byte, 1)));
  ASSERT_FALSE(reader.Finish());
  ExpectTwoFiles(c);
  EXPECT_EQ(reader.parts(), 2u);
}

TEST(MultipartTest, BoundaryFromTheContentType) {
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=droidlab-7e3f"), "droidlab-7e3f");
  EXPECT_EQ(*MultipartBoundary("Multipart/Form-Data;boundary=\"a b:c\""), "a b:c");
  EXPECT_EQ(
      *MultipartBoundary(
          "multipart/form-data; charset=utf-8; boundary=------------------------d74496d66958873e"),
      "------------------------d74496d66958873e");
  EXPECT_FALSE(MultipartBoundary("application/vnd.android.package-archive").ok());
  EXPECT_FALSE(MultipartBoundary("multipart/form-data").ok());  // missing boundary
  EXPECT_FALSE(MultipartBoundary("multipart/form-data; boundary=").ok());
  EXPECT_FALSE(MultipartBoundary("multipart/form-data; boundary=\"unclosed").ok());
  EXPECT_FALSE(MultipartBoundary("multipart/form-data; boundary=" + std::string(71, 'a')).ok());
}

struct BadBody {
  const char* name;
  std::string body;
  const char* says;  // a part of the error
};

class MultipartBadBodyTest : public ::testing::TestWithParam<BadBody> {};

TEST_P(MultipartBadBodyTest, IsRefusedSayingWhy) {
  Collected c;
  MultipartLimits limits;
  limits.max_parts = 2;
  limits.max_header_bytes = 200;
  MultipartReader reader(kBoundary, limits, Collect(c));
  std::optional<std::string> error = reader.Feed(GetParam().body);
  if (!error) error = reader.Finish();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find(GetParam().says), std::string::npos) << *error;
}

const std::string kPartHead =
    "--droidlab-7e3f\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.apk\"\r\n\r\n";

INSTANTIATE_TEST_SUITE_P(
    Bodies, MultipartBadBodyTest,
    ::testing::Values(
        BadBody{"NoBoundaryLine", "just bytes\r\n", "no multipart boundary line"},
        BadBody{"Empty", "", "no multipart boundary line"},
        BadBody{"TruncatedPart", kPartHead + "PK\x03\x04 and then nothing", "cut short"},
        BadBody{"TruncatedHeaders", "--droidlab-7e3f\r\nContent-Disposition: form-da",
                "cut short in its headers"},
        BadBody{"NoClosingBoundary", kPartHead + "x\r\n--droidlab-7e3f", "without its closing"},
        BadBody{"CloseBeforeAnyPart", "--droidlab-7e3f--\r\n", "before any part"},
        BadBody{"TooManyParts",
                kPartHead + "1\r\n" + kPartHead + "2\r\n" + kPartHead + "3\r\n--droidlab-7e3f--",
                "more than 2 parts"},
        BadBody{"HeadersTooLong", "--droidlab-7e3f\r\nX-Pad: " + std::string(400, 'p') + "\r\n\r\n",
                "longer than"},
        BadBody{"NotFormData",
                "--droidlab-7e3f\r\nContent-Disposition: attachment\r\n\r\nx\r\n--droidlab-7e3f--",
                "form-data"},
        BadBody{"NoDisposition", "--droidlab-7e3f\r\nContent-Type: text/plain\r\n\r\nx",
                "form-data"},
        BadBody{"JunkAfterBoundary", "--droidlab-7e3fXY\r\n", "other than a line end"}),
    [](const auto& c) { return std::string(c.param.name); });

// ---- CheckBuildFiles ----

BuildFileFacts Apk(std::string name, std::optional<std::string> split,
                   std::string package = "com.example.app", int64_t version_code = 42) {
  return {std::move(name), false, std::move(package), version_code, std::move(split)};
}
BuildFileFacts Dm(std::string name) { return {std::move(name), true, "", 0, std::nullopt}; }

TEST(BuildFilesTest, BaseSplitsAndItsDm) {
  auto base = CheckBuildFiles({Apk("split.apk", "config.arm64_v8a"), Apk("app.apk", std::nullopt),
                               Apk("cam.apk", "feature_camera"), Dm("app.dm")});
  ASSERT_TRUE(base.ok()) << base.error();
  EXPECT_EQ(*base, 1u);
  EXPECT_EQ(*CheckBuildFiles({Apk("app.apk", std::nullopt)}), 0u);
}

struct BadFiles {
  const char* name;
  std::vector<BuildFileFacts> files;
  const char* says;
};

class BuildFilesRefusalTest : public ::testing::TestWithParam<BadFiles> {};

TEST_P(BuildFilesRefusalTest, SaysWhy) {
  auto r = CheckBuildFiles(GetParam().files);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(GetParam().says), std::string::npos) << r.error();
}

INSTANTIATE_TEST_SUITE_P(
    Files, BuildFilesRefusalTest,
    ::testing::Values(
        BadFiles{"None", {}, "no file"},
        BadFiles{"NoBase", {Apk("split.apk", "config.arm64_v8a")}, "no base APK"},
        BadFiles{"TwoBases",
                 {Apk("a.apk", std::nullopt), Apk("b.apk", std::nullopt)},
                 "two base APKs: a.apk and b.apk"},
        BadFiles{"OtherPackage",
                 {Apk("a.apk", std::nullopt), Apk("s.apk", "config.xxhdpi", "com.example.other")},
                 "s.apk is a split of com.example.other, not of com.example.app"},
        BadFiles{"OtherVersionCode",
                 {Apk("a.apk", std::nullopt), Apk("s.apk", "config.xxhdpi", "com.example.app", 43)},
                 "versionCode 43, the base 42"},
        BadFiles{"SplitTwice",
                 {Apk("a.apk", std::nullopt), Apk("s.apk", "config.x"), Apk("t.apk", "config.x")},
                 "split config.x is given twice"},
        BadFiles{"DmWithoutItsApk",
                 {Apk("a.apk", std::nullopt), Dm("app.dm")},
                 "app.dm has no APK of the same name"},
        BadFiles{"DmAlone", {Dm("app.dm")}, "no base APK"}),
    [](const auto& c) { return std::string(c.param.name); });

}  // namespace
}  // namespace droidlab::orchestrator
