// The bytes of a file the host sends (a sync: push, a streamed install), as they arrive: written
// to a temporary file on the host running devsim and hashed, then read as an APK with
// droidlab's own reader (orchestrator/builds/apk_reader.h: libzip + parsers/apk_manifest.h) —
// the one part of droidlab devsim links, so that a phone reads an APK as the lab does. The
// temporary file is removed when the receiver goes; only the size, the SHA-1 and the manifest's
// facts are kept (StoredFile).
// Blocking file I/O on the devsim thread: acceptable for a simulator on a loopback transport.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {

class ApkReceiver {
 public:
  ApkReceiver();
  ~ApkReceiver();
  ApkReceiver(const ApkReceiver&) = delete;
  ApkReceiver& operator=(const ApkReceiver&) = delete;

  // Appends bytes. A write error (disk full) is remembered and reported by Finish.
  void Write(std::string_view bytes);
  std::uint64_t size() const;
  // Closes the file and reads it: size, SHA-1, and the manifest when the bytes are an APK.
  StoredFile Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// 40 lowercase hex digits of the SHA-1 of `bytes` (for tests and small files).
std::string Sha1Hex(std::string_view bytes);

}  // namespace droidlab::devsim
