// Writes a whole index file from its distinct fingerprints and their ids: every table of the scheme,
// the ids section, the header, then publishes atomically. The inputs may be in memory or in
// temporary files; tables are sorted within the memory bound (in memory, or externally).
#pragma once

#include <cstdint>
#include <string>

#include "simdex/builder.h"
#include "writer/atomic_file.h"
#include "writer/run_file.h"
#include "writer/u64_store.h"

namespace simdex::writer {

struct IndexContents {
  const U64Store& fingerprints;  // distinct, ascending
  const U64Store& id_offsets;    // fingerprints.size() + 1 offsets into ids, in table 0's rank order;
                                 // empty when each fingerprint has one id
  const U64Store& ids;           // per fingerprint ascending, fingerprints in table 0's rank order
};

// Error(usage) unless the block size, the table count and the scheme's name keep spec §3's rules.
void check_writable(const Scheme& scheme, const BuildOptions& options);

// memory_bytes: what the tables may use (the caller's own data is already subtracted).
BuildSummary write_index(const std::string& path, const IndexContents& contents, const Scheme& scheme,
                         const BuildOptions& options, ScratchSpace& scratch, uint64_t memory_bytes,
                         Durability durability = Durability::durable);

}  // namespace simdex::writer
