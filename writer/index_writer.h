// Writes a whole index file from its distinct fingerprints and their ids: every table of the scheme,
// the ids section, the header, then publishes atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simdex/builder.h"

namespace simdex::writer {

struct IndexContents {
  std::vector<uint64_t> fingerprints;  // distinct, ascending
  std::vector<uint64_t> id_offsets;    // fingerprints.size() + 1 offsets into ids
  std::vector<uint64_t> ids;           // per fingerprint, ascending
};

BuildSummary write_index(const std::string& path, const IndexContents& contents, const Scheme& scheme,
                         const BuildOptions& options);

}  // namespace simdex::writer
