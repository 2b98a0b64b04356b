#include "parsers/apk_signing_block.h"

#include <algorithm>
#include <optional>

namespace droidlab::parsers {
namespace {

constexpr size_t kEocdSize = 22;
constexpr size_t kMaxCommentSize = 0xffff;
constexpr uint32_t kEocdMagic = 0x06054b50;
constexpr std::string_view kBlockMagic = "APK Sig Block 42";
constexpr size_t kFooterSize = 8 + 16;  // uint64 size, magic

uint64_t Le(std::string_view bytes, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return v;
}

// A bounds-checked cursor over one value: every read answers nullopt instead of reading past the
// end.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : rest_(bytes) {}
  bool empty() const { return rest_.empty(); }

  std::optional<uint32_t> U32() {
    if (rest_.size() < 4) return std::nullopt;
    const auto v = static_cast<uint32_t>(Le(rest_, 0, 4));
    rest_.remove_prefix(4);
    return v;
  }
  // A uint32 length, then that many bytes.
  std::optional<std::string_view> Prefixed() {
    auto size = U32();
    if (!size || *size > rest_.size()) return std::nullopt;
    std::string_view item = rest_.substr(0, *size);
    rest_.remove_prefix(*size);
    return item;
  }

 private:
  std::string_view rest_;
};

ParseError MalformedBlock(std::string what) {
  return MakeError(ParseErrorCode::kMalformed, "APK signing block: " + std::move(what));
}

// The certificates of one signer's signed data: digests, then the certificates.
std::optional<std::vector<std::string_view>> Certificates(std::string_view signed_data) {
  Cursor data(signed_data);
  if (!data.Prefixed()) return std::nullopt;  // digests
  auto certs = data.Prefixed();
  if (!certs) return std::nullopt;
  std::vector<std::string_view> out;
  Cursor list(*certs);
  while (!list.empty()) {
    auto cert = list.Prefixed();
    if (!cert) return std::nullopt;
    out.push_back(*cert);
  }
  return out;
}

Result<std::vector<ApkSigner>> Signers(std::string_view value, bool v3, const char* scheme) {
  Cursor outer(value);
  auto sequence = outer.Prefixed();
  if (!sequence) return MalformedBlock(std::string(scheme) + " signer sequence cut short");
  std::vector<ApkSigner> signers;
  Cursor list(*sequence);
  while (!list.empty()) {
    auto signer_bytes = list.Prefixed();
    if (!signer_bytes) return MalformedBlock(std::string(scheme) + " signer cut short");
    Cursor signer(*signer_bytes);
    auto signed_data = signer.Prefixed();
    if (!signed_data) return MalformedBlock(std::string(scheme) + " signed data cut short");
    ApkSigner out;
    if (v3) {
      auto min_sdk = signer.U32();
      auto max_sdk = signer.U32();
      if (!min_sdk || !max_sdk)
        return MalformedBlock(std::string(scheme) + " signer's SDK range cut short");
      out.min_sdk = *min_sdk;
      out.max_sdk = *max_sdk;
    }
    auto certs = Certificates(*signed_data);
    if (!certs) return MalformedBlock(std::string(scheme) + " certificates cut short");
    if (certs->empty() || certs->front().empty()) {
      return MalformedBlock(std::string(scheme) + " signer with no certificate");
    }
    out.certificates = std::move(*certs);
    signers.push_back(std::move(out));
  }
  if (signers.empty()) return MalformedBlock(std::string(scheme) + " block with no signer");
  return signers;
}

// The offset of the End of Central Directory record: the last "PK\5\6" whose comment length
// reaches exactly the end of the file (apksig ZipUtils.findZipEndOfCentralDirectoryRecord).
std::optional<size_t> FindEocd(std::string_view apk) {
  if (apk.size() < kEocdSize) return std::nullopt;
  const size_t last = apk.size() - kEocdSize;
  const size_t max_comment = std::min(kMaxCommentSize, last);
  for (size_t comment = 0; comment <= max_comment; ++comment) {
    const size_t at = last - comment;
    if (Le(apk, at, 4) == kEocdMagic && Le(apk, at + 20, 2) == comment) return at;
  }
  return std::nullopt;
}

}  // namespace

Result<ApkSigningBlock> ParseApkSigningBlock(std::string_view apk) {
  const auto eocd = FindEocd(apk);
  if (!eocd) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "not a zip archive: no End of Central Directory record");
  }
  const uint64_t cd_size = Le(apk, *eocd + 12, 4);
  const uint64_t cd_offset = Le(apk, *eocd + 16, 4);
  if (cd_offset == 0xffffffff || cd_size == 0xffffffff) {
    return MalformedBlock("a ZIP64 archive (Android installs no ZIP64 APK)");
  }
  ApkSigningBlock out;
  if (cd_offset + cd_size != *eocd || cd_offset < kFooterSize + 8) return out;
  const size_t footer = static_cast<size_t>(cd_offset) - kFooterSize;
  if (apk.substr(footer + 8, kBlockMagic.size()) != kBlockMagic) return out;
  const uint64_t size = Le(apk, footer, 8);
  // The size counts everything after the first size field: pairs, the second size, the magic.
  if (size < kFooterSize || size > cd_offset - 8) {
    return MalformedBlock("its size " + std::to_string(size) +
                          " does not fit before the central directory");
  }
  const size_t start = static_cast<size_t>(cd_offset - size - 8);
  if (Le(apk, start, 8) != size) return MalformedBlock("its two size fields differ");
  out.present = true;

  std::string_view pairs = apk.substr(start + 8, footer - (start + 8));
  while (!pairs.empty()) {
    if (pairs.size() < 8) return MalformedBlock("a pair's length cut short");
    const uint64_t length = Le(pairs, 0, 8);
    pairs.remove_prefix(8);
    if (length < 4 || length > pairs.size()) {
      return MalformedBlock("a pair of " + std::to_string(length) + " bytes where " +
                            std::to_string(pairs.size()) + " remain");
    }
    const auto id = static_cast<uint32_t>(Le(pairs, 0, 4));
    const std::string_view value = pairs.substr(4, static_cast<size_t>(length) - 4);
    pairs.remove_prefix(static_cast<size_t>(length));
    if (id == kApkSignatureSchemeV2Id) {
      auto signers = Signers(value, false, "v2");
      if (!signers) return signers.error();
      out.v2 = std::move(*signers);
    } else if (id == kApkSignatureSchemeV3Id) {
      auto signers = Signers(value, true, "v3");
      if (!signers) return signers.error();
      out.v3 = std::move(*signers);
    } else if (id == kApkSignatureSchemeV31Id) {
      out.has_v31 = true;
    }
  }
  return out;
}

std::string SignatureHashCodeHex(std::string_view bytes) {
  // Unsigned arithmetic: the same bits as Java's wrapping int, without signed overflow.
  uint32_t h = 1;
  for (char c : bytes)
    h = 31u * h + static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c)));
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  do {
    hex.insert(hex.begin(), kDigits[h & 0xf]);
    h >>= 4;
  } while (h != 0);
  return hex;
}

}  // namespace droidlab::parsers
