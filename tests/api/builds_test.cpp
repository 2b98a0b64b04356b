// POST/GET/DELETE /api/v1/builds (issue 14 §1) over real HTTP, with a real store and the builds
// library on a real directory: the APK streamed to disk and hashed as it comes, its manifest read
// before anything is kept, a file that is not an APK refused with nothing left behind, the same
// bytes kept once. APKs: tests/data/apk (made by aapt/aapt2, see its README).
#include <openssl/evp.h>
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "orchestrator/builds/build_library.h"
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
  EXPECT_EQ(b["files"], Json::parse(R"([{"name":"nightly.apk","kind":"base","split":null,)"
                                    R"("sha256":")" + sha + R"(","size":)" +
                                    std::to_string(apk.size()) + "}]"));
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

// Bigger than any JSON body may be (max_body), in small reads: streamed, not refused; past the
// 8 MiB at which the library starts the file's writeback, written and hashed on two threads.
TEST_F(BuildsTest, AnUploadLargerThanABodyIsStreamedToDisk) {
  ServerOptions options;
  options.max_body = 64 * 1024;
  options.upload_chunk = 16 * 1024;
  Start(options);
  const std::string path = dir_.File("big.apk");
  std::ofstream(path, std::ios::binary) << testutil::ReadTestData("apk/app_aapt2.apk");
  std::string filler(9 << 20, '\0');
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
  ASSERT_GT(apk.size(), 9u << 20);
  auto created = Send(Upload(apk));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Json::parse(created.body)["sha256"], Sha256Hex(apk));
  EXPECT_TRUE(ReadFile(dir_.File("builds/" + Sha256Hex(apk) + ".apk")) == apk);
  EXPECT_EQ(Json::parse(created.body)["size"], static_cast<int64_t>(apk.size()));
  // Every other route still holds its body to max_body.
  auto runs = Call("POST", "/api/v1/runs", std::string(70 * 1024, ' '));
  EXPECT_EQ(runs.status, 413);
}

// The library's side of that stream: 100 chunks of 64 KiB, each filled in a buffer the upload
// gave (Buffer) and handed back to it (Write). The upload makes a few buffers and reuses them
// (memory flat: at most the writes in flight plus the one being filled), never one before both
// the file and the hash thread are done with it (the file and its SHA-256 are the bytes sent).
TEST_F(BuildsTest, AnUploadReusesAFewBuffers) {
  Start();
  constexpr size_t kChunk = 64 * 1024;
  std::string sent;
  std::set<const char*> seen;
  size_t made = 0;
  std::optional<orchestrator::SpooledFile> spooled;
  asio::io_context io;
  auto upload_all = [&]() -> asio::awaitable<void> {
    auto beginning = builds_->BeginUpload(kChunk);
    auto begun = co_await std::move(beginning);
    EXPECT_TRUE(begun) << begun.error();
    if (!begun) co_return;
    std::unique_ptr<orchestrator::BuildLibrary::Upload> upload = std::move(begun).value();
    std::mt19937 rng(11);
    for (int i = 0; i < 100; ++i) {
      orchestrator::UploadBuffer buffer = upload->Buffer();
      EXPECT_EQ(buffer.size(), 0u);
      EXPECT_EQ(buffer.capacity(), kChunk);
      seen.insert(buffer.data());
      const size_t n = i == 99 ? 1000 : kChunk;  // the last one partly filled
      for (size_t j = 0; j < n; ++j) buffer.data()[j] = static_cast<char>(rng());
      buffer.resize(n);
      sent.append(buffer.data(), n);
      auto writing = upload->Write(std::move(buffer));
      std::optional<std::string> error = co_await std::move(writing);
      EXPECT_EQ(error, std::nullopt);
    }
    auto finishing = upload->Finish();
    auto finished = co_await std::move(finishing);
    EXPECT_TRUE(finished) << finished.error();
    if (finished) spooled = *finished;
    made = upload->buffers_made();
  };
  asio::co_spawn(io, upload_all(), [](std::exception_ptr e) { EXPECT_FALSE(e); });
  io.run();
  ASSERT_TRUE(spooled);
  EXPECT_EQ(spooled->size, static_cast<int64_t>(sent.size()));
  EXPECT_EQ(spooled->sha256, Sha256Hex(sent));
  EXPECT_TRUE(ReadFile(spooled->path) == sent);
  EXPECT_GE(made, 1u);
  EXPECT_LE(made, 5u);  // four writes in flight, one being filled
  EXPECT_EQ(seen.size(), made);
  fs::remove(spooled->path);
}

TEST_F(BuildsTest, AnUploadNeedsALengthAndNoOtherMultipart) {
  Start();
  auto chunked = Send(
      "POST /api/v1/builds HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.status, 411) << chunked.body;
  auto mixed = Send(Upload("--x\r\n\r\n--x--\r\n", "a.apk", "multipart/mixed; boundary=x"));
  EXPECT_EQ(mixed.status, 415) << mixed.body;
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

// ---- A build of several files, as multipart/form-data (RFC 7578) ----
// tests/data/apk/README.md: app_aapt2.apk is com.example.app 42, split_aapt2.apk its
// config.arm64_v8a, split_feature_aapt2.apk its feature_camera, app_aapt2.dm its .dm.

struct FilePart {
  std::string name;  // the part's filename
  std::string bytes;
};

FilePart Fixture(const std::string& name, std::string as = "") {
  return {as.empty() ? name : as, testutil::ReadTestData("apk/" + name)};
}

// The body as curl -F 'file=@NAME' builds it.
std::string MultipartBody(const std::vector<FilePart>& parts, const std::string& boundary) {
  std::string body;
  for (const FilePart& p : parts) {
    body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" +
            p.name + "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + p.bytes + "\r\n";
  }
  return body + "--" + boundary + "--\r\n";
}

std::string MultipartUpload(const std::vector<FilePart>& parts) {
  const std::string boundary = "------------------------d74496d66958873e";
  return Upload(MultipartBody(parts, boundary), "", "multipart/form-data; boundary=" + boundary);
}

TEST_F(BuildsTest, BaseSplitsAndDmAreOneBuildEachFileKeptUnderItsHash) {
  Start();
  const std::vector<FilePart> parts = {Fixture("split_feature_aapt2.apk"),
                                       Fixture("app_aapt2.dm", "app.dm"),
                                       Fixture("app_aapt2.apk", "app.apk"),
                                       Fixture("split_aapt2.apk")};
  auto created = Send(MultipartUpload(parts));
  ASSERT_EQ(created.status, 201) << created.body;
  const Json b = Json::parse(created.body);
  EXPECT_EQ(b["package"], "com.example.app");
  EXPECT_EQ(b["version_code"], 42);
  int64_t total = 0;
  for (const auto& p : parts) total += static_cast<int64_t>(p.bytes.size());
  EXPECT_EQ(b["size"], total);
  // The base first, then the splits by name, then the .dm.
  ASSERT_EQ(b["files"].size(), 4u) << b.dump();
  const std::vector<std::pair<std::string, Json>> order = {
      {"app.apk", nullptr}, {"split_aapt2.apk", "config.arm64_v8a"},
      {"split_feature_aapt2.apk", "feature_camera"}, {"app.dm", nullptr}};
  const std::vector<std::string> kinds = {"base", "split", "split", "dm"};
  std::vector<std::string> kept;
  for (size_t i = 0; i < order.size(); ++i) {
    const Json& f = b["files"][i];
    EXPECT_EQ(f["name"], order[i].first);
    EXPECT_EQ(f["kind"], kinds[i]);
    EXPECT_EQ(f["split"], order[i].second);
    const auto part = std::find_if(parts.begin(), parts.end(),
                                   [&](const FilePart& p) { return p.name == order[i].first; });
    EXPECT_EQ(f["sha256"], Sha256Hex(part->bytes));
    EXPECT_EQ(f["size"], static_cast<int64_t>(part->bytes.size()));
    const std::string file = f["sha256"].get<std::string>() + (kinds[i] == "dm" ? ".dm" : ".apk");
    EXPECT_EQ(ReadFile(dir_.File("builds/" + file)), part->bytes);
    kept.push_back(file);
  }
  // The set's hash, not the base's: the base alone is another build.
  EXPECT_NE(b["sha256"], Sha256Hex(parts[2].bytes));
  EXPECT_EQ(Incoming(), 0u);
  auto again = Send(MultipartUpload(parts));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(Json::parse(again.body)["id"], b["id"]);

  // The base alone shares its file with the build of four: deleting that one keeps it.
  auto alone = Send(Upload(parts[2].bytes, "app.apk"));
  ASSERT_EQ(alone.status, 201) << alone.body;
  EXPECT_EQ(Kept().size(), 4u);
  const std::string id = std::to_string(b["id"].get<int64_t>());
  ASSERT_EQ(Call("DELETE", "/api/v1/builds/" + id).status, 200);
  EXPECT_EQ(Kept(), std::vector<std::string>{Sha256Hex(parts[2].bytes) + ".apk"});
  const std::string alone_id = std::to_string(Json::parse(alone.body)["id"].get<int64_t>());
  ASSERT_EQ(Call("DELETE", "/api/v1/builds/" + alone_id).status, 200);
  EXPECT_TRUE(Kept().empty());
}

struct MultipartRefusal {
  const char* name;
  std::string request;
  const char* says;
};

class MultipartRefusalTest : public BuildsTest,
                             public ::testing::WithParamInterface<MultipartRefusal> {};

TEST_P(MultipartRefusalTest, IsA400SayingWhyAndKeepsNothing) {
  Start();
  auto refused = Send(GetParam().request);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find(GetParam().says), std::string::npos) << refused.body;
  EXPECT_EQ(refused.body.find("incoming"), std::string::npos) << refused.body;
  EXPECT_TRUE(Kept().empty());
  EXPECT_EQ(Incoming(), 0u);
}

std::string Truncated() {
  std::string body = MultipartBody({Fixture("app_aapt2.apk")}, "b");
  body.resize(body.size() / 2);
  return Upload(body, "", "multipart/form-data; boundary=b");
}

std::string TooMany() {
  std::vector<FilePart> parts;
  for (int i = 0; i < 33; ++i) parts.push_back({"s" + std::to_string(i) + ".apk", "x"});
  return MultipartUpload(parts);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, MultipartRefusalTest,
    ::testing::Values(
        MultipartRefusal{"MissingBoundary",
                         Upload(MultipartBody({Fixture("app_aapt2.apk")}, "b"), "",
                                "multipart/form-data"),
                         "without a boundary"},
        MultipartRefusal{"Truncated", Truncated(), "cut short"},
        MultipartRefusal{"NoBase", MultipartUpload({Fixture("split_aapt2.apk")}), "no base APK"},
        MultipartRefusal{"TwoBases",
                         MultipartUpload({Fixture("app_aapt2.apk"), Fixture("app_aapt.apk")}),
                         "two base APKs: app_aapt2.apk and app_aapt.apk"},
        MultipartRefusal{"SplitOfAnotherPackage",
                         MultipartUpload({Fixture("app_aapt2.apk"),
                                          Fixture("split_other_package_aapt2.apk")}),
                         "is a split of com.example.other, not of com.example.app"},
        MultipartRefusal{"SplitOfAnotherVersion",
                         MultipartUpload({Fixture("app_aapt2.apk"),
                                          Fixture("split_other_version_aapt2.apk")}),
                         "has versionCode 43, the base 42"},
        MultipartRefusal{"DmWithoutItsApk",
                         MultipartUpload({Fixture("app_aapt2.apk"), Fixture("app_aapt2.dm", "other.dm")}),
                         "other.dm has no APK of the same name"},
        MultipartRefusal{"DmThatIsNoDm",
                         MultipartUpload({Fixture("app_aapt2.apk", "app.apk"),
                                          Fixture("app_aapt2.apk", "app.dm")}),
                         "app.dm: not a .dm: the archive has no primary.prof"},
        MultipartRefusal{"NotAnApk", MultipartUpload({{"notes.apk", "plain text\n"}}),
                         "notes.apk: not an APK"},
        MultipartRefusal{"TooManyParts", TooMany(), "more than 32 parts"}),
    [](const auto& c) { return std::string(c.param.name); });

}  // namespace
}  // namespace droidlab::api
