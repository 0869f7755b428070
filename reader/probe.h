// One probe of one table (the paper's step: look at the entries sharing the query's top p permuted
// bits, keep those within k). Decodes only the blocks that can hold such entries, stops at the first
// entry past the prefix range, allocates nothing.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

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

// Asks the CPU to start loading block j's bytes [from, block_bytes) (nothing past the table).
// Always inlined: GCC 12 takes a function that only prefetches in a loop for one without effects
// (ipa-pure-const, loops assumed finite) and deletes every call to it, so that until 0.2.0 no
// probe prefetched its block (bench/RESULTS.md, "Prefetches that GCC deleted").
[[gnu::always_inline]] inline void prefetch_block(const TableView& t, uint64_t j, uint32_t from = 0) {
  if (j >= t.block_count()) return;
  const uint8_t* b = t.block(j);
  for (uint32_t off = from; off < t.block_bytes; off += 64) __builtin_prefetch(b + off);
}

// Where a probe of one table starts (TableView::scan_start of the query's prefix range), found in
// three steps that a query takes for all its tables before the next step, so that the tables'
// cache misses (and, on a cold file, page reads) overlap instead of following one another:
//   aim:    permute the query, prefetch its directory entry;
//   read:   read the entry and guess among its candidate blocks: prefetch the guess whole and
//           the first lines (which hold first_entry) of its neighbours (the next one only, in a
//           pipeline of probes: WalkLines); without a directory, search the keys (prefetch the
//           block);
//   choose: walk from the guess by the first entries, prefetch the rest of the chosen block.
// The block decode that follows is a serial chain of loads through the block, so the prefetches
// must come first. ProbeStart::block is then where probe_from scans. (aim_at seeks the scan start of
// any value x: IndexFile::ranks_of finds stored fingerprints the same way.)
struct ProbeStart {
  uint64_t q = 0;      // the query permuted by the table
  uint64_t x = 0;      // the value whose scan start is sought: a probe's prefix_range(q).lo
  uint64_t block = 0;  // after choose: where the scan starts
  TableView::Candidates candidates{0, 0};
};
inline void aim_at(const TableView& t, uint64_t q, uint64_t x, ProbeStart& s) {  // q: already permuted
  s.q = q;
  s.x = x;
  if (t.directory) __builtin_prefetch(t.directory_entry_address(x));
}
inline void aim_permuted(const TableView& t, uint64_t q, ProbeStart& s) {
  aim_at(t, q, prefix_range(q, t.prefix_bits()).lo, s);
}
inline void aim(const TableView& t, uint64_t fingerprint, ProbeStart& s) {
  aim_permuted(t, t.permutation.apply(fingerprint), s);
}
// The first lines read_candidates prefetches for the walk. The walk reads block guess + 1's
// whenever it does not step back, and block guess - 1's when it does (about 10% of random probes
// at 1M and 10M fingerprints; it steps forward about 8%). A probe alone waits for each line it
// reads: `both` (the ids' rank lookups too, in windows of 16, where `next` measured the same).
// Probes in a pipeline wait for line fills, which every line prefetched takes a share of: `next`
// (a join of 4,096 queries against 1M or 10M: 2-3% faster; bench/RESULTS.md).
enum class WalkLines { both, next };
inline void read_candidates(const TableView& t, ProbeStart& s, WalkLines lines = WalkLines::both) {
  const auto& c = s.candidates = t.candidates(s.x);
  prefetch_block(t, c.guess);
  if (c.first == c.last) return;
  if (c.guess + 1 < t.block_count()) __builtin_prefetch(t.block(c.guess + 1));
  if (lines == WalkLines::both && c.guess > c.first)
    __builtin_prefetch(t.block(c.guess - 1));  // guess <= last <= block_count()
}
inline void choose(const TableView& t, ProbeStart& s) {
  const auto& c = s.candidates;
  s.block = t.choose_candidate(s.x, c);
  if (s.block != c.guess) prefetch_block(t, s.block, 64);  // its first line is in (or a key search found it)
}

// A visitor of one block for the entries of `range`: on_entry(entry, index_in_block) for each of
// them, the decode stopped at the first entry above the range.
template <typename OnEntry>
struct RangeVisitor {
  PrefixRange range;
  OnEntry on_entry;
  bool past = false;  // an entry above the range was seen
  bool operator()(uint64_t e, uint32_t i) {
    if (e > range.hi) {
      past = true;
      return false;
    }
    if (e >= range.lo) on_entry(e, i);
    return true;
  }
  // True when the range ends in the block (r.last: the block's last entry, its key).
  bool ends_in(const format::BlockResult& r) const { return past || r.last >= range.hi; }
};
template <typename OnEntry>
RangeVisitor<OnEntry> in_range(PrefixRange range, OnEntry on_entry) {
  return {range, std::move(on_entry)};
}

// A probe's visitor of block j: on_hit(permuted_entry, distance, j, index_in_block) for each entry
// of the range within k of the query.
template <typename OnHit>
auto probe_block(const TableView& t, const ProbeStart& start, unsigned k, uint64_t j, OnHit& on_hit) {
  return in_range(prefix_range(start.q, t.prefix_bits()),
                  [q = start.q, k, j, &on_hit](uint64_t e, uint32_t i) {
                    const auto d = static_cast<unsigned>(std::popcount(e ^ q));
                    if (d <= k) on_hit(e, d, j, i);
                  });
}

// on_hit(permuted_entry, distance, block, index_in_block) for each entry within k of start.q.
template <typename OnHit>
void probe_from(const IndexFile& file, const TableView& t, ProbeStart start, unsigned k, OnHit&& on_hit) {
  for (uint64_t j = start.block; j < t.block_count(); ++j) {
    auto visit = probe_block(t, start, k, j, on_hit);
    if (visit.ends_in(file.decode(t, j, visit))) return;
  }
}

// The probes of two tables, their first blocks decoded in turn (IndexFile::decode_two: the two
// chains of loads overlap); a probe whose range goes on past its first block goes on alone.
// Inlined with the decode into the query, always: when the query's code grew a little, GCC kept
// them out of line and warm queries were 6-13% slower (bench/RESULTS.md, "Searches below the
// index's k").
template <typename OnHitA, typename OnHitB>
[[gnu::always_inline]] inline void probe_two(const IndexFile& file, unsigned k, const TableView& ta,
                                             ProbeStart sa, OnHitA&& on_hit_a, const TableView& tb,
                                             ProbeStart sb, OnHitB&& on_hit_b) {
  if (sa.block >= ta.block_count() || sb.block >= tb.block_count()) {
    probe_from(file, ta, sa, k, on_hit_a);
    probe_from(file, tb, sb, k, on_hit_b);
    return;
  }
  auto visit_a = probe_block(ta, sa, k, sa.block, on_hit_a);
  auto visit_b = probe_block(tb, sb, k, sb.block, on_hit_b);
  const auto [ra, rb] = file.decode_two(ta, sa.block, visit_a, tb, sb.block, visit_b);
  if (!visit_a.ends_in(ra)) {
    ++sa.block;
    probe_from(file, ta, sa, k, on_hit_a);
  }
  if (!visit_b.ends_in(rb)) {
    ++sb.block;
    probe_from(file, tb, sb, k, on_hit_b);
  }
}

}  // namespace simdex::reader
