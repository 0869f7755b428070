// The work of a batch command, estimated before it starts from the tables' prefix bits and block
// keys: a file whose prefixes put too many entries together (prefix_bits = 0, a hostile or badly
// chosen scheme) is refused in milliseconds instead of running for hours. The pair scan also
// counts the comparisons of large groups as it goes, so block keys that hide a large group (keys
// are a verify rule) cannot take it past the limit either.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "format/run_tasks.h"
#include "reader/index_file.h"

namespace simdex::reader {

// The blocks [first, end) of table t whose keys share block j's key's prefix (prefix_range)
// (first: the first block whose key is >= the prefix's lowest value; end: the first whose key is
// above its highest). Where the group ends within block j, as it does unless groups are large, the
// neighbouring keys (mostly on the same cache line) answer without a search: on sorted keys the
// answers are first_block_not_below's.
struct BlockRun {
  uint64_t first, end;
  bool operator==(const BlockRun&) const = default;
};
BlockRun prefix_run(const TableView& t, uint64_t j);

// The mean number of entries of table t sharing the prefix of one of its entries drawn at random,
// from block keys (at most `samples` of them, each placed by prefix_run).
double mean_group_size(const TableView& t, uint64_t n, uint64_t samples);

struct Work {
  double comparisons = 0;    // entry comparisons in all
  double largest_group = 0;  // the largest mean group size of a table: the entries one probe reads
  bool counted = false;      // comparisons counted so far (a lower bound), not an estimate
};

// Entry comparisons of `pairs`/`clusters` (half the sum over prefix groups of size^2) and of a join
// of `queries` queries (each query against its group, and the blocks it decodes), over the tables
// a search within k reads (IndexFile::tables_within).
Work pairs_work(const IndexFile& file, unsigned k);
// A join's tables are estimated on the pool's threads (a join of 1M queries samples each table
// thousands of times: 15-20 ms on one thread at 100M, where the join takes 0.4 s on 16).
Work join_work(const IndexFile& file, unsigned k, uint64_t queries, format::TaskPool& pool);

// A probe that reads more entries than this on average is a degenerate prefix (prefix_bits = 0 or
// nearly): such work is refused once it exceeds kGroupWorkFloor comparisons (about a second), far
// below `limit`. The paper's schemes stay below it up to billions of fingerprints (paper-4 reads
// n / 2^16 entries a probe).
inline constexpr double kLargestSaneGroup = 65536;
inline constexpr double kGroupWorkFloor = 1e9;

// Error(work_limit) when `work` exceeds `limit`, or is a degenerate probe's beyond the floor (unless
// the limit is UINT64_MAX: forced); the message says which and how to go on.
void check_work(const std::string& command, const Work& work, uint64_t limit);

// The comparisons of the pair scan counted as it goes, against the same limit and, on a file whose
// prefixes are degenerate (estimate.largest_group above kLargestSaneGroup), the same floor: a large
// group that the block keys hid, and the component scan of `clusters`, whose work no estimate tells
// (near-identical entries cost about one comparison each, distant ones each pair).
class WorkCounter {
 public:
  WorkCounter(const std::string& command, const Work& estimate, uint64_t limit)
      : command_(command),
        limit_(limit),
        degenerate_(estimate.largest_group > kLargestSaneGroup ? estimate.largest_group : 0) {}
  // Groups below this size cost at most n * kSmall / 2 comparisons in all: not counted.
  static constexpr uint64_t kSmall = 256;
  // Every two entries of a group compared.
  void add_group(uint64_t size) {
    if (size >= kSmall) add(size * (size - 1) / 2);
  }
  void add(uint64_t comparisons) {
    const uint64_t done = done_.fetch_add(comparisons, std::memory_order_relaxed) + comparisons;
    if (done > limit_ || (degenerate_ > 0 && static_cast<double>(done) > kGroupWorkFloor))
      check_work(command_, Work{static_cast<double>(done), degenerate_, true}, limit_);
  }

 private:
  const std::string& command_;
  uint64_t limit_;
  double degenerate_;  // the estimate's largest_group where it is degenerate, else 0
  std::atomic<uint64_t> done_{0};
};

}  // namespace simdex::reader
