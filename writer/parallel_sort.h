// std::sort on several threads: parts sorted at once, then merged pairwise, round by round, between
// the buffer and a scratch buffer of the same size (no other allocation). The result is the one
// sorted order, whatever the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "format/run_tasks.h"

namespace simdex::writer {

template <typename T>
void parallel_sort(std::span<T> v, std::span<T> scratch, unsigned threads) {
  constexpr std::size_t kMinPart = std::size_t{1} << 16;  // below this a thread is not worth starting
  const std::size_t n = v.size();
  const std::size_t parts = std::min<std::size_t>(threads, n / kMinPart);
  if (parts <= 1 || scratch.size() < n) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::vector<std::size_t> cut(parts + 1);
  for (std::size_t i = 0; i <= parts; ++i) cut[i] = n * i / parts;
  format::run_tasks(static_cast<unsigned>(parts), parts, [&](std::size_t i, unsigned, auto&) {
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(cut[i]),
              v.begin() + static_cast<std::ptrdiff_t>(cut[i + 1]));
  });
  T* from = v.data();
  T* to = scratch.data();
  while (cut.size() > 2) {
    const std::size_t runs = cut.size() - 1, merges = (runs + 1) / 2;
    format::run_tasks(static_cast<unsigned>(std::min<std::size_t>(threads, merges)), merges,
                      [&](std::size_t m, unsigned, auto&) {
                        const std::size_t a = cut[2 * m], b = cut[std::min(2 * m + 1, runs)],
                                          c = cut[std::min(2 * m + 2, runs)];
                        std::merge(from + a, from + b, from + b, from + c, to + a);
                      });
    std::vector<std::size_t> next;
    for (std::size_t m = 0; m < merges; ++m) next.push_back(cut[2 * m]);
    next.push_back(n);
    cut.swap(next);
    std::swap(from, to);
  }
  if (from != v.data()) std::copy(from, from + n, v.data());
}

}  // namespace simdex::writer
