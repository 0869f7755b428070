// The data of the latency benchmarks (compare_bench, latency_bench): n distinct fingerprints, random
// or clustered (near-duplicate variants 1..3 bits from a center), and queries that are stored
// fingerprints with exactly k bits flipped (planted near-duplicates). Deterministic.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace simdex::bench {

struct BenchData {
  std::vector<uint64_t> fingerprints;  // distinct, ascending
  std::vector<uint64_t> queries;
};

// `count` queries, each a fingerprint of `stored` (not empty) with exactly `flips` bits flipped: every
// query has a hit at distance `flips`. Deterministic (the same for the same arguments).
inline std::vector<uint64_t> planted_queries(const std::vector<uint64_t>& stored, std::size_t count,
                                             unsigned flips) {
  std::vector<uint64_t> queries;
  queries.reserve(count);
  std::mt19937_64 qrng(7);
  for (std::size_t i = 0; i < count; ++i) {
    const uint64_t q = stored[qrng() % stored.size()];
    uint64_t flipped = 0;
    while (std::popcount(flipped) < static_cast<int>(flips)) flipped |= uint64_t{1} << (qrng() % 64);
    queries.push_back(q ^ flipped);
  }
  return queries;
}

inline BenchData make_bench_data(uint64_t n, bool clustered, std::size_t query_count, unsigned k) {
  if (n == 0) throw std::invalid_argument("a benchmark's data needs at least one fingerprint (n = 0)");
  BenchData out;
  std::mt19937_64 rng(42);
  out.fingerprints.reserve(n);
  while (out.fingerprints.size() < n) {
    const uint64_t center = rng();
    out.fingerprints.push_back(center);
    if (!clustered) continue;
    // Clusters of near-duplicates: 1..6 variants, each 1..3 bits from the center.
    for (unsigned v = 1 + rng() % 6; v > 0 && out.fingerprints.size() < n; --v) {
      uint64_t x = center;
      for (unsigned f = 1 + rng() % 3; f > 0; --f) x ^= uint64_t{1} << (rng() % 64);
      out.fingerprints.push_back(x);
    }
  }
  std::sort(out.fingerprints.begin(), out.fingerprints.end());
  out.fingerprints.erase(std::unique(out.fingerprints.begin(), out.fingerprints.end()),
                         out.fingerprints.end());
  out.queries = planted_queries(out.fingerprints, query_count, k);
  return out;
}

}  // namespace simdex::bench
