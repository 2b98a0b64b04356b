// A file embedded in the binary at build time by cmake/EmbedFiles.cmake (the dashboard's files,
// the OpenAPI document, the schema's migrations): its name as the build gave it and its bytes.
#pragma once

#include <string_view>

namespace droidlab {

struct EmbeddedFile {
  std::string_view name;   // the key the CMake list gave it: "/ui/app.js", "0001_init.sql"
  std::string_view bytes;  // the whole file, as on disk
};

}  // namespace droidlab
