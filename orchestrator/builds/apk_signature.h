// Who signed an APK, as a phone's package manager will say it in `dumpsys package`: the hash of
// each signer's certificate (parsers::SignatureHashCodeHex), read from the scheme Android 9+
// verifies first — v3, else v2 (parsers/apk_signing_block.h: the APK Signing Block before the
// central directory), else v1 (JAR signing: META-INF/*.RSA|*.DSA|*.EC, a PKCS#7 SignedData whose
// signer certificate OpenSSL finds). An APK with none of them is unsigned: no signature, which a
// phone would refuse to install and which matches nothing installed.
//
// Which certificate (ApkSignatureVerifier, Android 9+): for each signer the first certificate of
// its chain. v3: the first signer (a v3 block with one signer per SDK range, or a v3.1 block
// aimed at Android 13+, may show another certificate on some phones: that reads as another
// signature, so the build is installed — never skipped by mistake). v2 and v1: every signer.
//
// Blocking file I/O: call it from a worker thread, never an io_context thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace droidlab::orchestrator {

struct ApkSignature {
  int scheme = 0;                   // 3, 2 or 1: where the certificates were read
  std::vector<std::string> hashes;  // per signer, as dumpsys prints them ("66ec38d")

  // As stored and shown: the hashes joined by ", ", as dumpsys prints them between brackets.
  std::string Text() const;
};

// Errors, one line naming the file: it cannot be opened or read; it is not a zip; its signing
// block or a v1 signature block cannot be read. nullopt: the APK is not signed.
BasicResult<std::optional<ApkSignature>, std::string> ReadApkSignature(const std::string& path);

}  // namespace droidlab::orchestrator
