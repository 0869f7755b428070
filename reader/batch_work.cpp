#include "reader/batch_work.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "reader/probe.h"
#include "simdex/error.h"

namespace simdex::reader {

namespace {

// The samples of each table: fewer when there are many tables, so a file of 4096 tables costs
// about as much to estimate as one of 16.
uint64_t samples_per_table(const IndexFile& file) {
  return std::max<uint64_t>(16, 65536 / file.tables().size());
}

std::string scientific(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}

}  // namespace

BlockRun prefix_run(const TableView& t, uint64_t j) {
  const uint64_t blocks = t.block_count();
  const auto [lo, hi] = prefix_range(t.key(j), t.prefix_bits());
  const uint64_t first = j == 0 || t.key(j - 1) < lo ? j : t.first_block_not_below(lo);
  if (hi == ~uint64_t{0}) return {first, blocks};
  if (j + 1 == blocks || t.key(j + 1) > hi) return {first, j + 1};
  return {first, t.first_block_not_below(hi + 1, first)};
}

double mean_group_size(const TableView& t, uint64_t n, uint64_t samples) {
  const uint64_t blocks = t.block_count();
  if (blocks == 0) return 0;
  const unsigned p = t.prefix_bits();
  if (p == 0) return static_cast<double>(n);
  const double per_block = static_cast<double>(n) / static_cast<double>(blocks);
  const unsigned shift = 64 - p;
  auto prefix = [&](uint64_t j) { return p == 64 ? t.key(j) : t.key(j) >> shift; };
  // The entries of block j lie between the previous key and its own: spread, we assume, evenly over
  // the prefixes from the previous key's to its key's.
  auto share = [&](uint64_t j) {
    const double span = static_cast<double>(prefix(j) - (j == 0 ? 0 : prefix(j - 1))) + 1;
    return per_block / span;
  };
  const uint64_t count = std::min(samples, blocks);
  auto sample = [&](uint64_t s) { return blocks * (2 * s + 1) / (2 * count); };
  // The samples' keys loaded at once, their misses overlapping: one after the other, with a search
  // each, they were 3.5% of a join of 4,096 queries on caches that another batch had taken
  // (bench/RESULTS.md).
  for (uint64_t s = 0; s < count; ++s) __builtin_prefetch(t.keys + 8 * sample(s));
  double sum = 0;
  for (uint64_t s = 0; s < count; ++s) {
    // The blocks whose keys share block j's prefix: all their entries after the first block's
    // key share it too; the group also takes in the end of the first of them and the start of the
    // next block (about one share in all), and at least the key itself.
    const auto [first, end] = prefix_run(t, sample(s));
    const uint64_t run = std::max<uint64_t>(end, first + 1) - first;
    const double ends = first + run < blocks ? (share(first) + share(first + run)) / 2 : share(first);
    sum += per_block * static_cast<double>(run - 1) + std::max(1.0, ends);
  }
  return sum / static_cast<double>(count);
}

Work pairs_work(const IndexFile& file, unsigned k) {
  const uint64_t n = file.header().fingerprint_count;
  Work work;
  // Each entry against the others of its group, each pair once.
  for (const uint32_t i : file.tables_within(k)) {
    const TableView& t = file.tables()[i];
    const double group = mean_group_size(t, n, samples_per_table(file));
    work.comparisons += static_cast<double>(n) * (group - 1) / 2;
    work.largest_group = std::max(work.largest_group, group);
  }
  return work;
}

Work join_work(const IndexFile& file, unsigned k, uint64_t queries, format::TaskPool& pool) {
  const uint64_t n = file.header().fingerprint_count;
  Work work;
  if (n == 0) return work;
  const auto q = static_cast<double>(queries);
  // A small batch's estimate costs a small part of its work: a sample per 16 queries (each sample
  // costs about what a probe does), at least 256, enough to tell a degenerate prefix. (A sample per
  // query was 7% of a join of 4,096 queries against 1M, paper-10.)
  const uint64_t samples = std::min(samples_per_table(file), std::max<uint64_t>(256, queries / 16));
  const auto& all = file.tables();
  const std::vector<uint32_t>& tables = file.tables_within(k);
  std::vector<double> group(tables.size());
  pool.run(tables.size(), [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
    group[i] = mean_group_size(all[tables[i]], n, samples);
  });
  for (std::size_t t = 0; t < tables.size(); ++t) {  // summed in table order: the same estimate always
    const double per_block = static_cast<double>(n) / static_cast<double>(all[tables[t]].block_count());
    work.comparisons += q * group[t] + std::min(q * per_block / 2, static_cast<double>(n));
    work.largest_group = std::max(work.largest_group, group[t]);
  }
  return work;
}

void check_work(const std::string& command, const Work& work, uint64_t limit) {
  const bool over_limit = work.comparisons > static_cast<double>(limit);
  const bool degenerate =
      limit != UINT64_MAX && work.largest_group > kLargestSaneGroup && work.comparisons > kGroupWorkFloor;
  if (!over_limit && !degenerate) return;
  const std::string why = over_limit ? "above the limit of " + scientific(static_cast<double>(limit))
                                     : "with probes that read about " + scientific(work.largest_group) +
                                           " entries each (more than " + scientific(kLargestSaneGroup) + ")";
  throw Error(errc::work_limit,
              command + " would compare " + (work.counted ? "at least " : "about ") +
                  scientific(work.comparisons) + " pairs of entries, " + why +
                  ": the tables' prefixes put many entries together, because they have few prefix bits for "
                  "this many fingerprints or because the fingerprints share their leading bits (dense, "
                  "clustered data, where no scheme shortens the work). To go on anyway: --force (command "
                  "line), force=True (Python), BatchOptions::work_limit = UINT64_MAX (C++); for fingerprints "
                  "spread like random ones, rebuild with a scheme of longer prefixes (more tables or blocks: "
                  "`simdex plan N`, `simdex build --scheme auto`)");
}

}  // namespace simdex::reader
