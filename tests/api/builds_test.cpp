// POST/GET/DELETE /api/v1/builds (issue 14 §1) over real HTTP, with a real store and the builds
// library on a real directory: the APK streamed to disk and hashed as it comes, its manifest read
// before anything is kept, a file that is not an APK refused with nothing left behind, the same
// bytes kept once. APKs: tests/data/apk (made by aapt/aapt2, see its README).
#include <openssl/evp.h>
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/api/api_server_fixture.h"
#include "tests/common/test_data.h"
#include "tests/common/wait_until.h"

namespace droidlab::api {
namespace {

namespace fs = std::filesystem;

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr);
  std::string hex;
  char two[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Upload(const std::string& bytes, const std::string& name = "app.apk",
                   const std::string& content_type = "application/vnd.android.package-archive") {
  return "POST /api/v1/builds HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + content_type +
         "\r\nX-File-Name: " + name + "\r\nContent-Length: " + std::to_string(bytes.size()) +
         "\r\nConnection: close\r\n\r\n" + bytes;
}

class BuildsTest : public ApiTest {
 protected:
  Response Send(const std::string& request) {
    RawClient client(port_);
    EXPECT_TRUE(client.connected());
    client.Send(request);
    auto responses = client.Read(1);
    EXPECT_EQ(responses.size(), 1u) << client.raw();
    return responses.empty() ? Response{} : responses[0];
  }
  // What the builds directory holds besides incoming/, and what incoming/ holds.
  std::vector<std::string> Kept() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_.File("builds"))) {
      if (e.path().filename() != "incoming") names.push_back(e.path().filename().string());
    }
    return names;
  }
  size_t Incoming() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_.File("builds/incoming"))) ++n;
    return n;
  }
};

TEST_F(BuildsTest, AnApkIsKeptOnceUnderItsHashWithWhatItsManifestSays) {
  Start();
  const std::string apk = testutil::ReadTestData("apk/app_aapt2.apk");
  const std::string sha = Sha256Hex(apk);
  auto created = Send(Upload(apk, "nightly.apk"));
  ASSERT_EQ(created.status, 201) << created.body;
  const Json b = Json::parse(created.body);
  // tests/data/apk/src/app.xml: com.example.app 1.2.3-nightly (42), SDK 24..34.
  EXPECT_EQ(b["package"], "com.example.app");
  EXPECT_EQ(b["version_code"], 42);
  EXPECT_EQ(b["version_name"], "1.2.3-nightly");
  EXPECT_EQ(b["min_sdk"], 24);
  EXPECT_EQ(b["target_sdk"], 34);
  EXPECT_EQ(b["sha256"], sha);
  EXPECT_EQ(b["size"], static_cast<int64_t>(apk.size()));
  EXPECT_EQ(b["signature"], nullptr);  // unsigned
  EXPECT_EQ(b["files"], Json::parse(R"([{"name":"nightly.apk","sha256":")" + sha +
                                    R"(","size":)" + std::to_string(apk.size()) + "}]"));
  // The file on disk is the upload, byte for byte.
  EXPECT_EQ(ReadFile(dir_.File("builds/" + sha + ".apk")), apk);
  EXPECT_EQ(Incoming(), 0u);

  auto again = Send(Upload(apk, "again.apk"));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(Json::parse(again.body)["id"], b["id"]);
  EXPECT_EQ(Kept(), std::vector<std::string>{sha + ".apk"});

  const std::string id = std::to_string(b["id"].get<int64_t>());
  auto one = Call("GET", "/api/v1/builds/" + id);
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(Json::parse(one.body), b);
  auto list = Json::parse(Call("GET", "/api/v1/builds").body);
  ASSERT_EQ(list["builds"].size(), 1u);
  EXPECT_EQ(list["builds"][0]["id"], b["id"]);
}

// A signed APK (apksigner, tests/data/apk/README.md): its signer as `dumpsys package` prints it,
// the value Java computed for the test key; the same APK signed by another key is another build
// with another signature.
TEST_F(BuildsTest, ASignedApkKeepsItsSigner) {
  Start();
  auto signed_build = Send(Upload(testutil::ReadTestData("apk/signed_v2v3.apk"), "signed.apk"));
  ASSERT_EQ(signed_build.status, 201) << signed_build.body;
  std::string java_hash = testutil::ReadTestData("apk/testkey.hashcode.txt");
  java_hash.pop_back();
  EXPECT_EQ(Json::parse(signed_build.body)["signature"], java_hash);
  auto other = Send(Upload(testutil::ReadTestData("apk/otherkey_v2v3.apk"), "other.apk"));
  ASSERT_EQ(other.status, 201) << other.body;
  std::string other_hash = testutil::ReadTestData("apk/otherkey.hashcode.txt");
  other_hash.pop_back();
  EXPECT_EQ(Json::parse(other.body)["signature"], other_hash);
  const std::string id = std::to_string(Json::parse(signed_build.body)["id"].get<int64_t>());
  EXPECT_EQ(Json::parse(Call("GET", "/api/v1/builds/" + id).body)["signature"], java_hash);
}

TEST_F(BuildsTest, WhatIsNotAnApkIsRefusedAndNothingIsKept) {
  Start();
  auto text = Send(Upload("this is not a zip archive\n", "notes.txt"));
  EXPECT_EQ(text.status, 400);
  EXPECT_NE(text.body.find("notes.txt: not an APK"), std::string::npos) << text.body;
  EXPECT_EQ(text.body.find("incoming"), std::string::npos) << text.body;  // no spool path
  // A split alone is not a build.
  auto split = Send(Upload(testutil::ReadTestData("apk/split_aapt2.apk"), "split.apk"));
  EXPECT_EQ(split.status, 400);
  EXPECT_NE(split.body.find("is not a build by itself"), std::string::npos) << split.body;
  EXPECT_TRUE(Kept().empty());
  EXPECT_EQ(Incoming(), 0u);
  EXPECT_EQ(Json::parse(Call("GET", "/api/v1/builds").body)["builds"].size(), 0u);
}

// Bigger than any JSON body may be (max_body), in small reads: streamed, not refused.
TEST_F(BuildsTest, AnUploadLargerThanABodyIsStreamedToDisk) {
  ServerOptions options;
  options.max_body = 64 * 1024;
  options.upload_chunk = 16 * 1024;
  Start(options);
  const std::string path = dir_.File("big.apk");
  std::ofstream(path, std::ios::binary) << testutil::ReadTestData("apk/app_aapt2.apk");
  std::string filler(3 << 20, '\0');
  std::mt19937 rng(7);
  for (char& c : filler) c = static_cast<char>(rng());
  int error = 0;
  zip_t* z = zip_open(path.c_str(), 0, &error);
  ASSERT_NE(z, nullptr);
  zip_source_t* src = zip_source_buffer(z, filler.data(), filler.size(), 0);
  const zip_int64_t index = zip_file_add(z, "assets/filler.bin", src, ZIP_FL_OVERWRITE);
  ASSERT_GE(index, 0);
  zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
  ASSERT_EQ(zip_close(z), 0);
  const std::string apk = ReadFile(path);
  ASSERT_GT(apk.size(), 3u << 20);
  auto created = Send(Upload(apk));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Json::parse(created.body)["sha256"], Sha256Hex(apk));
  EXPECT_EQ(Json::parse(created.body)["size"], static_cast<int64_t>(apk.size()));
  // Every other route still holds its body to max_body.
  auto runs = Call("POST", "/api/v1/runs", std::string(70 * 1024, ' '));
  EXPECT_EQ(runs.status, 413);
}

TEST_F(BuildsTest, AnUploadNeedsALengthAndNoParts) {
  Start();
  auto chunked = Send(
      "POST /api/v1/builds HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.status, 411) << chunked.body;
  auto parts = Send(Upload("--x\r\n\r\n--x--\r\n", "a.apk", "multipart/form-data; boundary=x"));
  EXPECT_EQ(parts.status, 415) << parts.body;
  EXPECT_EQ(Incoming(), 0u);
}

// A client that goes away mid-upload leaves nothing behind.
TEST_F(BuildsTest, AnUploadCutOffLeavesNothing) {
  Start();
  const std::string apk = testutil::ReadTestData("apk/app_aapt2.apk");
  {
    RawClient client(port_);
    ASSERT_TRUE(client.connected());
    std::string request = Upload(apk);
    request.resize(request.size() - apk.size() / 2);
    client.Send(request);
    EXPECT_TRUE(testutil::WaitUntil([&] { return Incoming() == 1; }, milliseconds(5000)));
  }
  EXPECT_TRUE(testutil::WaitUntil([&] { return Incoming() == 0; }, milliseconds(5000)));
  EXPECT_TRUE(Kept().empty());
}

TEST_F(BuildsTest, DeleteRemovesTheRowAndTheFile) {
  Start();
  const std::string apk = testutil::ReadTestData("apk/app_aapt.apk");
  auto created = Send(Upload(apk));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = std::to_string(Json::parse(created.body)["id"].get<int64_t>());
  auto deleted = Call("DELETE", "/api/v1/builds/" + id);
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_TRUE(Kept().empty());
  EXPECT_EQ(Call("GET", "/api/v1/builds/" + id).status, 404);
  EXPECT_EQ(Call("DELETE", "/api/v1/builds/" + id).status, 404);
  EXPECT_EQ(Call("DELETE", "/api/v1/builds/x").status, 404);
}

// A build named by a queued or running run is not deleted (409) until the run ends; a run may
// name only a kept build of its own package.
TEST_F(BuildsTest, ABuildInUseIsNotDeleted) {
  Start();
  auto created = Send(Upload(testutil::ReadTestData("apk/app_aapt.apk")));
  ASSERT_EQ(created.status, 201) << created.body;
  const int64_t id = Json::parse(created.body)["id"].get<int64_t>();
  const std::string body = R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold",)"
                           R"("iterations":1,"build":)" + std::to_string(id) + "}";
  auto run = Call("POST", "/api/v1/runs", body);
  ASSERT_EQ(run.status, 201) << run.body;
  const std::string run_id = std::to_string(Json::parse(run.body)["id"].get<int64_t>());
  auto refused = Call("DELETE", "/api/v1/builds/" + std::to_string(id));
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_NE(refused.body.find("used by 1 queued or running run"), std::string::npos) << refused.body;
  EXPECT_EQ(Kept().size(), 1u);
  ASSERT_EQ(Call("DELETE", "/api/v1/runs/" + run_id).status, 200);
  EXPECT_TRUE(testutil::WaitUntil(
      [&] { return Call("DELETE", "/api/v1/builds/" + std::to_string(id)).status == 200; },
      milliseconds(5000)));
  EXPECT_TRUE(Kept().empty());

  auto missing = Call("POST", "/api/v1/runs",
                      R"({"serial":"R58M123ABC","package":"com.example.app","mode":"cold",)"
                      R"("iterations":1,"build":99})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_NE(missing.body.find("build: no build 99"), std::string::npos) << missing.body;
}

}  // namespace
}  // namespace droidlab::api
