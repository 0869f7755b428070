// One build's simdex behind three C entry points, as a module of its own (bench/ab_bench loads
// several of them, each built from another commit, into one process: scripts/ab-libs).
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "simdex/batch.h"
#include "simdex/builder.h"
#include "simdex/index.h"

namespace {
std::unique_ptr<simdex::Index> index;
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

// Builds `path` from the fingerprints given (ids 0, 1, ...) with `scheme`, k = 3.
extern "C" __attribute__((visibility("default"))) void simdex_ab_build(const char* path, const uint64_t* fps,
                                                                       std::size_t n, const char* scheme) {
  simdex::BuildOptions o;
  o.scheme = simdex::Scheme::named(scheme, 3, 0);
  simdex::IndexBuilder b(o);
  for (std::size_t i = 0; i < n; ++i) b.add(fps[i], i);
  b.write(path);
}

extern "C" __attribute__((visibility("default"))) void simdex_ab_open(const char* path) {
  index = std::make_unique<simdex::Index>(simdex::Index::open(path));
}

// One join of the queries on `threads` threads, ids filled; wall seconds. *hits grows by the hits found.
extern "C" __attribute__((visibility("default"))) double simdex_ab_join(const uint64_t* fps, std::size_t n,
                                                                        unsigned threads, uint64_t* hits) {
  std::vector<simdex::Query> qs(n);
  for (std::size_t i = 0; i < n; ++i) qs[i] = {fps[i], i};
  simdex::BatchOptions o;
  o.threads = threads;
  o.with_ids = true;
  const auto t = std::chrono::steady_clock::now();
  simdex::join(*index, qs, o, [&](std::span<const simdex::JoinHit> b) { *hits += b.size(); });
  return seconds_since(t);
}

// The queries one at a time on this thread (Index::query, k = 3); seconds per query.
extern "C" __attribute__((visibility("default"))) double simdex_ab_query(const uint64_t* fps, std::size_t n,
                                                                         unsigned, uint64_t* hits) {
  const auto t = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) *hits += index->query(fps[i], 3).size();
  return seconds_since(t) / static_cast<double>(n);
}
