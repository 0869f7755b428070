// The batch jobs of simdex/batch.h over a set. join: each member's own join, its hits resolved
// against the other members (live ids merged, a fingerprint reported from its home member only).
// pairs and clusters: the job of one index of the set's live pairs, written for it (merged_index).
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "set/set_merge.h"
#include "set/set_snapshot.h"
#include "writer/run_file.h"

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

}  // namespace

BatchStats SetSnapshot::join(std::span<const Query> queries, const BatchOptions& options,
                             const std::function<void(std::span<const JoinHit>)>& on_hits) const {
  if (single()) return simdex::join(*members_[0].index, queries, options, on_hits);
  const unsigned k = search_distance(options.k);
  Batches<JoinHit> out(on_hits);
  // Each stored fingerprint resolved once while it keeps being hit, not once a hit: a dense join
  // hits the same fingerprints from many queries (2,000 templated records against 160,000 in 4
  // members: 2.4M hits of 38,864 fingerprints, each resolved by a lookup in every member). Cleared
  // past kMemo fingerprints, so that memory stays bounded on a join of many distinct hits.
  constexpr std::size_t kMemo = std::size_t{1} << 18;
  std::unordered_map<uint64_t, Resolved> memo;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    simdex::join(*members_[i].index, queries, member_options(options, k), [&](std::span<const JoinHit> hits) {
      for (const JoinHit& h : hits) {
        auto it = memo.find(h.fingerprint);
        if (it == memo.end()) {
          if (memo.size() >= kMemo) memo.clear();
          it = memo.emplace(h.fingerprint, resolve(h.fingerprint, i, h.ids)).first;
        }
        const Resolved& r = it->second;
        if (r.home != i) continue;
        JoinHit x = h;
        x.ids = options.with_ids ? r.ids : IdList();
        out.push(std::move(x));
      }
    });
    if (options.progress) options.progress("join", i + 1, members_.size());
  }
  out.flush();
  BatchStats stats;
  stats.results = out.count();
  return stats;
}

Index SetSnapshot::merged_index(const BatchOptions& options) const {
  // In a directory of its own: the cleanup of other processes' temporary files (writer/temp_files.h)
  // would remove it between its publication and its open, as nobody holds a lock on it then.
  const std::string tmp = writer::system_temp_directory();
  std::string dir = tmp + "/simdex-set-XXXXXX";
  if (!::mkdtemp(dir.data()))
    throw Error(errc::io, "cannot create a directory in '" + tmp + "': " + std::strerror(errno));
  const std::string path = dir + "/merged.sdx";
  struct Cleanup {
    const std::string &file, &dir;
    ~Cleanup() {
      std::error_code ec;  // the file is mapped by then, or was never written
      std::filesystem::remove(file, ec);
      std::filesystem::remove(dir, ec);
    }
  } cleanup{path, dir};
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
