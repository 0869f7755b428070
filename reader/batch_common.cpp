#include "reader/batch_common.h"

#include <algorithm>
#include <string>

#include "format/coverage.h"
#include "format/thread_count.h"

namespace simdex::reader {

unsigned batch_k(const IndexFile& file, const BatchOptions& options) {
  return file.search_distance(options.k);
}

unsigned batch_threads(const BatchOptions& options) { return format::thread_count(options.threads); }

std::vector<uint64_t> prefix_masks(const IndexFile& file) {
  std::vector<uint64_t> masks;
  for (const TableView& t : file.tables())
    masks.push_back(format::prefix_mask(t.descriptor.source_bit, t.prefix_bits()));
  return masks;
}

uint64_t rank_in_table0(const IndexFile& file, uint64_t fingerprint) {
  const uint64_t r = file.rank_of(fingerprint);
  if (r == UINT64_MAX)
    throw Error(errc::table_mismatch,
                "fingerprint " + std::to_string(fingerprint) + " is in a table but not in table 0");
  return r;
}

}  // namespace simdex::reader
