// libFuzzer target for ParseBinaryXml and ParseApkManifest (Android binary XML from an APK an
// operator uploads: untrusted bytes). Invariants: no read outside the input (ASan), an error
// has a message, a manifest has a package, elements' depths start at 0 and grow by at most 1.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/apk_manifest.h"
#include "parsers/binary_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto doc = droidlab::parsers::ParseBinaryXml(input);
  if (!doc.ok()) {
    if (doc.error().message.empty()) std::abort();
  } else {
    if (doc->empty() || doc->front().depth != 0) std::abort();
    for (size_t i = 1; i < doc->size(); ++i) {
      if ((*doc)[i].depth > (*doc)[i - 1].depth + 1 || (*doc)[i].depth < 0) std::abort();
    }
  }
  auto manifest = droidlab::parsers::ParseApkManifest(input);
  if (!manifest.ok()) {
    if (manifest.error().message.empty()) std::abort();
    return 0;
  }
  if (!doc.ok() || manifest->package.empty()) std::abort();
  return 0;
}
