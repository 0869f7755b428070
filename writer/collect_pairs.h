// Distinct fingerprints, id offsets and ids (writer/index_writer.h's IndexContents) from (key, id)
// pairs in ascending order: what IndexBuilder makes of its sorted pairs, and what a set's merge
// makes of its members' tables merged in order.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "format/run_tasks.h"
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

// collect of pairs sorted in memory without repeats into empty in-memory stores, on the pool's
// threads: each thread's part of the pairs counts the keys that start there, then writes them at
// the places those counts give. The same stores as collect's (at 100M, 1.2 s on one thread while
// 15 of 16 waited).
inline void collect_sorted(std::span<const Pair> pairs, U64Store& fingerprints, U64Store& id_offsets,
                           U64Store& ids, format::TaskPool& pool) {
  const std::size_t m = pairs.size();
  const std::size_t parts = format::parts_for(m, pool.threads());
  auto part = [&](std::size_t s) { return format::part_range(m, s, parts); };
  auto starts_key = [&](std::size_t i) { return i == 0 || pairs[i].key != pairs[i - 1].key; };
  std::vector<uint64_t> before(parts + 1, 0);  // keys starting before each part (after the prefix sum)
  pool.run(parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    uint64_t count = 0;
    for (auto [i, end] = part(s); i < end; ++i) count += starts_key(i) ? 1 : 0;
    before[s + 1] = count;
  });
  for (std::size_t s = 0; s < parts; ++s) before[s + 1] += before[s];
  const uint64_t distinct = before[parts];
  uint64_t* key = fingerprints.fill(distinct);
  uint64_t* id = ids.fill(m);
  // Offsets only when some fingerprint has a second id (spec/FORMAT.md, ids): a key's first id.
  uint64_t* offset = distinct < m ? id_offsets.fill(distinct + 1) : nullptr;
  pool.run(parts, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
    uint64_t k = before[s];
    for (auto [i, end] = part(s); i < end; ++i) {
      if (starts_key(i)) {
        key[k] = pairs[i].key;
        if (offset) offset[k] = i;
        ++k;
      }
      id[i] = pairs[i].id;
    }
  });
  if (offset) offset[distinct] = m;
  fingerprints.finish();
  id_offsets.finish();
  ids.finish();
}

}  // namespace simdex::writer
