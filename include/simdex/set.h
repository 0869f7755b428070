// Writing an index set (spec/SET.md): a manifest naming member index files and removed ids, grown
// by adding members, shrunk by removing ids, compacted by merging. Read it with simdex::Index::open
// like any index file.
//
//   simdex::SetWriter set("docs.sdxs");            // locks the set; creates it on the first add
//   simdex::IndexBuilder b({.k = 3});
//   b.add(0x1234abcd5678ef00, 42);
//   set.add(b);                                     // a new member, published atomically
//   set.remove(std::vector<uint64_t>{7, 9});        // ids 7 and 9 are no longer live
//   set.merge();                                    // one member, removed ids dropped
//
// Every change writes new files and publishes a new manifest by rename: readers keep the snapshot
// they opened. Files the new manifest no longer names are removed after it is published.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "simdex/builder.h"
#include "simdex/error.h"
#include "simdex/export.h"

namespace simdex {

struct SetWriterOptions {
  // Another writer holds the set's lock (SET.lock): wait for it (true) or throw Error(io) at once.
  bool wait_for_lock = true;
  // After add: merge members of similar size (size-tiered: a tier holds members whose sizes are
  // within a factor of `tier_ratio`; once `tier_ratio` members share a tier they are merged), so
  // that the member count stays O(log n) and a small add never rewrites a large member.
  bool merge_after_add = true;
  unsigned tier_ratio = 4;
  // For merges: memory bound, temporary directory (default: the set's directory), threads,
  // progress, as for IndexBuilder. k and block size are the set's. While waiting for the lock,
  // progress is called ("lock", 0, 0) every 50 ms, and may throw to give up.
  BuildOptions build{};
};

struct SetChange {
  uint64_t generation = 0;           // of the manifest published
  std::vector<std::string> written;  // files written (names relative to the set's directory)
  std::vector<std::string> removed;  // files removed after publication
  uint64_t bytes_written = 0;        // all files written, manifest included
  std::size_t members = 0;           // member count after the change
  uint64_t merged_entries = 0;       // (fingerprint, id) pairs read by merges
  // add(): the warning to give when the merge after it failed ("the pairs were added (generation G),
  // but the merge of members after it failed: WHY"), or empty. The pairs were published all the
  // same: adding them again would hold them twice; the next add or merge() merges.
  std::string merge_failure;
};

class SIMDEX_EXPORT SetWriter {
 public:
  // Takes the set's lock (see SetWriterOptions::wait_for_lock) and reads its manifest, if any: a set
  // that does not exist yet is created by the first add().
  explicit SetWriter(std::string manifest_path, SetWriterOptions options = {});
  ~SetWriter();
  SetWriter(const SetWriter&) = delete;
  SetWriter& operator=(const SetWriter&) = delete;

  bool exists() const;
  // The generation of the manifest this writer last read or published (0 before the first add):
  // after a change that threw, whether it published something first.
  uint64_t generation() const;
  unsigned max_distance() const;  // the set's k (Error(usage) before the first add)
  uint32_t block_bytes() const;

  // Writes the builder's pairs as a new member (the builder's k and block size must be the set's)
  // and publishes; then merges members of similar size unless merge_after_add is false. Throws only
  // when nothing was published: a failed merge after the publication is SetChange::merge_failure.
  // A builder without pairs changes an existing set in nothing (no member, no manifest: the SetChange
  // names the set's generation and writes no file); the first add creates the set all the same.
  SetChange add(IndexBuilder& builder);
  // Publishes a tombstone: these ids are no longer live (an id added again later is live). No ids
  // change the set in nothing, as add() of no pairs (Error(io) all the same when there is no set).
  SetChange remove(std::span<const uint64_t> ids);
  // Compacts every member into one holding exactly the live pairs; drops every tombstone.
  SetChange merge();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace simdex
