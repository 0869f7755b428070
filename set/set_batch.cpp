// The batch jobs of simdex/batch.h over a set. join: each member's own join, its hits resolved
// against the other members (live ids merged, a fingerprint reported from its home member only).
// pairs and clusters: the job of one index of the set's live pairs, written for it (merged_index).
#include <algorithm>

#include "format/thread_count.h"
#include "set/set_merge.h"
#include "set/set_snapshot.h"
#include "writer/radix_sort.h"
#include "writer/run_file.h"
#include "writer/temp_files.h"

namespace simdex::set {

namespace {

// Results handed to the caller in batches (the members' callbacks are already one at a time).
template <typename T>
class Batches {
 public:
  explicit Batches(const std::function<void(std::span<const T>)>& callback) : callback_(callback) {}
  void push(T x) {
    buffer_.push_back(std::move(x));
    ++count_;
    if (buffer_.size() == 1024) flush();
  }
  void flush() {
    if (!buffer_.empty()) callback_(std::span<const T>(buffer_));
    buffer_.clear();
  }
  uint64_t count() const { return count_; }

 private:
  const std::function<void(std::span<const T>)>& callback_;
  std::vector<T> buffer_;
  uint64_t count_ = 0;
};

BatchOptions member_options(const BatchOptions& o, unsigned k) {
  BatchOptions m = o;
  m.k = static_cast<int>(k);
  m.with_ids = true;  // to tell live ids and homes
  m.duplicates = false;
  m.progress = nullptr;
  return m;
}

// A member's join hits, held until a batch of them is resolved against the other members: the
// distinct fingerprints hit are looked up in each other member by one join within 0 bits (one
// table read in order, on all threads), not by a probe each on the one thread that takes the
// results (3M probes for 1M queries against 5M fingerprints in 4 members: bench/RESULTS.md).
// Each hit is reported from its fingerprint's home member only, with the live ids of all members.
class HitResolver {
 public:
  HitResolver(const SetSnapshot& set, const BatchOptions& options, std::size_t held, Batches<JoinHit>& out)
      : set_(set),
        options_(options),
        out_(out),
        held_limit_(std::max<std::size_t>(held, 1)),
        threads_(format::thread_count(options.threads)) {
    lookup_ = member_options(options, 0);
  }

  // Called with member `member`'s hits (its join's callback: one call at a time).
  void add(std::size_t member, std::span<const JoinHit> hits) {
    for (const JoinHit& h : hits) {
      held_.push_back(h);
      if (held_.size() >= held_limit_) resolve(member);
    }
  }

  // Reports the held hits whose home is `member`; none is held after.
  void resolve(std::size_t member) {
    if (held_.empty()) return;
    // The held hits by fingerprint, and the distinct fingerprints as queries.
    order_.resize(held_.size());
    for (std::size_t i = 0; i < held_.size(); ++i) order_[i] = {held_[i].fingerprint, i};
    scratch_.resize(order_.size());
    writer::radix_sort(std::span<writer::Pair>(order_), std::span<writer::Pair>(scratch_), threads_);
    distinct_.clear();
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (i == 0 || order_[i].key != order_[i - 1].key)
        distinct_.push_back({order_[i].key, distinct_.size()});
    // Where else each is held: (distinct fingerprint, member, its ids there), sorted.
    elsewhere_.clear();
    for (std::size_t m = 0; m < set_.members().size(); ++m) {
      if (m == member) continue;
      simdex::join(*set_.members()[m].index, distinct_, lookup_, [&](std::span<const JoinHit> found) {
        for (const JoinHit& f : found) elsewhere_.push_back({f.query, m, f.ids});
      });
    }
    std::sort(elsewhere_.begin(), elsewhere_.end(), [](const Holder& a, const Holder& b) {
      return a.fingerprint != b.fingerprint ? a.fingerprint < b.fingerprint : a.member < b.member;
    });
    std::size_t next = 0;  // in elsewhere_
    for (std::size_t i = 0, d = 0; i < order_.size(); ++d) {
      std::size_t end = i + 1;
      while (end < order_.size() && order_[end].key == order_[i].key) ++end;
      holders_.clear();
      const IdList& own = held_[order_[i].id].ids;
      bool own_listed = false;
      for (; next < elsewhere_.size() && elsewhere_[next].fingerprint == d; ++next) {
        if (!own_listed && elsewhere_[next].member > member) {
          holders_.emplace_back(member, own);
          own_listed = true;
        }
        holders_.emplace_back(elsewhere_[next].member, elsewhere_[next].ids);
      }
      if (!own_listed) holders_.emplace_back(member, own);
      const Resolved r = set_.resolve_holders(holders_);
      if (r.home == member)
        for (; i < end; ++i) {
          JoinHit x = held_[order_[i].id];
          x.ids = options_.with_ids ? r.ids : IdList();
          out_.push(std::move(x));
        }
      i = end;
    }
    held_.clear();
  }

 private:
  struct Holder {
    std::size_t fingerprint;  // in distinct_
    std::size_t member;
    IdList ids;
  };
  const SetSnapshot& set_;
  const BatchOptions& options_;
  Batches<JoinHit>& out_;
  std::size_t held_limit_;
  unsigned threads_;
  BatchOptions lookup_;  // a join within 0 bits, with ids
  std::vector<JoinHit> held_;
  std::vector<writer::Pair> order_, scratch_;  // (fingerprint, position in held_)
  std::vector<Query> distinct_;
  std::vector<Holder> elsewhere_;
  std::vector<std::pair<std::size_t, IdList>> holders_;
};

}  // namespace

BatchStats SetSnapshot::join(std::span<const Query> queries, const BatchOptions& options,
                             const std::function<void(std::span<const JoinHit>)>& on_hits) const {
  return join(queries, options, on_hits, kJoinHeldHits);
}

BatchStats SetSnapshot::join(std::span<const Query> queries, const BatchOptions& options,
                             const std::function<void(std::span<const JoinHit>)>& on_hits,
                             std::size_t held_hits) const {
  if (single()) return simdex::join(*members_[0].index, queries, options, on_hits);
  const unsigned k = search_distance(options.k);
  Batches<JoinHit> out(on_hits);
  HitResolver resolver(*this, options, held_hits, out);
  for (std::size_t i = 0; i < members_.size(); ++i) {
    simdex::join(*members_[i].index, queries, member_options(options, k),
                 [&](std::span<const JoinHit> hits) { resolver.add(i, hits); });
    resolver.resolve(i);
    if (options.progress) options.progress("join", i + 1, members_.size());
  }
  out.flush();
  BatchStats stats;
  stats.results = out.count();
  return stats;
}

Index SetSnapshot::merged_index(const BatchOptions& options) const {
  // In a directory of its own, removed on return (the file is mapped by then), on a signal, or by
  // the next run after a kill; the published file too is removed on a signal.
  const writer::ScratchDirectory scratch(writer::system_temp_directory(), ".simdex-merged-");
  const std::string path = scratch.path() + "/merged.sdx";
  const writer::UnpublishedFile published(path);
  BuildOptions build;
  build.k = manifest_.max_distance;
  build.block_bytes = manifest_.block_bytes;
  build.threads = options.threads;
  if (options.progress)
    build.progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
      options.progress("merging members: " + std::string(stage), done, total);
    };
  write_merged(*this, path, build, writer::Durability::scratch);
  OpenOptions open_options = options_;
  open_options.set_members.clear();
  open_options.preload = OpenOptions::Preload::none;
  return Index::open(path, open_options);  // mapped: the file lives until the index closes
}

// Pairs and clusters of several members: those of one index of the set's live pairs (merged_index),
// where each member's pairs and every two members' join were resolved in all members (a group of
// near-identical documents cost all its pairs, each looked up in every member: 46 s for 160,000
// templated records in 4 members, 0.05 s as one file). The ids are copied out of the merged index,
// which closes on return: valid while the set's Index lives, as a file's are while the file's does.
BatchStats SetSnapshot::find_pairs(const BatchOptions& options,
                                   const std::function<void(std::span<const NearPair>)>& on_pairs) const {
  if (single()) return simdex::find_pairs(*members_[0].index, options, on_pairs);
  search_distance(options.k);
  const Index merged = merged_index(options);
  std::vector<NearPair> owned;
  return simdex::find_pairs(merged, options, [&](std::span<const NearPair> pairs) {
    if (!options.with_ids) return on_pairs(pairs);
    owned.assign(pairs.begin(), pairs.end());
    for (NearPair& p : owned) {
      p.ids_a = owned_copy(p.ids_a);
      p.ids_b = p.a == p.b ? p.ids_a : owned_copy(p.ids_b);
    }
    on_pairs(owned);
  });
}

BatchStats SetSnapshot::find_clusters(
    const BatchOptions& options, const ClusterOptions& cluster_options,
    const std::function<void(std::span<const ClusterMember>)>& on_cluster) const {
  if (single()) return simdex::find_clusters(*members_[0].index, options, cluster_options, on_cluster);
  search_distance(options.k);
  const Index merged = merged_index(options);
  std::vector<ClusterMember> owned;
  return simdex::find_clusters(merged, options, cluster_options, [&](std::span<const ClusterMember> members) {
    owned.assign(members.begin(), members.end());
    for (ClusterMember& m : owned) m.ids = owned_copy(m.ids);
    on_cluster(owned);
  });
}

}  // namespace simdex::set
