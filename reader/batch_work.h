// The work of a batch command, estimated before it starts from the tables' prefix bits and block
// keys: a file whose prefixes put too many entries together (prefix_bits = 0, a hostile or badly
// chosen scheme) is refused in milliseconds instead of running for hours. The pair scan also
// counts the comparisons of large groups as it goes, so block keys that hide a large group (keys
// are a verify rule) cannot take it past the limit either.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "reader/index_file.h"

namespace simdex::reader {

// The mean number of entries of table t sharing the prefix of one of its entries drawn at random,
// from block keys (at most `samples` of them, each placed by a binary search).
double mean_group_size(const TableView& t, uint64_t n, uint64_t samples);

// Entry comparisons of `pairs`/`clusters` (half the sum over prefix groups of size^2) and of a join
// of `queries` queries (each query against its group, and the blocks it decodes).
double pairs_work(const IndexFile& file);
double join_work(const IndexFile& file, uint64_t queries);

// Error(work_limit) when `estimate` exceeds `limit`; the message says both and how to go on.
void check_work(const std::string& command, double estimate, uint64_t limit);

// Comparisons of large groups counted while the pair scan runs, against the same limit.
class WorkCounter {
 public:
  explicit WorkCounter(uint64_t limit) : limit_(limit) {}
  // Groups below this size cost at most n * kSmall / 2 comparisons in all: not counted.
  static constexpr uint64_t kSmall = 256;
  void add_group(uint64_t size) {
    if (size < kSmall) return;
    const uint64_t comparisons = size * (size - 1) / 2;
    if (done_.fetch_add(comparisons, std::memory_order_relaxed) + comparisons > limit_)
      check_work("pairs", static_cast<double>(done_.load()), limit_);
  }

 private:
  uint64_t limit_;
  std::atomic<uint64_t> done_{0};
};

}  // namespace simdex::reader
