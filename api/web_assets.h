// The dashboard's static files (api/web/ and Debian's Chart.js), embedded in the binary at build
// time by cmake/EmbedFiles.cmake, so the daemon serves them with no file on disk to find; their
// Content-Type by extension.
//
// Threading: immutable data; safe from any thread.
#pragma once

#include <span>
#include <string_view>

#include "base/embedded_file.h"

namespace droidlab::api {

struct WebAsset {
  std::string_view path;          // the URL path: "/", "/ui/app.js", "/ui/chart.min.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8", ...
  std::string_view body;
};

// The embedded files as the build wrote them, named by URL path (generated source).
std::span<const EmbeddedFile> WebFiles();

// Every dashboard file with its Content-Type.
std::span<const WebAsset> WebAssets();

// The file served at `path`, or null.
const WebAsset* FindWebAsset(std::string_view path);

// The Content-Security-Policy the dashboard's pages are served with: nothing but this daemon
// (scripts, styles, images, fetches, the event stream), no framing.
inline constexpr std::string_view kDashboardCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

}  // namespace droidlab::api
