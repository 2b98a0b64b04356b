// The signing certificates of an APK signed with APK Signature Scheme v2 or v3, and the value
// `dumpsys package` prints for a certificate.
//
// Where the certificates are (apksig's ApkSigningBlockUtils / V2SchemeVerifier /
// V3SchemeVerifier; frameworks/base core/java/android/util/apk/ApkSigningBlockUtils.java,
// ApkSignatureSchemeV2Verifier.java, ApkSignatureSchemeV3Verifier.java). All integers are
// little-endian; a "prefixed" item is a uint32 length then that many bytes.
//
//   [zip entries][APK Signing Block][central directory][End of Central Directory]
//   End of Central Directory (EOCD): "PK\5\6" … uint32 cd size at +12, uint32 cd offset at +16,
//     uint16 comment length at +20 (the comment ends the file; at most 65535 bytes).
//     The central directory must end where the EOCD starts, else there is no signing block.
//   APK Signing Block, ending right before the central directory:
//     uint64 size (of what follows this field), pairs: { uint64 length, uint32 id, value },
//     uint64 size (again), 16 bytes "APK Sig Block 42".
//   v2 (id 0x7109871a) and v3 (id 0xf05368c0) values: prefixed sequence of prefixed signers:
//     v2 signer: prefixed signed data, prefixed signatures, prefixed public key;
//     v3 signer: prefixed signed data, uint32 minSdk, uint32 maxSdk, prefixed signatures,
//                prefixed public key;
//     signed data: prefixed digests, prefixed sequence of prefixed X.509 certificates (DER; the
//                  first is the signer's), [v3: uint32 minSdk, uint32 maxSdk], prefixed attributes.
//   v3.1 (id 0x1b93ad61, Android 13+: key rotation aimed at newer releases) is noted, not read.
//
// What `dumpsys package` shows of a certificate (Android 9+, PackageSignatures.toString):
// Integer.toHexString(Signature.hashCode()), and Signature.hashCode() is
// java.util.Arrays.hashCode(byte[]) over the certificate's DER bytes
// (core/java/android/content/pm/Signature.java): SignatureHashCodeHex.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

inline constexpr uint32_t kApkSignatureSchemeV2Id = 0x7109871a;
inline constexpr uint32_t kApkSignatureSchemeV3Id = 0xf05368c0;
inline constexpr uint32_t kApkSignatureSchemeV31Id = 0x1b93ad61;

struct ApkSigner {
  std::vector<std::string_view> certificates;  // DER, views into the input; [0] is the signer's
  uint32_t min_sdk = 0;                        // v3 only (the signer's, outside signed data)
  uint32_t max_sdk = 0;
};

struct ApkSigningBlock {
  bool present = false;       // false: the APK has no signing block (v1 only, or unsigned)
  std::vector<ApkSigner> v2;  // the v2 signers, in order
  std::vector<ApkSigner> v3;  // the v3 signers, in order
  bool has_v31 = false;       // a v3.1 block is there (not read)
};

// Reads the signing block of the APK whose bytes are `apk` (the whole file). The result holds
// views into `apk`. Thread-safe (pure function); reads nothing outside `apk`.
// present == false (not an error): the central directory does not end where the EOCD starts,
// or no "APK Sig Block 42" ends right before it — no signing block, as Android decides.
// Errors: kNotThisFormat: no End of Central Directory record in the last 64 KiB + 22 bytes (not
// a zip); kMalformed: a ZIP64 archive (Android refuses those too),
// a size or a length that points outside the block, a v2/v3 value whose sequences do not add up
// or a signer with no certificate.
Result<ApkSigningBlock> ParseApkSigningBlock(std::string_view apk);

// Java's Arrays.hashCode(byte[]) of `bytes` (h = 31 * h + (signed) b, from 1, 32-bit wrap),
// printed as Integer.toHexString does: lower-case, no leading zeros ("0" for 0).
std::string SignatureHashCodeHex(std::string_view bytes);

}  // namespace droidlab::parsers
