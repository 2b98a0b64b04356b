// An APK file on disk, read before any phone sees it: a zip archive (libzip, from Debian's
// libzip-dev) whose AndroidManifest.xml is Android binary XML (parsers/apk_manifest.h). The
// package must be one droidlab can name in a device command (adb/names.h): a manifest's package
// reaches `pm`/`cmd package` argv later, so it is checked here, at the door.
//
// Blocking file I/O: call it from a worker thread, never an io_context thread.
#pragma once

#include <string>

#include "base/result.h"
#include "parsers/apk_manifest.h"

namespace droidlab::orchestrator {

// The most of AndroidManifest.xml read (a real one is a few KB to a few hundred; Android's own
// parser maps the whole file, but a lab daemon should not inflate a zip bomb into memory).
inline constexpr size_t kMaxManifestBytes = 8u << 20;

// The manifest of the APK at `path`. Errors, one line each, naming the file: it cannot be opened;
// it is not a zip archive ("not an APK: …"); it has no AndroidManifest.xml; the entry is larger
// than kMaxManifestBytes or cannot be inflated (a damaged archive); the manifest cannot be
// parsed (ParseApkManifest's message); its package is not a valid package name.
BasicResult<parsers::ApkManifest, std::string> ReadApkManifest(const std::string& path);

// A dex metadata file (.dm, Android 9+): a zip archive that holds the app's baseline profile as
// `primary.prof` (frameworks/base core/java/android/content/pm/dex/DexMetadataHelper.java;
// art/libartbase/base/zip_archive and the ART profile loader look for that entry). Nothing
// else of it is read. Errors, one line naming the file: it cannot be opened; it is not a zip
// archive; it holds no primary.prof.
BasicResult<void, std::string> CheckDexMetadata(const std::string& path);

}  // namespace droidlab::orchestrator
