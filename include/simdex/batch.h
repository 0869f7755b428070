// Batch work over an index (the paper's batch mode): every near-duplicate pair within the index,
// a set of queries joined against it, and the clusters the pairs form. All of them run on several
// threads and stream their results: memory does not grow with the number of pairs.
//
//   const auto index = simdex::Index::open("docs.sdx");
//   simdex::BatchOptions o;                       // k: the index's; threads: all cores
//   simdex::find_pairs(index, o, [](std::span<const simdex::NearPair> batch) {
//     for (const auto& p : batch) use(p.a, p.b, p.distance);
//   });
//
// Callbacks are called one at a time (never concurrently), from worker threads, with batches of
// results; the set of results does not depend on the thread count, their order does (sort them if
// you need an order). Every function throws simdex::Error: errc::usage when k exceeds the index's k,
// errc::work_limit when the work would exceed options.work_limit, a format code when a block turns
// out to be corrupt.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "simdex/export.h"
#include "simdex/index.h"

namespace simdex {

struct BatchOptions {
  int k = -1;             // -1: the index's k; more than it is a usage error
  unsigned threads = 0;   // 0: all cores; at most 4096 are used
  bool with_ids = false;  // fill the ids of results (costs a lookup in table 0 for hits of other tables)
  // find_pairs with ids: also report each fingerprint with several ids as a pair (f, f, 0).
  bool duplicates = false;
  // Called from the calling thread a few times a second: the stage, its work units done and in all.
  // The stage is the job's name ("pairs", "clusters", "join"); pairs and clusters of an index set
  // of several members first report "merging members: " and a stage of BuildOptions::progress (the
  // set written as one temporary index). It may throw to stop the work (Python's Ctrl-C does): the
  // exception comes out of the call once its threads have stopped.
  std::function<void(std::string_view stage, uint64_t done, uint64_t total)> progress{};
  // Entry comparisons a command may do: a guard against runaway work, not a meter. Estimated from
  // the tables' prefixes and block keys before pairs and join start, at the granularity of blocks
  // (groups within a block count little), and for pairs and clusters counted as they run in groups
  // of 256 entries or more (smaller groups cost at most 128 comparisons an entry and are not
  // counted): so a small job passes even a limit of 0. clusters is checked only as it runs: it
  // compares an entry with each component of its group until one member is within k, so a group
  // of near-identical entries costs about its size, far below the estimate of every two entries. Above the
  // limit it throws Error(work_limit) instead of running for hours on a file whose prefixes group too many
  // entries (prefix_bits = 0, too short a prefix for the file's size). The default, 2^40 (about 1.1e12, some
  // minutes of one core), passes the paper's schemes up to 1B fingerprints except paper-4 pairs above about
  // 500M. Below the limit, work whose probes read more than 65,536 entries each (a degenerate prefix) is
  // refused too once it passes about 1e9 comparisons. UINT64_MAX: no limit of either kind.
  uint64_t work_limit = kDefaultWorkLimit;
  static constexpr uint64_t kDefaultWorkLimit = uint64_t{1} << 40;
};

// One pair of distinct stored fingerprints within k bits, a < b (or a == b for a duplicates group).
struct NearPair {
  uint64_t a = 0, b = 0;
  unsigned distance = 0;
  IdList ids_a, ids_b;  // with_ids only; valid while the Index lives
};

struct Query {
  uint64_t fingerprint = 0;
  uint64_t id = 0;
};

// A query and a stored fingerprint within k bits of it.
struct JoinHit {
  std::size_t query = 0;  // index into the query span
  uint64_t query_id = 0;
  uint64_t query_fingerprint = 0;
  uint64_t fingerprint = 0;
  unsigned distance = 0;
  IdList ids;  // with_ids only
};

struct BatchTableStats {
  uint64_t blocks = 0;          // blocks of the table
  uint64_t blocks_decoded = 0;  // blocks the batch decoded in it (each at most once)
  uint64_t results = 0;         // results first found through this table
  // False when the table was not read: below the index's k, every pair within k that it groups
  // an earlier table groups too (spec/FORMAT.md §9), so it would report nothing.
  bool read = true;
};

struct BatchStats {
  uint64_t results = 0;  // pairs, hits or clusters reported
  std::vector<BatchTableStats> tables;
};

// Every pair of distinct stored fingerprints within k bits, each once.
SIMDEX_EXPORT BatchStats find_pairs(const Index& index, const BatchOptions& options,
                                    const std::function<void(std::span<const NearPair>)>& on_pairs);

// Every (query, stored fingerprint) pair within k bits, each once per query. Duplicate queries are
// answered separately.
SIMDEX_EXPORT BatchStats join(const Index& index, std::span<const Query> queries, const BatchOptions& options,
                              const std::function<void(std::span<const JoinHit>)>& on_hits);

struct ClusterMember {
  uint64_t fingerprint = 0;
  IdList ids;  // always filled
};

struct ClusterOptions {
  std::size_t min_size = 2;  // clusters smaller than this are not reported
  bool size_in_ids = false;  // size = number of ids (documents) instead of fingerprints
};

// Connected components of the "within k" graph over the stored fingerprints. Called from the calling
// thread, one component at a time, in the order of their first member in table 0; members in table-0
// order (for files written by simdex: ascending fingerprints).
SIMDEX_EXPORT BatchStats find_clusters(const Index& index, const BatchOptions& options,
                                       const ClusterOptions& cluster_options,
                                       const std::function<void(std::span<const ClusterMember>)>& on_cluster);

}  // namespace simdex
