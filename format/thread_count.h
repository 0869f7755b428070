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

// The threads for work bound by the CPU and memory alone (a build's parsing, sorts and encoding):
// the count asked for, at most the cores. Threads beyond them only take turns, wake each other and
// hold memory: a 10M paper-10 build at --threads 4096 on two cores took 9.5-13.6 s and 2.4 GB
// (ten tables in flight) against 1.5-2.0 s and 606 MB at --threads 2. (Batch jobs keep the count
// asked for: on a cold index more threads than cores wait on more page faults at once.)
inline unsigned cpu_bound_threads(unsigned requested) {
  return std::min(thread_count(requested), thread_count(0));
}

}  // namespace simdex::format
