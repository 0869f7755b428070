// The number of worker threads for a requested count, where 0 means all cores: the one rule the
// writer (BuildOptions::threads) and the batch jobs (BatchOptions::threads) share. A request above
// max_threads gets max_threads: more never helps, and a mistaken huge count (a negative Python int
// wrapped to unsigned) must not try to start billions of threads.
#pragma once

#include <algorithm>
#include <thread>

namespace simdex::format {

inline constexpr unsigned max_threads = 4096;  // also the CLI's --threads range

inline unsigned thread_count(unsigned requested) {
  if (requested > 0) return std::min(requested, max_threads);
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace simdex::format
