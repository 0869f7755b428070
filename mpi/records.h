// Results as they travel between ranks, in u64 words: (key1, key2, distance, ids1, ids2). A pair is
// (a, b, distance, ids of a, ids of b); a join hit is (query number, fingerprint, distance, ids, -).
// The same result may come from several ranks (a fingerprint held by members on different ranks):
// records are sent to the rank their keys hash to, which unites them (merge_records), so each result
// is printed once with the union of its ids, as the one index of the whole set answers.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "simdex/index.h"

namespace simdex::mpi {

struct Record {
  uint64_t key1 = 0, key2 = 0;
  unsigned distance = 0;
  std::span<const uint64_t> ids1, ids2;  // ascending
};

void append_record(std::vector<uint64_t>& out, uint64_t key1, uint64_t key2, unsigned distance,
                   const IdList& ids1, const IdList& ids2);
void append_record(std::vector<uint64_t>& out, const Record& r);

// Calls visit for each record of `words`; Error(io) when the words are not whole records.
void for_each_record(std::span<const uint64_t> words, const std::function<void(const Record&)>& visit);

// The rank that unites the records of these keys.
int home_rank(uint64_t key1, uint64_t key2, int ranks);

// The records of `words` with equal keys made one (ids united), sorted by (key1, key2).
std::vector<uint64_t> merge_records(std::span<const uint64_t> words);

// An IdList over ids held in memory (host byte order is little-endian on every platform MPI runs
// simdex on; IdList reads little-endian words).
IdList id_view(std::span<const uint64_t> ids);

}  // namespace simdex::mpi
