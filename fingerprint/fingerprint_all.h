// fingerprint_all with Fingerprinters kept by the caller from one call to the next (TextPipeline's
// batches), so their scratch buffers are grown once, not once a batch.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "format/run_tasks.h"
#include "simdex/fingerprint.h"

namespace simdex {

// out[i] = the fingerprint of texts[i], on the pool's threads (as many as fingerprinters); worker w
// uses fingerprinters[w], made from `options` when empty. The spans' sizes must be equal.
void fingerprint_all_with(std::span<const std::string_view> texts, std::span<std::uint64_t> out,
                          const FingerprintOptions& options,
                          std::vector<std::optional<Fingerprinter>>& fingerprinters, format::TaskPool& pool);

}  // namespace simdex
