// Every stored fingerprint of an index file with its ids, in table-0 order (ascending fingerprints
// for files simdex writes), one pass over table 0's blocks: what a set's merge and its batch work
// over several members read. Throws Error like any read of the file.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "simdex/index.h"

namespace simdex::reader {

void for_each_fingerprint(const Index& index,
                          const std::function<void(uint64_t fingerprint, const IdList& ids)>& visit);

}  // namespace simdex::reader

namespace simdex::reader {

// The same, pulled one fingerprint at a time (for merging several files in order): decodes one
// block of table 0 at a time. The Index must outlive the cursor; call check_unchanged() on it after.
class FingerprintCursor {
 public:
  explicit FingerprintCursor(const Index& index);
  bool done() const { return pos_ == entries_.size(); }
  uint64_t fingerprint() const { return entries_[pos_].first; }
  IdList ids() const;
  void next();

 private:
  void load(uint64_t block);
  const Index& index_;
  uint64_t block_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> entries_;  // (fingerprint, rank) of the current block
  std::size_t pos_ = 0;
};

// Whether the file's table 0 is the identity permutation: its order is ascending fingerprints.
bool table0_ascending(const Index& index);

}  // namespace simdex::reader
