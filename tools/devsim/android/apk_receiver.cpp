#include "tools/devsim/android/apk_receiver.h"

#include <unistd.h>

#include <boost/uuid/detail/sha1.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "orchestrator/builds/apk_reader.h"
#include "orchestrator/builds/apk_signature.h"

namespace droidlab::devsim {
namespace {

using Sha1 = boost::uuids::detail::sha1;

std::string DigestHex(Sha1& sha1) {
  Sha1::digest_type digest;  // Boost 1.81: five 32-bit words, big-endian order of the bytes
  sha1.get_digest(digest);
  std::string hex;
  char word[9];
  for (const unsigned int part : digest) {
    std::snprintf(word, sizeof word, "%08x", part);
    hex += word;
  }
  return hex;
}

}  // namespace

struct ApkReceiver::Impl {
  std::string path;
  int fd = -1;
  std::uint64_t size = 0;
  Sha1 sha1;
  std::string write_error;
};

ApkReceiver::ApkReceiver() : impl_(std::make_unique<Impl>()) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/devsim-received-XXXXXX";
  impl_->fd = ::mkstemp(pattern.data());
  if (impl_->fd < 0) {
    impl_->write_error = "cannot create a temporary file: " + std::string(std::strerror(errno));
    return;
  }
  impl_->path = pattern;
}

ApkReceiver::~ApkReceiver() {
  if (impl_->fd >= 0) ::close(impl_->fd);
  if (!impl_->path.empty()) ::unlink(impl_->path.c_str());
}

void ApkReceiver::Write(std::string_view bytes) {
  impl_->size += bytes.size();
  impl_->sha1.process_bytes(bytes.data(), bytes.size());
  while (impl_->fd >= 0 && !bytes.empty()) {
    const ssize_t n = ::write(impl_->fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      impl_->write_error = "cannot write the temporary file: " + std::string(std::strerror(errno));
      ::close(impl_->fd);
      impl_->fd = -1;
      return;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::uint64_t ApkReceiver::size() const { return impl_->size; }

StoredFile ApkReceiver::Finish() {
  StoredFile file;
  file.size = impl_->size;
  file.sha1 = DigestHex(impl_->sha1);
  if (impl_->fd >= 0) {
    ::close(impl_->fd);
    impl_->fd = -1;
  }
  if (!impl_->write_error.empty()) {
    file.not_apk_reason = impl_->write_error;
    return file;
  }
  auto manifest = orchestrator::ReadApkManifest(impl_->path);
  if (!manifest) {
    file.not_apk_reason = manifest.error();
    file.dex_metadata = orchestrator::CheckDexMetadata(impl_->path).ok();
    return file;
  }
  auto signature = orchestrator::ReadApkSignature(impl_->path);
  if (!signature) {
    file.not_apk_reason = signature.error();
    return file;
  }
  ApkFacts facts;
  if (*signature) {
    facts.signature = (*signature)->Text();
    facts.signature_scheme = (*signature)->scheme;
  }
  facts.package = manifest->package;
  facts.version_code = static_cast<long>(manifest->version_code);
  facts.version_name = manifest->version_name;
  facts.min_sdk = manifest->min_sdk;
  facts.target_sdk = manifest->target_sdk;
  facts.split = manifest->split;
  file.apk = std::move(facts);
  return file;
}

std::string Sha1Hex(std::string_view bytes) {
  Sha1 sha1;
  sha1.process_bytes(bytes.data(), bytes.size());
  return DigestHex(sha1);
}

}  // namespace droidlab::devsim
