// Pieces shared by the batch jobs (reader/batch_pairs.cpp, batch_join.cpp, clusters.cpp): k and thread
// count from the options, the "first found in table t" rule, and per-worker result buffers.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "format/run_tasks.h"
#include "reader/index_file.h"
#include "simdex/batch.h"

namespace simdex::reader {

// The options' k, or the index's; Error(usage) above the index's k.
unsigned batch_k(const IndexFile& file, const BatchOptions& options);
unsigned batch_threads(const BatchOptions& options);

// True when table t is the first table whose prefix groups put two fingerprints differing in `diff`
// (original bits) together: no earlier table did, so no earlier table reported the pair.
inline bool first_table_for(const std::vector<uint64_t>& masks, std::size_t t, uint64_t diff) {
  for (std::size_t u = 0; u < t; ++u)
    if ((diff & masks[u]) == 0) return false;
  return true;
}

// The innermost loops of pairs and join test popcount(x) <= k. The build targets baseline x86-64,
// which lacks POPCNT, so std::popcount is a call into libgcc; on x86-64 the loops are also compiled
// for POPCNT and that copy is chosen at run time when the CPU has it (every x86-64 CPU since about
// 2008): 3x faster on `pairs`. Elsewhere the loops use std::popcount as compiled.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIMDEX_BATCH_X86 1
#define SIMDEX_INLINE __attribute__((always_inline)) inline
#define SIMDEX_POPCNT __attribute__((target("popcnt")))
inline bool cpu_has_popcnt() {
  static const bool has = __builtin_cpu_supports("popcnt");
  return has;
}
#else
#define SIMDEX_INLINE inline
#endif

// found(i, j) for each i < j < n with popcount(v[i] ^ v[j]) <= k.
template <typename Found>
SIMDEX_INLINE void close_pairs_body(const uint64_t* v, std::size_t n, unsigned k, Found& found) {
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const uint64_t x = v[i];
    for (std::size_t j = i + 1; j < n; ++j)
      if (static_cast<unsigned>(std::popcount(x ^ v[j])) <= k) found(i, j);
  }
}
// found(i) for each i < n with popcount(x ^ v[i]) <= k.
template <typename Found>
SIMDEX_INLINE void close_to_body(uint64_t x, const uint64_t* v, std::size_t n, unsigned k, Found& found) {
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<unsigned>(std::popcount(x ^ v[i])) <= k) found(i);
}
// The first i < n with popcount(x ^ v[i]) <= k, or n.
SIMDEX_INLINE std::size_t first_close_body(uint64_t x, const uint64_t* v, std::size_t n, unsigned k) {
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<unsigned>(std::popcount(x ^ v[i])) <= k) return i;
  return n;
}
#ifdef SIMDEX_BATCH_X86
template <typename Found>
SIMDEX_POPCNT void close_pairs_popcnt(const uint64_t* v, std::size_t n, unsigned k, Found& found) {
  close_pairs_body(v, n, k, found);
}
template <typename Found>
SIMDEX_POPCNT void close_to_popcnt(uint64_t x, const uint64_t* v, std::size_t n, unsigned k, Found& found) {
  close_to_body(x, v, n, k, found);
}
#endif
template <typename Found>
void close_pairs(const uint64_t* v, std::size_t n, unsigned k, Found&& found) {
#ifdef SIMDEX_BATCH_X86
  if (cpu_has_popcnt()) return close_pairs_popcnt(v, n, k, found);
#endif
  close_pairs_body(v, n, k, found);
}
template <typename Found>
void close_to(uint64_t x, const uint64_t* v, std::size_t n, unsigned k, Found&& found) {
#ifdef SIMDEX_BATCH_X86
  if (cpu_has_popcnt()) return close_to_popcnt(x, v, n, k, found);
#endif
  close_to_body(x, v, n, k, found);
}

// The one task runner (format/run_tasks.h), under the names the batch jobs use.
using format::run_tasks;
using format::TaskProgress;

// Results of one worker, handed to the user's callback in batches under one lock, so the callback
// never runs concurrently and memory stays bounded.
template <typename T>
class BatchSink {
 public:
  BatchSink(const std::function<void(std::span<const T>)>& callback, std::mutex& lock,
            std::atomic<uint64_t>& count)
      : callback_(callback), lock_(lock), count_(count) {
    buffer_.reserve(kBatch);
  }
  ~BatchSink() = default;  // flush() explicitly: it may throw (the callback's exceptions)
  void push(const T& x) {
    buffer_.push_back(x);
    if (buffer_.size() == kBatch) flush();
  }
  void flush() {
    if (buffer_.empty()) return;
    count_ += buffer_.size();
    {
      std::lock_guard g(lock_);
      callback_(std::span<const T>(buffer_));
    }
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kBatch = 1024;
  const std::function<void(std::span<const T>)>& callback_;
  std::mutex& lock_;
  std::atomic<uint64_t>& count_;
  std::vector<T> buffer_;
};

}  // namespace simdex::reader
