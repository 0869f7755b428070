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

}  // namespace simdex::reader
