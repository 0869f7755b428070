// The one place `dedup` turns texts into fingerprints. Serial for now; simdex::fingerprint_all
// (parallel, being added to the library) replaces the body when both meet.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "simdex/fingerprint.h"

namespace simdex::dedup_detail {

class BatchFingerprinter {
 public:
  BatchFingerprinter(const FingerprintOptions& options, unsigned threads);
  // out[i] = the fingerprint of texts[i]; texts.size() == out.size().
  void fingerprint(std::span<const std::string_view> texts, std::span<std::uint64_t> out);

 private:
  Fingerprinter fingerprinter_;
  unsigned threads_;
};

}  // namespace simdex::dedup_detail
