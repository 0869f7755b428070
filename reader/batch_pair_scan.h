// The core of `pairs` and `clusters`: per table, the entries sharing the top prefix_bits permuted bits
// form a group (consecutive in the sorted table, possibly across blocks); every two entries of a
// group within k bits are a pair. A pair is reported by the first table whose groups put it together
// (reader/batch_common.h, first_table_for), so each pair comes once without a global set. Tables are
// cut into block ranges at group boundaries and scanned in parallel; each block is decoded once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "reader/batch_common.h"

namespace simdex::reader {

struct FoundPair {
  uint64_t a, b;  // original fingerprints, a < b
  unsigned distance;
  uint64_t rank_a, rank_b;  // in table 0; UINT64_MAX unless asked for
};

struct PairScan {
  unsigned k = 0;
  unsigned threads = 1;
  bool ranks = false;  // fill FoundPair ranks (a rank_of lookup for pairs found outside table 0)
  // Only the connected components of the pairs matter (clusters): within a group, a pair whose
  // entries the group's earlier pairs within k connect already is not reported. A group of
  // near-identical entries then reports fewer pairs than it has entries, not about size^2 / 2
  // (each a union-find update on shared memory, and outside table 0 a rank lookup each).
  bool components_only = false;
  // Called concurrently from workers 0..threads-1.
  std::function<void(unsigned worker, const FoundPair&)> on_pair;
  // When set, called for every entry of table 0 (worker, fingerprint, rank), concurrently.
  std::function<void(unsigned worker, uint64_t fingerprint, uint64_t rank)> on_table0_entry;
  // BatchOptions::progress, called with `command` as the stage.
  std::function<void(std::string_view stage, uint64_t done, uint64_t total)> progress;
  // Error(work_limit), named for `command`, when the estimate of pairs_work exceeds work_limit (or is
  // degenerate: check_work) before the scan starts, or the comparisons counted as it goes do. With
  // components_only the estimate (every two entries of a group) is no bound to check before: a
  // group of near-identical entries costs about its size, not its size^2 / 2.
  uint64_t work_limit = UINT64_MAX;
  std::string command = "pairs";
};

// Returns per-table statistics (blocks, blocks decoded, pairs first found there).
std::vector<BatchTableStats> scan_pairs(const IndexFile& file, const PairScan& scan);

}  // namespace simdex::reader
