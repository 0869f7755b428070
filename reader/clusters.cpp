// simdex::find_clusters: connected components of the "within k" graph. The pair scan unites the
// table-0 ranks of every pair in a lock-free union-find (memory O(n), not O(pairs)) and records each
// rank's fingerprint as it passes table 0; then the members are grouped by root with a counting sort.
#include <algorithm>

#include "reader/batch_pair_scan.h"
#include "reader/batch_work.h"
#include "reader/index_impl.h"
#include "reader/union_find.h"

namespace simdex {

static BatchStats find_clusters_unchecked(
    const Index& index, const BatchOptions& options, const ClusterOptions& cluster_options,
    const std::function<void(std::span<const ClusterMember>)>& on_cluster) {
  const SequentialScan sequential(index_impl(index));
  const reader::IndexFile& file = index_impl(index).file;
  const uint64_t n = file.header().fingerprint_count;
  reader::PairScan scan;
  scan.k = reader::batch_k(file, options);
  scan.threads = reader::batch_threads(options);
  scan.ranks = true;
  scan.progress = options.progress;
  scan.work_limit = options.work_limit;
  reader::check_work("clusters", reader::pairs_work(file), options.work_limit);
  reader::ConcurrentUnionFind sets(n);
  std::vector<uint64_t> fingerprint(n);
  scan.on_pair = [&](unsigned, const reader::FoundPair& p) { sets.unite(p.rank_a, p.rank_b); };
  scan.on_table0_entry = [&](unsigned, uint64_t f, uint64_t rank) {
    if (rank >= n)
      throw Error(errc::block_ranks, "table 0 holds more than " + std::to_string(n) + " entries");
    fingerprint[rank] = f;
  };
  BatchStats stats;
  stats.tables = reader::scan_pairs(file, scan);

  // Members grouped by root (the smallest rank of a component), in rank order within each.
  std::vector<uint64_t> start(n + 1, 0), order(n);
  for (uint64_t r = 0; r < n; ++r) ++start[sets.find(r) + 1];
  for (uint64_t r = 0; r < n; ++r) start[r + 1] += start[r];
  {
    std::vector<uint64_t> fill(start.begin(), start.end() - 1);
    for (uint64_t r = 0; r < n; ++r) order[fill[sets.find(r)]++] = r;
  }
  std::vector<ClusterMember> members;
  for (uint64_t root = 0; root < n; ++root) {
    const uint64_t size = start[root + 1] - start[root];
    if (size == 0) continue;
    members.clear();
    std::size_t ids = 0;
    for (uint64_t i = start[root]; i < start[root + 1]; ++i) {
      members.push_back({fingerprint[order[i]], file.ids_at_rank(order[i])});
      ids += members.back().ids.size();
    }
    if ((cluster_options.size_in_ids ? ids : members.size()) < cluster_options.min_size) continue;
    on_cluster(members);
    ++stats.results;
  }
  return stats;
}

BatchStats find_clusters(const Index& index, const BatchOptions& options,
                         const ClusterOptions& cluster_options,
                         const std::function<void(std::span<const ClusterMember>)>& on_cluster) {
  if (const auto& set = index_impl(index).composite)
    return set->find_clusters(options, cluster_options, on_cluster);
  return read_checked(index_impl(index), true,
                      [&] { return find_clusters_unchecked(index, options, cluster_options, on_cluster); });
}

}  // namespace simdex
