// Union-find that several threads may update at once without a lock. A root only ever changes by a
// compare-and-swap from itself to a smaller index, so every parent is smaller than its child: no
// cycle can form, and a component's root is its smallest member.
#pragma once

#include <atomic>
#include <cstdint>

#include "format/huge_pages.h"
#include "format/run_tasks.h"

namespace simdex::reader {

class ConcurrentUnionFind {
 public:
  // Every element its own set; the array (in huge pages: at 100M elements, 800 MB, where 4 KiB
  // pages would cost 200,000 page faults) is filled on `threads` threads.
  explicit ConcurrentUnionFind(uint64_t n, unsigned threads = 1) : parent_(n), n_(n) {
    for_slices(threads, [&](uint64_t i) { parent(i).store(i, std::memory_order_relaxed); });
  }
  uint64_t size() const { return n_; }

  uint64_t find(uint64_t x) {
    for (;;) {
      const uint64_t p = parent(x).load(std::memory_order_acquire);
      if (p == x) return x;
      const uint64_t g = parent(p).load(std::memory_order_acquire);
      // Path halving; losing the race only leaves a longer path, never a wrong one (g is an ancestor).
      uint64_t expected = p;
      if (g != p) parent(x).compare_exchange_weak(expected, g, std::memory_order_acq_rel);
      x = g;
    }
  }

  // Once no unite() runs any more: every element's parent becomes its root, on `threads` threads,
  // so that find() costs two loads from then on.
  void flatten(unsigned threads) {
    for_slices(threads, [&](uint64_t i) { parent(i).store(find(i), std::memory_order_relaxed); });
  }

  void unite(uint64_t a, uint64_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (a < b) std::swap(a, b);  // link the larger root under the smaller
      uint64_t expected = a;
      if (parent(a).compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
    }
  }

 private:
  template <typename F>
  void for_slices(unsigned threads, F&& f) {
    const unsigned slices = format::parts_for(n_, threads);
    format::run_tasks(slices, slices, [&](std::size_t s, unsigned, std::atomic<uint64_t>&) {
      for (auto [i, end] = format::part_range(n_, s, slices); i < end; ++i) f(i);
    });
  }

  // Plain storage used through atomic_ref: an array of std::atomic would be zeroed first, on one thread.
  std::atomic_ref<uint64_t> parent(uint64_t i) { return std::atomic_ref<uint64_t>(parent_[i]); }
  format::HugeBuffer<uint64_t> parent_;
  uint64_t n_;
};

}  // namespace simdex::reader
