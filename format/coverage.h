// Coverage of a file's tables (spec/FORMAT.md, rule `coverage`): two fingerprints within k bits
// must share the prefix of at least one table. With D the positions where they differ, table t
// misses the pair iff D meets the table's prefix bits S_t, so the tables cover k iff no set of at
// most k positions meets every S_t: the smallest hitting set of {S_t} has more than k positions.
// That is NP-hard in general, so the search has a budget; every scheme simdex writes decides in
// milliseconds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace simdex::format {

// Search steps before giving up: about a second at worst.
inline constexpr uint64_t kCoverageBudget = 100'000'000;

struct Coverage {
  enum class Status { covered, uncovered, unchecked };
  Status status = Status::covered;
  uint64_t uncovered = 0;  // uncovered: at most k positions that meet every table's prefix
  uint64_t steps = 0;      // the work spent (one step per table looked at)
};

// The prefix masks come from format::prefix_mask (format/permutation.h).
// prefix_masks[t]: the original bit positions of table t's prefix (a table with prefix_bits = 0
// has none, is never missed, and so covers every k). `unchecked` when the budget ran out.
Coverage check_coverage(std::span<const uint64_t> prefix_masks, unsigned k,
                        uint64_t budget = kCoverageBudget);

// The tables a search within k must read, ascending. Table t can be left out when every pair within
// k that its prefix groups together an earlier table groups too, so reports first (the
// "first table" rule of the batch jobs): when no set D of at most k positions outside S_t meets
// every earlier S_u, i.e. when the earlier masks less S_t are covered for k. Below the index's k,
// fewer tables serve (k = 0: table 0 alone; paper-10 at k = 1: 3 of its 10). The tables from the
// one whose search exhausts `budget` (search steps for all of them together) on are kept, and so
// are all of them past kMaxTablesAnalysed tables (the search is quadratic in the tables): leaving
// out a table is only ever a saving, never a change in results.
inline constexpr std::size_t kMaxTablesAnalysed = 256;
std::vector<uint32_t> tables_within(std::span<const uint64_t> prefix_masks, unsigned k,
                                    uint64_t budget = 1'000'000);

}  // namespace simdex::format
