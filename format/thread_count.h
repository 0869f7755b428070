// The number of worker threads for a requested count, where 0 means all cores: the one rule the
// writer (BuildOptions::threads) and the batch jobs (BatchOptions::threads) share.
#pragma once

#include <algorithm>
#include <thread>

namespace simdex::format {

inline unsigned thread_count(unsigned requested) {
  return requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace simdex::format
