// Coverage of a file's tables (spec/FORMAT.md, rule `coverage`): two fingerprints within k bits
// must share the prefix of at least one table. With D the positions where they differ, table t
// misses the pair iff D meets the table's prefix bits S_t, so the tables cover k iff no set of at
// most k positions meets every S_t: the smallest hitting set of {S_t} has more than k positions.
// That is NP-hard in general, so the search has a budget; every scheme simdex writes decides in
// milliseconds.
#pragma once

#include <cstdint>
#include <span>

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

}  // namespace simdex::format
