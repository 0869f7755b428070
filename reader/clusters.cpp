// simdex::find_clusters: connected components of the "within k" graph. The pair scan unites the
// table-0 ranks of every pair in a lock-free union-find (memory O(n), not O(pairs)) and records each
// rank's fingerprint as it passes table 0; then the members that are not their component's root
// are gathered on all threads and sorted by root.
#include <algorithm>

#include "format/huge_pages.h"
#include "format/run_tasks.h"
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
  scan.components_only = true;  // the union-find below needs no more
  scan.progress = options.progress;
  scan.work_limit = options.work_limit;
  scan.command = "clusters";
  reader::ConcurrentUnionFind sets(n, scan.threads);
  // Every rank's fingerprint, each written once as table 0 is scanned (ranks are 0..n-1 exactly).
  format::HugeBuffer<uint64_t> fingerprint(n);
  scan.on_pair = [&](unsigned, const reader::FoundPair& p) { sets.unite(p.rank_a, p.rank_b); };
  scan.on_table0_entry = [&](unsigned, uint64_t f, uint64_t rank) {
    if (rank >= n)
      throw Error(errc::block_ranks, "table 0 holds more than " + std::to_string(n) + " entries");
    fingerprint[rank] = f;
  };
  BatchStats stats;
  stats.tables = reader::scan_pairs(file, scan);

  // Members grouped by root (the smallest rank of a component), in rank order within each. Most
  // fingerprints are usually alone: only the others (followers: their root is another rank) are
  // gathered, slice by slice on all threads, then ordered by (root, rank).
  sets.flatten(scan.threads);
  const unsigned slices = format::parts_for(n, scan.threads);
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> found(slices);  // (root, rank)
  format::run_tasks(slices, slices, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    for (auto [r, end] = format::part_range(n, s, slices); r < end; ++r)
      if (const uint64_t root = sets.find(r); root != r) found[s].emplace_back(root, r);
  });
  std::vector<std::pair<uint64_t, uint64_t>> followers;
  for (auto& f : found) {
    followers.insert(followers.end(), f.begin(), f.end());
    std::vector<std::pair<uint64_t, uint64_t>>().swap(f);
  }
  std::sort(followers.begin(), followers.end());

  std::vector<ClusterMember> members;
  // The cluster of `root` and followers [first, end).
  auto emit = [&](uint64_t root, std::size_t first, std::size_t end) {
    if (!cluster_options.size_in_ids && 1 + (end - first) < cluster_options.min_size) return;
    members.clear();
    std::size_t ids = 0;
    auto add = [&](uint64_t rank) {
      members.push_back({fingerprint[rank], file.ids_at_rank(rank)});
      ids += members.back().ids.size();
    };
    add(root);
    for (std::size_t i = first; i < end; ++i) add(followers[i].second);
    if ((cluster_options.size_in_ids ? ids : members.size()) < cluster_options.min_size) return;
    on_cluster(members);
    ++stats.results;
  };
  const bool lone_ones_count = cluster_options.size_in_ids || cluster_options.min_size <= 1;
  auto end_of = [&](uint64_t root, std::size_t i) {  // of root's followers from i
    while (i < followers.size() && followers[i].first == root) ++i;
    return i;
  };
  std::size_t next = 0;
  if (lone_ones_count) {
    for (uint64_t root = 0; root < n; ++root) {
      if (sets.find(root) != root) continue;
      const std::size_t end = end_of(root, next);
      emit(root, next, end);
      next = end;
    }
  } else {
    while (next < followers.size()) {  // only roots with followers can reach min_size
      const uint64_t root = followers[next].first;
      const std::size_t end = end_of(root, next);
      emit(root, next, end);
      next = end;
    }
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
