// The bytes of the FINGERPRINT_SETTINGS tagged section (spec/FORMAT.md §5.2): how the fingerprints
// of an index built from text were made. Bytes only; FingerprintSettings is simdex/fingerprint.h's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "simdex/fingerprint.h"

namespace simdex::format {

inline constexpr uint64_t kMaxFingerprintSettingsBytes = 1u << 20;

// The section's bytes (a multiple of 8). Error(usage) when they would exceed 1 MiB (a huge
// stopword list) or the settings are out of range; `s.stopwords` must be distinct and ascending.
std::vector<uint8_t> encode_fingerprint_settings(const FingerprintSettings& s);
// Error(bad_tagged_section) naming what is wrong when `bytes` break §5.2 (checksum not included:
// see check_tagged_checksum). Reads only inside `bytes`.
FingerprintSettings decode_fingerprint_settings(std::span<const uint8_t> bytes);

}  // namespace simdex::format
