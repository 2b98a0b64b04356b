// `droidlab build add FILE…`: which files make one build. Each file's manifest is read (package,
// versionCode, split); the APKs of one package and versionCode given together are one build (its
// base APK and split APKs), and a .dm goes with the APK of the same base name (app.dm beside
// app.apk, as Android pairs them). A group of one APK is uploaded as the body, as before; a
// group of several as one multipart/form-data upload, which the daemon checks as a whole (one
// base, its splits). Groups keep the order of their first file on the command line.
// Blocking file reads (the command line's own thread).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace droidlab::daemon {

// A file whose manifest cannot be read is a group of its own (the daemon then says why it is no
// APK, as for any upload). Error, one line naming the file: a .dm has no APK of its base name
// among the files.
BasicResult<std::vector<std::vector<std::string>>, std::string> GroupBuildFiles(
    const std::vector<std::string>& files);

// "base.apk + split.apk + app.dm": a group's file names, for messages.
std::string JoinedNames(const std::vector<std::string>& files);

}  // namespace droidlab::daemon
