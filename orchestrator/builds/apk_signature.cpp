#include "orchestrator/builds/apk_signature.h"

#include <fcntl.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "orchestrator/builds/zip_handles.h"
#include "parsers/apk_signing_block.h"

namespace droidlab::orchestrator {

namespace {

// A v1 signature block is a few KB; a larger one is not read into memory.
constexpr zip_uint64_t kMaxSignatureBlockBytes = 1u << 20;

struct Mapping {
  void* data = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (data != MAP_FAILED) ::munmap(data, size);
  }
  std::string_view view() const { return {static_cast<const char*>(data), size}; }
};

struct Pkcs7Free {
  void operator()(PKCS7* p7) const { PKCS7_free(p7); }
};
struct SignerStackFree {
  void operator()(STACK_OF(X509) * signers) const { sk_X509_free(signers); }  // not the certs
};

bool EndsWithNoCase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  s = s.substr(s.size() - suffix.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != suffix[i]) return false;
  }
  return true;
}

// META-INF/NAME.RSA|DSA|EC, not in a subfolder (JarFile's signature block files).
bool IsSignatureBlockFile(std::string_view name) {
  if (!name.starts_with("META-INF/") || name.find('/', 9) != std::string_view::npos) return false;
  return EndsWithNoCase(name, ".RSA") || EndsWithNoCase(name, ".DSA") ||
         EndsWithNoCase(name, ".EC");
}

// The signer certificates of every v1 signature block file, hashed; an empty list: none.
BasicResult<std::vector<std::string>, std::string> V1Hashes(const std::string& path) {
  int open_error = 0;
  ZipArchive archive(zip_open(path.c_str(), ZIP_RDONLY, &open_error));
  if (!archive) return path + ": cannot open as a zip archive";
  std::vector<std::string> hashes;
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* raw_name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (raw_name == nullptr || !IsSignatureBlockFile(raw_name)) continue;
    const std::string name = raw_name;
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0 ||
        (stat.valid & ZIP_STAT_SIZE) == 0 || stat.size > kMaxSignatureBlockBytes) {
      return path + ": " + name + " is larger than " + std::to_string(kMaxSignatureBlockBytes) +
             " bytes or cannot be read";
    }
    ZipEntry entry(zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(i), 0));
    if (!entry) return path + ": " + name + " cannot be read: " + zip_strerror(archive.get());
    std::string bytes(static_cast<size_t>(stat.size), '\0');
    size_t have = 0;
    while (have < bytes.size()) {
      const zip_int64_t n = zip_fread(entry.get(), bytes.data() + have, bytes.size() - have);
      if (n <= 0) break;
      have += static_cast<size_t>(n);
    }
    if (have != bytes.size()) return path + ": " + name + " cannot be inflated";
    const auto* der = reinterpret_cast<const unsigned char*>(bytes.data());
    std::unique_ptr<PKCS7, Pkcs7Free> p7(d2i_PKCS7(nullptr, &der, static_cast<long>(bytes.size())));
    if (!p7 || PKCS7_type_is_signed(p7.get()) == 0) {
      return path + ": " + name + " is not a PKCS#7 SignedData";
    }
    std::unique_ptr<STACK_OF(X509), SignerStackFree> signers(
        PKCS7_get0_signers(p7.get(), nullptr, 0));
    if (!signers || sk_X509_num(signers.get()) == 0) {
      return path + ": " + name + " holds no signer certificate";
    }
    for (int s = 0; s < sk_X509_num(signers.get()); ++s) {
      unsigned char* cert = nullptr;
      const int length = i2d_X509(sk_X509_value(signers.get(), s), &cert);
      if (length <= 0) return path + ": " + name + ": a certificate cannot be encoded";
      hashes.push_back(parsers::SignatureHashCodeHex(
          std::string_view(reinterpret_cast<const char*>(cert), static_cast<size_t>(length))));
      OPENSSL_free(cert);
    }
  }
  return hashes;
}

}  // namespace

std::string ApkSignature::Text() const {
  std::string text;
  for (const auto& hash : hashes) text += (text.empty() ? "" : ", ") + hash;
  return text;
}

BasicResult<std::optional<ApkSignature>, std::string> ReadApkSignature(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return path + ": cannot open: " + std::strerror(errno);
  struct stat st {};
  Mapping map;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    map.size = static_cast<size_t>(st.st_size);
    map.data = ::mmap(nullptr, map.size, PROT_READ, MAP_PRIVATE, fd, 0);
  }
  const int mapped_errno = errno;
  ::close(fd);
  if (map.data == MAP_FAILED) {
    if (map.size == 0) return path + ": not an APK: an empty file";
    return path + ": cannot read: " + std::strerror(mapped_errno);
  }
  auto block = parsers::ParseApkSigningBlock(map.view());
  if (!block) return path + ": " + block.error().message;
  ApkSignature signature;
  if (!block->v3.empty()) {
    signature.scheme = 3;
    signature.hashes.push_back(parsers::SignatureHashCodeHex(block->v3.front().certificates[0]));
    return std::optional<ApkSignature>(std::move(signature));
  }
  if (!block->v2.empty()) {
    signature.scheme = 2;
    for (const auto& signer : block->v2) {
      signature.hashes.push_back(parsers::SignatureHashCodeHex(signer.certificates[0]));
    }
    return std::optional<ApkSignature>(std::move(signature));
  }
  auto v1 = V1Hashes(path);
  if (!v1) return v1.error();
  if (v1->empty()) return std::optional<ApkSignature>();
  signature.scheme = 1;
  signature.hashes = std::move(*v1);
  return std::optional<ApkSignature>(std::move(signature));
}

}  // namespace droidlab::orchestrator
