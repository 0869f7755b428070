// Writing the live pairs of some members of a set as one index file (spec/SET.md §4): a streaming
// k-way merge of the members' table 0 (ascending fingerprints) into the writer, in memory bounded
// by the build options; members whose table 0 is permuted (not written by simdex) go through the
// builder's external sort instead.
#pragma once

#include <string>

#include "set/set_snapshot.h"
#include "simdex/builder.h"
#include "writer/atomic_file.h"

namespace simdex::set {

struct MergeSummary {
  BuildSummary build;
  uint64_t entries_read = 0;  // (fingerprint, id) pairs read from the members
  bool streamed = false;      // the k-way merge (else the builder re-sorted)
};

// The same bytes as an IndexBuilder given the live pairs and `options` (k and block size: the set's).
// Durability::scratch: a file for this process only, not flushed to disk, recording no fingerprint
// settings (SetSnapshot::merged_index, for pairs and clusters). Else it records the members' settings:
// Error(settings_mismatch) where two members record different ones.
MergeSummary write_merged(const SetSnapshot& snapshot, const std::string& path, const BuildOptions& options,
                          writer::Durability durability = writer::Durability::durable);

}  // namespace simdex::set
