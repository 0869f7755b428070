// Distinct fingerprints, id offsets and ids (writer/index_writer.h's IndexContents) from (key, id)
// pairs in ascending order: what IndexBuilder makes of its sorted pairs, and what a set's merge
// makes of its members' tables merged in order.
#pragma once

#include "writer/external_sorter.h"
#include "writer/u64_store.h"

namespace simdex::writer {

// The distinct fingerprints with their ids, from (key, id) pairs in ascending order (repeats
// possible). key_to_fingerprint undoes the table-0 permutation the keys may carry. id_offsets stays
// empty while every fingerprint has one id (the file then needs no offsets: spec/FORMAT.md, ids),
// which spares a large build a temporary file as big as the ids.
template <typename ForEachPair>
inline void collect(ForEachPair&& for_each_pair, U64Store* fingerprints, U64Store& id_offsets,
                    U64Store& ids) {
  bool first = true, shared = false;
  uint64_t distinct = 0;
  writer::Pair last{};
  for_each_pair([&](const writer::Pair& p) {
    if (!first && p == last) return;
    if (first || p.key != last.key) {
      if (shared) id_offsets.push(ids.size());
      ++distinct;
      if (fingerprints) fingerprints->push(p.key);
    } else if (!shared) {
      // The first fingerprint with a second id: the offsets so far were 0, 1, ..., distinct - 1.
      shared = true;
      for (uint64_t i = 0; i < distinct; ++i) id_offsets.push(i);
    }
    ids.push(p.id);
    last = p;
    first = false;
  });
  if (shared) id_offsets.push(ids.size());
  if (fingerprints) fingerprints->finish();
  id_offsets.finish();
  ids.finish();
}

}  // namespace simdex::writer
