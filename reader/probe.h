// One probe of one table (the paper's step: look at the entries sharing the query's top p permuted
// bits, keep those within k). Decodes only the blocks that can hold such entries, stops at the first
// entry past the prefix range, allocates nothing.
#pragma once

#include <bit>
#include <cstdint>

#include "reader/index_file.h"

namespace simdex::reader {

struct PrefixRange {
  uint64_t lo, hi;  // every permuted value sharing the top prefix_bits bits of q
};
inline PrefixRange prefix_range(uint64_t q, unsigned prefix_bits) {
  if (prefix_bits == 0) return {0, ~uint64_t{0}};
  if (prefix_bits >= 64) return {q, q};
  const uint64_t low = ~uint64_t{0} >> prefix_bits;
  return {q & ~low, q | low};
}

// on_hit(permuted_entry, distance, block, index_in_block) for each entry within k of q (permuted).
template <typename OnHit>
void probe_table(const IndexFile& file, const TableView& t, uint64_t q, unsigned k, OnHit&& on_hit) {
  const PrefixRange range = prefix_range(q, t.prefix_bits());
  for (uint64_t j = t.first_block_not_below(range.lo); j < t.block_count(); ++j) {
    bool past = false;
    file.decode(t, j, [&](uint64_t e, uint32_t i) {
      if (e > range.hi) {
        past = true;
        return false;
      }
      if (e >= range.lo) {
        const auto d = static_cast<unsigned>(std::popcount(e ^ q));
        if (d <= k) on_hit(e, d, j, i);
      }
      return true;
    });
    if (past || t.key(j) >= range.hi) return;
  }
}

}  // namespace simdex::reader
