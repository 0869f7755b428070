// The batch jobs of simdex/batch.h over a set: each member's own job, its results resolved against
// the other members (live ids merged, a fingerprint reported from its home member only), plus the
// pairs across members: the fingerprints at home in one member joined against another.
#include <algorithm>

#include "reader/fingerprint_scan.h"
#include "reader/union_find.h"
#include "set/set_snapshot.h"

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

// The fingerprints at home in member `i`, as queries.
std::vector<Query> home_queries(const SetSnapshot& s, std::size_t i) {
  std::vector<Query> qs;
  reader::for_each_fingerprint(*s.members()[i].index, [&](uint64_t f, const IdList& ids) {
    if (s.resolve(f, i, ids).home == i) qs.push_back({f, 0});
  });
  return qs;
}

}  // namespace

BatchStats SetSnapshot::join(std::span<const Query> queries, const BatchOptions& options,
                             const std::function<void(std::span<const JoinHit>)>& on_hits) const {
  if (single()) return simdex::join(*members_[0].index, queries, options, on_hits);
  const unsigned k = search_distance(options.k);
  Batches<JoinHit> out(on_hits);
  for (std::size_t i = 0; i < members_.size(); ++i) {
    simdex::join(*members_[i].index, queries, member_options(options, k), [&](std::span<const JoinHit> hits) {
      for (const JoinHit& h : hits) {
        Resolved r = resolve(h.fingerprint, i, h.ids);
        if (r.home != i) continue;
        JoinHit x = h;
        x.ids = options.with_ids ? std::move(r.ids) : IdList();
        out.push(std::move(x));
      }
    });
    if (options.progress) options.progress(i + 1, members_.size());
  }
  out.flush();
  BatchStats stats;
  stats.results = out.count();
  return stats;
}

BatchStats SetSnapshot::find_pairs(const BatchOptions& options,
                                   const std::function<void(std::span<const NearPair>)>& on_pairs) const {
  if (single()) return simdex::find_pairs(*members_[0].index, options, on_pairs);
  const unsigned k = search_distance(options.k);
  const BatchOptions mo = member_options(options, k);
  Batches<NearPair> out(on_pairs);
  const std::size_t m = members_.size();
  const uint64_t steps = m + m * (m - 1) / 2;
  uint64_t step = 0;
  auto emit = [&](uint64_t a, uint64_t b, unsigned d, IdList ids_a, IdList ids_b) {
    if (a > b) {
      std::swap(a, b);
      std::swap(ids_a, ids_b);
    }
    if (!options.with_ids) ids_a = ids_b = IdList();
    out.push(NearPair{a, b, d, std::move(ids_a), std::move(ids_b)});
  };
  for (std::size_t i = 0; i < m; ++i) {
    // Pairs within member i whose two fingerprints are at home there.
    simdex::find_pairs(*members_[i].index, mo, [&](std::span<const NearPair> pairs) {
      for (const NearPair& p : pairs) {
        Resolved a = resolve(p.a, i, p.ids_a);
        if (a.home != i) continue;
        Resolved b = resolve(p.b, i, p.ids_b);
        if (b.home == i) emit(p.a, p.b, p.distance, std::move(a.ids), std::move(b.ids));
      }
    });
    if (options.with_ids && options.duplicates)
      reader::for_each_fingerprint(*members_[i].index, [&](uint64_t f, const IdList& ids) {
        Resolved r = resolve(f, i, ids);
        if (r.home == i && r.ids.size() > 1) out.push(NearPair{f, f, 0, r.ids, r.ids});
      });
    if (options.progress) options.progress(++step, steps);
  }
  // Pairs across members x < y: the smaller member's home fingerprints joined against the larger.
  for (std::size_t x = 0; x < m; ++x)
    for (std::size_t y = x + 1; y < m; ++y) {
      const bool x_smaller = members_[x].entry.count <= members_[y].entry.count;
      const std::size_t small = x_smaller ? x : y, large = x_smaller ? y : x;
      const std::vector<Query> qs = home_queries(*this, small);
      simdex::join(*members_[large].index, qs, mo, [&](std::span<const JoinHit> hits) {
        for (const JoinHit& h : hits) {
          Resolved b = resolve(h.fingerprint, large, h.ids);
          if (b.home != large) continue;
          IdList ids_a = options.with_ids ? resolve(h.query_fingerprint, Resolved::kNone, {}).ids : IdList();
          emit(h.query_fingerprint, h.fingerprint, h.distance, std::move(ids_a), std::move(b.ids));
        }
      });
      if (options.progress) options.progress(++step, steps);
    }
  out.flush();
  BatchStats stats;
  stats.results = out.count();
  return stats;
}

BatchStats SetSnapshot::find_clusters(
    const BatchOptions& options, const ClusterOptions& cluster_options,
    const std::function<void(std::span<const ClusterMember>)>& on_cluster) const {
  if (single()) return simdex::find_clusters(*members_[0].index, options, cluster_options, on_cluster);
  search_distance(options.k);
  // Every live fingerprint with its ids, ascending; components by a union-find over their positions.
  std::vector<std::pair<uint64_t, IdList>> live;
  for_each_live([&](uint64_t f, std::size_t, const IdList& ids) { live.emplace_back(f, ids); });
  std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const uint64_t n = live.size();
  auto position = [&](uint64_t f) {
    return static_cast<uint64_t>(
        std::lower_bound(live.begin(), live.end(), f, [](const auto& e, uint64_t v) { return e.first < v; }) -
        live.begin());
  };
  reader::ConcurrentUnionFind sets(n);
  BatchOptions po = options;
  po.with_ids = false;
  po.duplicates = false;
  find_pairs(po, [&](std::span<const NearPair> pairs) {
    for (const NearPair& p : pairs) sets.unite(position(p.a), position(p.b));
  });
  std::vector<std::vector<uint64_t>> groups(n);
  for (uint64_t r = 0; r < n; ++r) groups[sets.find(r)].push_back(r);
  BatchStats stats;
  std::vector<ClusterMember> members;
  for (uint64_t root = 0; root < n; ++root) {
    if (groups[root].empty()) continue;
    members.clear();
    std::size_t ids = 0;
    for (uint64_t r : groups[root]) {
      members.push_back({live[r].first, live[r].second});
      ids += live[r].second.size();
    }
    if ((cluster_options.size_in_ids ? ids : members.size()) < cluster_options.min_size) continue;
    on_cluster(members);
    ++stats.results;
  }
  return stats;
}

}  // namespace simdex::set
