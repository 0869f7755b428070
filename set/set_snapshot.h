// An open index set (spec/SET.md): the manifest read once, its members and tombstones opened and
// checked, answering every call of Index as the one index of the set's live pairs would (§6).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "format/set_manifest.h"
#include "reader/composite.h"
#include "simdex/index.h"

namespace simdex::set {

struct OpenMember {
  format::SetEntry entry;
  std::shared_ptr<const Index> index;
  bool all_live = true;  // no tombstone is newer than the member: every pair is live
};

// Where a fingerprint's live ids are: its home (the first member holding a live id of it, or
// kNone) and the ids, merged from every member holding them.
struct Resolved {
  static constexpr std::size_t kNone = SIZE_MAX;
  std::size_t home = kNone;
  IdList ids;
};

class SetSnapshot final : public reader::IndexComposite {
 public:
  // Opens the set at `path` (rules of spec/SET.md §5). `previous`: the snapshot being reopened,
  // whose members are shared when unchanged; Error(stale_manifest) when the manifest is older.
  static std::shared_ptr<const SetSnapshot> open(const std::string& path, const OpenOptions& options,
                                                 const SetSnapshot* previous);

  const std::string& path() const { return path_; }
  const format::SetManifest& manifest() const { return manifest_; }
  const std::vector<OpenMember>& members() const { return members_; }
  // True when the answers of member 0 alone are the set's (one member, nothing removed from it).
  bool single() const { return members_.size() == 1 && members_[0].all_live; }
  bool live(uint64_t id, const OpenMember& member) const;
  // The live ids of `fingerprint` in the members listed (each with the ids it holds), merged: a
  // view into a member's mapping when one member holds them all, else an owned list.
  IdList merge_live(const std::vector<std::pair<std::size_t, IdList>>& holders) const;
  // Looks `fingerprint` up in every member (member `known`'s ids are given, -1: none).
  Resolved resolve(uint64_t fingerprint, std::size_t known, const IdList& known_ids) const;
  // The same from the members holding it, listed in member order with the ids each holds.
  Resolved resolve_holders(const std::vector<std::pair<std::size_t, IdList>>& holders) const;

  uint64_t fingerprint_count() const override;
  unsigned max_distance() const override { return manifest_.max_distance; }
  unsigned search_distance(int k) const override { return members_[0].index->search_distance(k); }
  std::size_t table_count() const override { return members_[0].index->table_count(); }
  void query(uint64_t fingerprint, unsigned k, std::vector<Hit>& out) const override;
  IdList ids_of(uint64_t fingerprint) const override { return resolve(fingerprint, Resolved::kNone, {}).ids; }
  IndexInfo info() const override;
  uint64_t checksum() const override { return manifest_.checksum(); }
  std::optional<FingerprintSettings> fingerprint_settings() const override;
  VerifyReport verify() const override;
  void check_unchanged() const override;
  Index reopen() const override;
  BatchStats find_pairs(const BatchOptions& options,
                        const std::function<void(std::span<const NearPair>)>& on_pairs) const override;
  BatchStats join(std::span<const Query> queries, const BatchOptions& options,
                  const std::function<void(std::span<const JoinHit>)>& on_hits) const override;
  // The same, resolving a member's hits against the others whenever `held_hits` are held (at the
  // end of each member's join too): kJoinHeldHits (about 36 MiB of hits) unless a test asks for fewer.
  static constexpr std::size_t kJoinHeldHits = std::size_t{1} << 19;
  BatchStats join(std::span<const Query> queries, const BatchOptions& options,
                  const std::function<void(std::span<const JoinHit>)>& on_hits, std::size_t held_hits) const;
  BatchStats find_clusters(
      const BatchOptions& options, const ClusterOptions& cluster_options,
      const std::function<void(std::span<const ClusterMember>)>& on_cluster) const override;

  // Calls visit(fingerprint, member, live ids) once for every live fingerprint of the set, from
  // its home member, member by member.
  void for_each_live(const std::function<void(uint64_t, std::size_t, const IdList&)>& visit) const;

  // The set's live pairs written as one index file (set_merge.h) in the system's temporary
  // directory, opened and unlinked (the mapping keeps it until the Index closes): what pairs and
  // clusters of several members run over. Its stages reported through options.progress as
  // "merging members: STAGE".
  Index merged_index(const BatchOptions& options) const;

 private:
  std::string path_;
  std::string file_;  // the manifest's file, links resolved (manifest_file), absolute
  OpenOptions options_;
  format::SetManifest manifest_;
  std::vector<OpenMember> members_;
  std::vector<std::pair<uint64_t, uint64_t>> removed_;  // (id, newest removal generation), by id
  mutable std::once_flag counted_;
  mutable uint64_t live_fingerprints_ = 0, live_ids_ = 0;
};

// `ids` copied into memory that the list owns (valid after the index it viewed closes).
IdList owned_copy(const IdList& ids);

// A member, opened as an index file (never as a set) and checked against its entry (rule 12).
std::shared_ptr<const Index> open_member(const std::string& manifest_path,
                                         const format::SetManifest& manifest, const format::SetEntry& entry,
                                         const OpenOptions& options);

// Tombstone `entry`'s file read and checked against its entry (rule 13).
format::Tombstone read_tombstone(const std::string& manifest_path, const format::SetEntry& entry);

// The checks SetSnapshot::open makes of every member and tombstone of `manifest`, one file open at
// a time: what a writer checks of the set it changes (a set that readers refuse gets no new
// generation), without a descriptor per member.
void check_entries(const std::string& manifest_path, const format::SetManifest& manifest);

// Index::open for a path whose magic is the set's.
std::unique_ptr<Index::Impl> open_set(const std::string& path, const OpenOptions& options);

}  // namespace simdex::set
