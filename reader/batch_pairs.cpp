// simdex::find_pairs: reader/batch_pair_scan.h's pairs, with ids, handed to the caller in batches.
#include <memory>

#include "reader/batch_pair_scan.h"
#include "reader/batch_work.h"
#include "reader/index_impl.h"

namespace simdex {

static BatchStats find_pairs_unchecked(const Index& index, const BatchOptions& options,
                                       const std::function<void(std::span<const NearPair>)>& on_pairs) {
  const SequentialScan sequential(index_impl(index));
  const reader::IndexFile& file = index_impl(index).file;
  reader::PairScan scan;
  scan.k = reader::batch_k(file, options);
  scan.threads = reader::batch_threads(options);
  scan.ranks = options.with_ids;
  scan.progress = options.progress;
  scan.work_limit = options.work_limit;
  std::mutex lock;
  std::atomic<uint64_t> count{0};
  std::vector<std::unique_ptr<reader::BatchSink<NearPair>>> sinks;
  for (unsigned w = 0; w < scan.threads; ++w)
    sinks.push_back(std::make_unique<reader::BatchSink<NearPair>>(on_pairs, lock, count));
  scan.on_pair = [&](unsigned worker, const reader::FoundPair& p) {
    NearPair out{p.a, p.b, p.distance, {}, {}};
    if (options.with_ids) {
      out.ids_a = file.ids_at_rank(p.rank_a);
      out.ids_b = file.ids_at_rank(p.rank_b);
    }
    sinks[worker]->push(out);
  };
  if (options.with_ids && options.duplicates)
    scan.on_table0_entry = [&](unsigned worker, uint64_t fingerprint, uint64_t rank) {
      const IdList ids = file.ids_at_rank(rank);
      if (ids.size() > 1) sinks[worker]->push(NearPair{fingerprint, fingerprint, 0, ids, ids});
    };
  BatchStats stats;
  stats.tables = reader::scan_pairs(file, scan);
  for (auto& s : sinks) s->flush();
  stats.results = count.load();
  return stats;
}

BatchStats find_pairs(const Index& index, const BatchOptions& options,
                      const std::function<void(std::span<const NearPair>)>& on_pairs) {
  if (const auto& set = index_impl(index).composite) return set->find_pairs(options, on_pairs);
  return read_checked(index_impl(index), true,
                      [&] { return find_pairs_unchecked(index, options, on_pairs); });
}

}  // namespace simdex
