#include "format/populate.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

#include "format/run_tasks.h"

namespace simdex::format {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kChunk = std::size_t{8} << 20;  // per task: few tasks, still spread over threads

void populate_range(char* begin, char* end) {
#ifdef MADV_POPULATE_WRITE  // Linux 5.14 on: the kernel faults the pages in without touching them
  if (::madvise(begin, static_cast<std::size_t>(end - begin), MADV_POPULATE_WRITE) == 0) return;
#endif
  // An older kernel: a write of each page's first byte, of the byte it holds.
  for (char* p = begin; p < end; p += kPage) {
    volatile char* v = p;
    *v = *v;
  }
}
}  // namespace

void populate(void* p, std::size_t bytes, unsigned threads) {
  if (threads < 2 || bytes < 2 * kChunk) return;
  // madvise needs page-aligned ranges: from the page that holds p to the page that holds its end.
  const auto first = reinterpret_cast<std::uintptr_t>(p) / kPage * kPage;
  const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes + kPage - 1) / kPage * kPage;
  const std::size_t count = (last - first + kChunk - 1) / kChunk;
  run_tasks(threads, count, [&](std::size_t i, unsigned, std::atomic<uint64_t>&) {
    const std::uintptr_t b = first + i * kChunk, e = std::min<std::uintptr_t>(b + kChunk, last);
    populate_range(reinterpret_cast<char*>(b), reinterpret_cast<char*>(e));
  });
}

}  // namespace simdex::format
