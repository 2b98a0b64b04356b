// libFuzzer target for ParseApkSigningBlock (the tail of an APK an operator uploads: untrusted
// bytes). Invariants: no read outside the input (ASan); an error has a message; every
// certificate is a non-empty view inside the input; a block with no signing block has no
// signers; SignatureHashCodeHex gives 1 to 8 hex digits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/apk_signing_block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string hash = droidlab::parsers::SignatureHashCodeHex(input);
  if (hash.empty() || hash.size() > 8) std::abort();
  auto block = droidlab::parsers::ParseApkSigningBlock(input);
  if (!block.ok()) {
    if (block.error().message.empty()) std::abort();
    return 0;
  }
  if (!block->present && (!block->v2.empty() || !block->v3.empty())) std::abort();
  for (const auto* signers : {&block->v2, &block->v3}) {
    for (const auto& signer : *signers) {
      if (signer.certificates.empty()) std::abort();
      for (std::string_view cert : signer.certificates) {
        if (cert.data() < input.data() || cert.data() + cert.size() > input.data() + input.size()) {
          std::abort();
        }
      }
      if (signer.certificates.front().empty()) std::abort();
    }
  }
  return 0;
}
