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

}  // namespace simdex::reader
