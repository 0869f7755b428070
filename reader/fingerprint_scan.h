// Every stored fingerprint of an index file with its ids, in table-0 order (ascending fingerprints
// for files simdex writes), one pass over table 0's blocks: what a set's merge and its batch work
// over several members read. Throws Error like any read of the file.
#pragma once

#include <cstdint>
#include <functional>

#include "simdex/index.h"

namespace simdex::reader {

void for_each_fingerprint(const Index& index,
                          const std::function<void(uint64_t fingerprint, const IdList& ids)>& visit);

}  // namespace simdex::reader
