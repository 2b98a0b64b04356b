// A multipart/form-data body (RFC 7578 on RFC 2046 §5.1), read as a stream: the upload of a
// build of several files (a base APK, its split APKs, a .dm) to POST /api/v1/builds. The body is
// spooled to disk first; this reader takes it in chunks of any size (down to one byte) and hands
// each part's headers and bytes on as they come, holding at most a chunk plus the delimiter's
// length, so a part is never held whole in memory.
//
//   Content-Type: multipart/form-data; boundary=droidlab-7e3f
//
//   --droidlab-7e3f\r\n
//   Content-Disposition: form-data; name="file"; filename="base.apk"\r\n
//   Content-Type: application/vnd.android.package-archive\r\n
//   \r\n
//   <the APK's bytes>\r\n
//   --droidlab-7e3f\r\n
//   ...
//   --droidlab-7e3f--\r\n
//
// Pure: no I/O, standard library only; one reader per body, used by one thread at a time.
// The build files' own checks (one base, splits of its package and versionCode, a .dm beside
// an APK) are CheckBuildFiles below, on what each part's manifest said.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace droidlab::orchestrator {

// Why a Content-Type gives no boundary (a type of its own: the value is a string too).
struct BoundaryError {
  std::string message;
};

// The boundary of a `multipart/form-data; boundary=…` Content-Type (token or quoted string,
// 1–70 characters: RFC 2046 §5.1.1). Errors: another media type, no boundary, a bad one.
BasicResult<std::string, BoundaryError> MultipartBoundary(std::string_view content_type);

struct MultipartLimits {
  size_t max_parts = 32;           // a base, its splits (tens at most) and a .dm
  size_t max_header_bytes = 8192;  // one part's header block
};

// One part's headers: Content-Disposition's name and filename (as sent, unchecked), and its
// Content-Type ("" when absent).
struct MultipartPart {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
};

class MultipartReader {
 public:
  struct Sink {
    std::function<void(const MultipartPart&)> begin;  // a part's headers, before its bytes
    std::function<void(std::string_view)> data;       // its bytes, in pieces
    std::function<void()> end;                        // its last byte was handed on
  };

  MultipartReader(std::string boundary, MultipartLimits limits, Sink sink);

  // Takes the next bytes of the body. Error (and the reader stops): a part's headers over the
  // limit or without Content-Disposition form-data, more parts than allowed, bytes that are not
  // a delimiter where one must be.
  std::optional<std::string> Feed(std::string_view bytes);
  // The body ended: an error unless the close delimiter (`--BOUNDARY--`) came (a body cut short,
  // a part never closed, no part at all).
  std::optional<std::string> Finish();

  size_t parts() const { return parts_; }

 private:
  enum class State { kPreamble, kAfterDelimiter, kHeaders, kBody, kEpilogue, kFailed };
  std::optional<std::string> Fail(std::string why);
  std::optional<std::string> Step(bool& progressed);

  std::string delimiter_;  // "\r\n--" + boundary
  MultipartLimits limits_;
  Sink sink_;
  State state_ = State::kPreamble;
  std::string buffer_;  // bytes not consumed yet
  size_t parts_ = 0;
};

// What one file of a build is, from its manifest (or a .dm's name): the input of CheckBuildFiles.
struct BuildFileFacts {
  std::string name;                  // as uploaded: "base.apk", "app.dm"
  bool dex_metadata = false;         // a .dm (no manifest)
  std::string package;               // APKs: the manifest's package
  int64_t version_code = 0;          // APKs: the long versionCode
  std::optional<std::string> split;  // APKs: the split's name; nullopt for the base
};

// A build's files together, as the package manager will take them in one session
// (PackageInstallerSession.validateApkInstallLocked): exactly one base APK; every split of the
// base's package and versionCode and named once; a .dm only with the APK of its base name
// (app.dm beside app.apk: DexMetadataHelper.findDexMetadataForFile). Returns the index of the
// base, or why not, in words for the uploader.
BasicResult<size_t, std::string> CheckBuildFiles(const std::vector<BuildFileFacts>& files);

// A file's name without its last extension: "base.apk" -> "base", "app.dm" -> "app" (a .dm
// belongs to the APK of the same stem, as the package manager pairs them).
std::string_view NameStem(std::string_view name);

}  // namespace droidlab::orchestrator
