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

// Where a probe of one table starts: the query permuted, and the first block that can hold an entry
// of its prefix range (block_count() when none can).
struct ProbeStart {
  uint64_t q;
  uint64_t block;
};
inline ProbeStart locate(const TableView& t, uint64_t fingerprint) {
  const uint64_t q = t.permutation.apply(fingerprint);
  return {q, t.first_block_not_below(prefix_range(q, t.prefix_bits()).lo)};
}

// Asks the CPU to start loading the block a probe will decode. A query locates its block in every
// table first and prefetches them all, so their cache misses overlap instead of following one another
// (the decode itself is a serial chain of loads through the block).
inline void prefetch_block(const IndexFile& file, const TableView& t, uint64_t j) {
  if (j >= t.block_count()) return;
  const uint8_t* b = file.block(t, j);
  for (uint32_t off = 0; off < file.header().block_bytes; off += 64) __builtin_prefetch(b + off);
}

// on_hit(permuted_entry, distance, block, index_in_block) for each entry within k of start.q.
template <typename OnHit>
void probe_from(const IndexFile& file, const TableView& t, ProbeStart start, unsigned k, OnHit&& on_hit) {
  const uint64_t q = start.q;
  const PrefixRange range = prefix_range(q, t.prefix_bits());
  for (uint64_t j = start.block; j < t.block_count(); ++j) {
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
