// The near pairs of a set over ranks (pairs and clusters): each rank finds the pairs within the
// members it owns (one find_pairs over them), and the pairs across members of different ranks by
// joins: the owner of member j broadcasts its live fingerprints in chunks and every other rank
// joins them against its members before j. So every pair of the set is found, each on one rank or
// more (a fingerprint held by members of several ranks), and each rank opens only its members.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "mpi/members.h"
#include "mpi/world.h"
#include "simdex/batch.h"

namespace simdex::mpi {

struct ScanOptions {
  std::string path;  // the set (or one index file)
  int k = -1;
  unsigned threads = 0;
  bool force = false;
  bool with_ids = false;    // ids of both sides (the union over this rank's members)
  bool duplicates = false;  // also (f, f, 0) for a fingerprint with several ids here, and for one
                            // held here and by a member of another rank (with or without ids)
  Assign assign = Assign::size;
  std::size_t chunk = std::size_t{1} << 20;  // fingerprints per broadcast
};

// Calls take(pair) on this rank for each pair it finds (a <= b). Collective: every rank calls it.
// A rank whose work fails reports it (World::step) and every rank throws JobFailed. Returns the
// members this rank owns as one Index (none when it owns none), for work after the scan.
std::optional<Index> scan_pairs(const World& world, const ScanOptions& options,
                                const std::function<void(const NearPair&)>& take);

}  // namespace simdex::mpi
