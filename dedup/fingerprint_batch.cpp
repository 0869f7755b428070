#include "dedup/fingerprint_batch.h"

namespace simdex::dedup_detail {

BatchFingerprinter::BatchFingerprinter(const FingerprintOptions& options, unsigned threads)
    : fingerprinter_(options), threads_(threads) {}

void BatchFingerprinter::fingerprint(std::span<const std::string_view> texts, std::span<std::uint64_t> out) {
  // MERGE: simdex::fingerprint_all(texts, out, fingerprinter_.options(), threads_);
  for (std::size_t i = 0; i < texts.size(); ++i) out[i] = fingerprinter_.fingerprint(texts[i]);
}

}  // namespace simdex::dedup_detail
