// libFuzzer target over the fingerprint pipeline (spec/FINGERPRINT.md): the fuzz bytes are one
// document, any bytes (ill-formed UTF-8 is repaired, step 1). A target passes when every input is
// fingerprinted without a crash, an out-of-bounds access or undefined behaviour; when a
// Fingerprinter that has fingerprinted other text before gives the same fingerprint and features
// as a fresh one (its reused buffers, written 16 bytes at a time past a token's end, hold nothing
// over from one text to the next); and when step 2's shortcuts (ASCII casefolded in place, other
// code points mapped one at a time) give the text that ICU gives for the whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/normalize.h"
#include "fingerprint/utf8.h"
#include "simdex/fingerprint.h"

namespace {

simdex::FingerprintOptions options(unsigned variant) {
  simdex::FingerprintOptions o;
  if (variant == 1) {
    o.shingle_size = 1;
    o.weighting = simdex::Weighting::binary;
    o.stopwords = simdex::english_stopwords();
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Kept from input to input: each has fingerprinted every earlier input.
  static simdex::Fingerprinter used[] = {simdex::Fingerprinter(options(0)),
                                         simdex::Fingerprinter(options(1))};
  for (unsigned variant = 0; variant < 2; ++variant) {
    simdex::Fingerprinter fresh(options(variant));
    const uint64_t expected = fresh.fingerprint(text);
    if (used[variant].fingerprint(text) != expected) std::abort();
    if (used[variant].features(text) != simdex::Fingerprinter(options(variant)).features(text)) std::abort();
  }
  static simdex::text::Normalizer normalizer;  // its cache of segments kept from input to input
  std::string repaired, fast, whole;
  simdex::text::repair_utf8(text, repaired);
  normalizer.normalize(repaired, fast);
  normalizer.normalize_with_icu(repaired, whole, std::size_t{1} << 30);
  if (fast != whole) std::abort();
  return 0;
}
