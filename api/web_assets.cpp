#include "api/web_assets.h"

#include <vector>

namespace droidlab::api {

namespace {

std::string_view ContentTypeOf(std::string_view path) {
  if (path == "/" || path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js") || path.ends_with(".mjs")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  if (path.ends_with(".svg")) return "image/svg+xml";
  if (path.ends_with(".json")) return "application/json";
  return "application/octet-stream";
}

}  // namespace

std::span<const WebAsset> WebAssets() {
  static const std::vector<WebAsset> kAssets = [] {
    std::vector<WebAsset> assets;
    for (const EmbeddedFile& file : WebFiles()) {
      assets.push_back(WebAsset{file.name, ContentTypeOf(file.name), file.bytes});
    }
    return assets;
  }();
  return kAssets;
}

const WebAsset* FindWebAsset(std::string_view path) {
  for (const WebAsset& asset : WebAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

}  // namespace droidlab::api
